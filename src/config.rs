//! User configuration: `[workspace.metadata.capcheck]` in the workspace's Cargo.toml (or
//! `[package.metadata.capcheck]` of the root package). cargo has already parsed it; an unknown
//! key is an error, so a typo never silently does nothing.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::catalog::{Api, Level};

/// User additions to the tables, from `[workspace.metadata.capcheck]`.
#[derive(Debug, Clone, Default)]
pub(crate) struct TableConfig {
    /// Extra identifier patterns that denote a capacity.
    pub(crate) capacity_names: Vec<String>,
    /// Extra words that make a name not a capacity.
    pub(crate) exclude_words: Vec<String>,
    /// Extra capacity APIs.
    pub(crate) apis: Vec<Api>,
    /// Extra words that make an expression a count of units.
    pub(crate) count_words: Vec<String>,
    /// Extra assertion macros or helpers whose arguments are checked for pins.
    pub(crate) assert_macros: Vec<String>,
}

/// A file glob: `*` stays within a folder, `**` crosses folders; a glob without `/` matches
/// the file name in any folder (`*_generated.rs`). Matched against the workspace-relative path.
pub(crate) fn glob(pattern: &str) -> Result<globset::GlobMatcher, String> {
    let full = if pattern.contains('/') {
        pattern.trim_start_matches("./").to_string()
    } else {
        format!("**/{pattern}")
    };
    globset::GlobBuilder::new(&full)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("`{pattern}` is not a glob: {e}"))
}

/// A regular expression for `--exclude-re` (Rust `regex` syntax).
pub(crate) fn regex(pattern: &str) -> Result<regex::Regex, String> {
    regex::Regex::new(pattern).map_err(|e| format!("`{pattern}` is not a regex: {e}"))
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct Config {
    /// Extra identifier patterns that denote a capacity (`my_slots`).
    #[serde(alias = "capacity_names")]
    pub(crate) capacity_names: Vec<String>,
    /// Extra words that make a name not a capacity.
    #[serde(alias = "exclude_words")]
    pub(crate) exclude_words: Vec<String>,
    /// Extra capacity APIs: `{ call = "Limiter::new", arg = 0 }` or `{ method = "limit", arg = 0 }`.
    pub(crate) apis: Vec<Api>,
    /// Extra words that make an expression a count of units.
    #[serde(alias = "count_words")]
    pub(crate) count_words: Vec<String>,
    /// Extra assertion macros or helpers.
    #[serde(alias = "assert_macros")]
    pub(crate) assert_macros: Vec<String>,
    /// Rule levels: `per-unit-cap = "error"`, `unmeasured-capacity = "allow"`.
    pub(crate) levels: BTreeMap<String, Level>,
    /// Path of the capacity manifest, relative to the workspace root (default `capacity.toml`).
    pub(crate) manifest: Option<String>,
    /// Guard mutants for `mutants`: designs that were deleted and must stay deleted.
    pub(crate) guards: Vec<Guard>,
    /// `[workspace.metadata.capcheck.mutants]`: what `mutants` never runs.
    pub(crate) mutants: MutantsConfig,
}

/// `[workspace.metadata.capcheck.mutants]`: skips and exclusions of every `mutants` run, next to
/// the command line's `--skip-mutant`, `--exclude-file` and `--exclude-re`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct MutantsConfig {
    /// Files whose mutants never run (globs over workspace-relative paths).
    pub(crate) exclude_files: Vec<String>,
    /// Mutants whose id or name (as `--list` prints it) matches one of these never run.
    pub(crate) exclude_re: Vec<String>,
    /// Mutants skipped by id, each with its reason.
    pub(crate) skip_mutants: Vec<SkipMutant>,
}

/// One mutant skipped by id: `{ id = "swap-min-max:src/lib.rs:f:1a2b3c4d", reason = "..." }`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SkipMutant {
    pub(crate) id: String,
    pub(crate) reason: String,
}

/// "When you delete a design, write the mutant that puts it back": `mutants` replaces the body of
/// `function` with `replacement` and fails the run unless a test kills it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Guard {
    /// The function's site, `crate::Type::method` (or a unique suffix of it).
    pub(crate) function: String,
    /// The expression that becomes the function's body.
    pub(crate) replacement: String,
    pub(crate) expect: Expect,
}

/// What a guard mutant must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Expect {
    Killed,
}

impl Config {
    /// Read the config from the JSON cargo produced; errors name the table and the key.
    pub(crate) fn from_metadata(value: &serde_json::Value) -> anyhow::Result<Config> {
        if value.is_null() {
            return Ok(Config::default());
        }
        let config: Config = serde_json::from_value(value.clone())
            .map_err(|e| anyhow::anyhow!("Cargo.toml [workspace.metadata.capcheck]: {e}"))?;
        for g in &config.guards {
            crate::site::check_pattern(&g.function).map_err(|why| {
                anyhow::anyhow!("Cargo.toml [workspace.metadata.capcheck] guards: function {why}")
            })?;
        }
        config.mutants.check()?;
        Ok(config)
    }

    pub(crate) fn tables(&self) -> TableConfig {
        TableConfig {
            capacity_names: self.capacity_names.clone(),
            exclude_words: self.exclude_words.clone(),
            apis: self.apis.clone(),
            count_words: self.count_words.clone(),
            assert_macros: self.assert_macros.clone(),
        }
    }
}

impl MutantsConfig {
    /// Every glob and regex compiles and every skip has a reason; errors name the key.
    fn check(&self) -> anyhow::Result<()> {
        let at = |key: &str, i: usize, why: String| {
            anyhow::anyhow!("Cargo.toml [workspace.metadata.capcheck.mutants] {key}[{i}]: {why}")
        };
        for (i, g) in self.exclude_files.iter().enumerate() {
            crate::config::glob(g).map_err(|why| at("exclude-files", i, why))?;
        }
        for (i, r) in self.exclude_re.iter().enumerate() {
            crate::config::regex(r).map_err(|why| at("exclude-re", i, why))?;
        }
        for (i, s) in self.skip_mutants.iter().enumerate() {
            if s.reason.trim().is_empty() {
                return Err(at(
                    "skip-mutants",
                    i,
                    format!("`{}`: the reason is empty: say why it should not run", s.id),
                ));
            }
        }
        Ok(())
    }
}

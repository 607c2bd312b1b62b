//! The command line as clap sees it. Each subcommand accepts exactly the flags it uses, and
//! every argument struct converts into the plain options its job takes: no type below this
//! module knows clap.

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::catalog::Level;
use crate::catalog::Operator;
use crate::lint::levels::Target;
use crate::mutate::engine::{EngineKind, TestTool};
use crate::mutate::job::MutantsOptions;
use crate::project::ProjectOptions;
use crate::report::{Color, Format, Verbosity};
use crate::workspace::Selection;

/// Cargo runs `cargo-capcheck capcheck ARGS`; run directly it is `cargo-capcheck ARGS`.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-capcheck",
    bin_name = "cargo capcheck",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    /// Options of `check`, the default subcommand.
    #[command(flatten)]
    pub(crate) check: CheckArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Find hard-coded capacity constants and the test assertions that pin them (the default).
    Check(CheckArgs),
    /// Write a capacity.toml entry (method = "unmeasured") for every capacity not yet listed.
    Init(InitArgs),
    /// List the test fixtures whose values never vary along some field.
    Fixtures(FixturesArgs),
    /// List the rules, report kinds and mutation operators.
    Rules(RulesArgs),
    /// Print the documentation of a rule, report kind or operator.
    Explain {
        /// A rule, report or operator id, e.g. `unmeasured-capacity`.
        id: String,
    },
    /// Read startup logs and /metrics scrapes; compute capacity, latency breakdown and waves.
    Measure(super::measure::MeasureArgs),
    /// Mutate capacity logic in a scratch copy and report which mutants the tests miss.
    Mutants(Box<MutantsArgs>),
    /// Print a shell completion script for `cargo-capcheck` (e.g. `cargo capcheck completions
    /// bash > ~/.local/share/bash-completion/completions/cargo-capcheck`).
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// Which packages of the workspace to look at, in cargo's own words.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct WorkspaceArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub(crate) manifest_path: Option<PathBuf>,
    /// Package(s) to look at.
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub(crate) packages: Vec<String>,
    /// Every package of the workspace (the default for a virtual workspace).
    #[arg(long)]
    pub(crate) workspace: bool,
    /// Exclude package(s) (with --workspace).
    #[arg(long, value_name = "SPEC")]
    pub(crate) exclude: Vec<String>,
}

impl WorkspaceArgs {
    pub(crate) fn selection(&self) -> Selection {
        Selection {
            manifest_path: self.manifest_path.clone(),
            packages: self.packages.clone(),
            workspace: self.workspace,
            exclude: self.exclude.clone(),
        }
    }
}

#[derive(Debug, Args, Clone, Default)]
pub(crate) struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
    /// Colour in human output; `auto` follows `CARGO_TERM_COLOR`, then `NO_COLOR` (set and not
    /// empty: no colour), then whether stdout is a terminal.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub(crate) color: Color,
}

/// `-q` / `-v` of the jobs that print progress or a summary.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct VerbosityArgs {
    /// Print less: human output without the summary line, `mutants` without progress lines.
    #[arg(short = 'q', long, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Print more: the counts per rule and the time under human output, each mutant's log in
    /// `mutants` progress lines.
    #[arg(short = 'v', long)]
    pub(crate) verbose: bool,
}

impl VerbosityArgs {
    pub(crate) fn level(&self) -> Verbosity {
        match (self.quiet, self.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        }
    }
}

#[derive(Debug, Args, Clone, Default)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    /// The capacity manifest (default: `capacity.toml` at the workspace root, if present).
    #[arg(long = "capacity", value_name = "PATH")]
    pub(crate) capacity: Option<PathBuf>,
    /// Parse every item of every file. By default items that cannot hold a capacity (no
    /// capacity name, API, count or assertion literal) are skipped unparsed, which is about
    /// three times faster; this also reports syntax errors inside such items.
    #[arg(long)]
    pub(crate) full_parse: bool,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
    #[command(flatten)]
    pub(crate) verbosity: VerbosityArgs,
    /// Allow a rule (report none of its findings), over the configured levels; `warnings`
    /// names every warning.
    #[arg(short = 'A', long = "allow", value_name = "RULE")]
    pub(crate) allow: Vec<Target>,
    /// Report a rule's findings as warnings.
    #[arg(short = 'W', long = "warn", value_name = "RULE")]
    pub(crate) warn: Vec<Target>,
    /// Report a rule's findings as errors (exit 1); `-D warnings` denies every warning.
    #[arg(short = 'D', long = "deny", value_name = "RULE")]
    pub(crate) deny: Vec<Target>,
}

impl CheckArgs {
    pub(crate) fn project(&self) -> ProjectOptions {
        ProjectOptions {
            selection: self.workspace.selection(),
            capacity: self.capacity.clone(),
            full_parse: self.full_parse,
        }
    }

    /// `-A`, then `-W`, then `-D`: of two flags on one rule the stricter wins.
    pub(crate) fn level_flags(&self) -> Vec<(Target, Level)> {
        let with = |targets: &[Target], level: Level| {
            targets.iter().map(move |t| (*t, level)).collect::<Vec<_>>()
        };
        let mut out = with(&self.allow, Level::Allow);
        out.extend(with(&self.warn, Level::Warning));
        out.extend(with(&self.deny, Level::Error));
        out
    }
}

#[derive(Debug, Args, Clone, Default)]
pub(crate) struct InitArgs {
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    /// The manifest to create or extend (default: `capacity.toml` at the workspace root).
    #[arg(long = "capacity", value_name = "PATH")]
    pub(crate) capacity: Option<PathBuf>,
}

#[derive(Debug, Args, Clone, Default)]
pub(crate) struct FixturesArgs {
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

#[derive(Debug, Args, Clone, Default)]
pub(crate) struct RulesArgs {
    /// Output format (`github` prints the human table).
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(crate) format: Format,
}

/// Options of `mutants`.
#[derive(Debug, Args, Clone)]
pub(crate) struct MutantsArgs {
    #[command(subcommand)]
    pub(crate) command: Option<MutantsCommand>,
    #[command(flatten)]
    pub(crate) workspace: WorkspaceArgs,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
    #[command(flatten)]
    pub(crate) verbosity: VerbosityArgs,
    /// Print the mutants (ids, locations, replacements) without building anything.
    #[arg(long, conflicts_with = "list_files")]
    pub(crate) list: bool,
    /// Print the files that hold selected mutants, with their counts, without building anything.
    #[arg(long)]
    pub(crate) list_files: bool,
    /// Only mutants of this operator (repeatable); `cargo capcheck rules` lists them.
    #[arg(long = "operator", value_name = "ID")]
    pub(crate) operators: Vec<Operator>,
    /// Processors for the mutants' test runs: an upper bound. With `switch` (default: the
    /// processors this process may use, as the kernel reports them with affinity and cgroup
    /// quotas), a mutant counts for the processor time its tests took in the baseline, so tests
    /// that wait on timers or sockets overlap, up to 4 per processor; with `rebuild` (default
    /// 1), mutants tested at once, each in its own scratch copy and build folder.
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) jobs: Option<u64>,
    /// How mutants are built: `switch` builds once with every runtime mutant behind a switch
    /// and runs only the tests that reach each one; `rebuild` builds and runs the whole suite
    /// per mutant.
    #[arg(long, value_enum, default_value_t = EngineKind::Switch)]
    pub(crate) engine: EngineKind,
    /// What runs the tests of rebuilt mutants (the switch engine runs test binaries itself).
    #[arg(long, value_enum, default_value_t = TestTool::Cargo)]
    pub(crate) test_tool: TestTool,
    /// Space or comma separated features to build and test with (as `cargo test --features`).
    #[arg(short = 'F', long, value_name = "FEATURES")]
    pub(crate) features: Vec<String>,
    /// Leave doctests out (of the baseline and of every mutant's tests): for doctests that need
    /// features the run does not enable, or that are too slow to pay per mutant.
    #[arg(long)]
    pub(crate) no_doctests: bool,
    /// Build and test with every feature.
    #[arg(long)]
    pub(crate) all_features: bool,
    /// Build and test without the default features.
    #[arg(long)]
    pub(crate) no_default_features: bool,
    /// Only mutants on lines this unified diff adds or changes (`-`: read it from stdin).
    #[arg(long, value_name = "PATCH")]
    pub(crate) in_diff: Option<PathBuf>,
    /// Run shard K of N (0-based); `mutants merge` joins the shards' output folders.
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<crate::mutate::select::Shard>,
    /// Also put back code deleted from ceiling functions in the git history.
    #[arg(long)]
    pub(crate) from_history: bool,
    /// Keep the verdicts an interrupted run in the same output folder wrote (its
    /// `verdicts.jsonl`) for the mutants that are unchanged, and run only the rest. Verdicts
    /// given on other code (a source or test file of the selected packages, the manifest or the
    /// lock file changed since) are not kept: every mutant runs again.
    #[arg(long)]
    pub(crate) resume: bool,
    /// Output folder [default: <target>/capcheck/mutants].
    #[arg(long, value_name = "DIR")]
    pub(crate) output: Option<PathBuf>,
    /// Build folders of the scratch copies, kept warm between runs
    /// [default: <target>/capcheck/scratch-target].
    #[arg(long, value_name = "DIR")]
    pub(crate) build_dir: Option<PathBuf>,
    /// Where scratch copies of the workspace are made [default: the system temp folder].
    #[arg(long, value_name = "DIR")]
    pub(crate) scratch_dir: Option<PathBuf>,
    /// A mutant's build or tests time out after this many times the baseline's...
    #[arg(long, value_name = "K", default_value_t = 5.0, value_parser = positive_seconds)]
    pub(crate) timeout_multiplier: f64,
    /// ...but never sooner than this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 20.0, value_parser = positive_seconds)]
    pub(crate) timeout_floor: f64,
    /// The unmutated baseline's tests (each test binary, each test, the doctests) fail as hung
    /// after this many seconds (exit 3, the test named); its build has 3 hours.
    #[arg(long, value_name = "SECS", default_value_t = 1800.0, value_parser = positive_seconds)]
    pub(crate) baseline_timeout: f64,
    /// Exit 1 when the score (detected / viable mutants, in percent) is below this.
    #[arg(long, value_name = "PERCENT", value_parser = percent)]
    pub(crate) min_score: Option<f64>,
    /// The workload's natural bound on concurrency (e.g. the roster size); default: capacity.toml's
    /// `[workload] natural_bound`.
    #[arg(long, value_name = "N")]
    pub(crate) natural_bound: Option<u64>,
    /// The measured per-box capacity K for `reinstate-cap`; default: capacity.toml's
    /// `[derived] per_box_capacity`, or its first `per = "backend"` entry.
    #[arg(long, value_name = "K")]
    pub(crate) per_box: Option<u64>,
    /// The capacity manifest (default: `capacity.toml` at the workspace root, if present).
    #[arg(long = "capacity", value_name = "PATH")]
    pub(crate) capacity: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) select: MutantSelectArgs,
}

/// Which mutants run, by id, file and name; the config's `[workspace.metadata.capcheck.mutants]`
/// and `capcheck: skip-mutants(..)` comments add to the skips.
#[derive(Debug, Args, Clone, Default)]
pub(crate) struct MutantSelectArgs {
    /// Only the mutants of files matching this glob (repeatable: any of them; globs as
    /// --exclude-file's).
    #[arg(long = "file", short = 'f', value_name = "GLOB", value_parser = valid_glob)]
    pub(crate) files: Vec<String>,
    /// Only the mutants whose id or name (as `--list` prints it) matches this regex
    /// (repeatable: any of them).
    #[arg(long = "re", value_name = "REGEX", value_parser = valid_regex)]
    pub(crate) res: Vec<String>,
    /// Only this mutant (repeatable), by the id `--list` prints; an unknown id is an error.
    #[arg(long = "mutant", value_name = "ID")]
    pub(crate) mutants: Vec<String>,
    /// Skip this mutant (repeatable), by id; it is listed as skipped.
    #[arg(long = "skip-mutant", value_name = "ID")]
    pub(crate) skip_mutants: Vec<String>,
    /// Skip the mutants of files matching this glob (repeatable; `*` stays in a folder, `**`
    /// crosses them, a glob without `/` matches the file name anywhere).
    #[arg(long = "exclude-file", value_name = "GLOB", value_parser = valid_glob)]
    pub(crate) exclude_files: Vec<String>,
    /// Skip the mutants whose id or name (`FILE:LINE:COL: DESCRIPTION: `ORIGINAL` ->
    /// `REPLACEMENT``, as `--list` prints it) matches this regex (repeatable).
    #[arg(long = "exclude-re", value_name = "REGEX", value_parser = valid_regex)]
    pub(crate) exclude_re: Vec<String>,
}

impl MutantSelectArgs {
    fn filters(&self) -> crate::mutate::select::Filters {
        crate::mutate::select::Filters {
            only: self.mutants.clone(),
            skip: self.skip_mutants.clone(),
            exclude_files: self.exclude_files.clone(),
            exclude_re: self.exclude_re.clone(),
            files: self.files.clone(),
            res: self.res.clone(),
        }
    }
}

fn valid_glob(s: &str) -> Result<String, String> {
    crate::config::glob(s).map(|_| s.to_string())
}

fn valid_regex(s: &str) -> Result<String, String> {
    crate::config::regex(s).map(|_| s.to_string())
}

impl MutantsArgs {
    pub(crate) fn options(&self) -> MutantsOptions {
        MutantsOptions {
            project: ProjectOptions {
                selection: self.workspace.selection(),
                capacity: self.capacity.clone(),
                full_parse: true,
            },
            operators: self.operators.clone(),
            jobs: match (self.jobs, self.engine) {
                (Some(j), _) => usize::try_from(j).unwrap_or(usize::MAX),
                // Measured, not typed: the processors the kernel lets this process use.
                (None, EngineKind::Switch) => {
                    std::thread::available_parallelism().map_or(1, |n| n.get())
                }
                // Each job is a scratch copy and a build folder: one unless asked.
                (None, EngineKind::Rebuild) => 1,
            },
            engine: self.engine,
            doctests: !self.no_doctests,
            features: self
                .features
                .iter()
                .flat_map(|f| ["--features".to_string(), f.clone()])
                .chain(self.all_features.then(|| "--all-features".to_string()))
                .chain(
                    self.no_default_features
                        .then(|| "--no-default-features".to_string()),
                )
                .collect(),
            test_tool: self.test_tool,
            in_diff: self.in_diff.clone(),
            shard: self.shard,
            from_history: self.from_history,
            resume: self.resume,
            output: self.output.clone(),
            build_dir: self.build_dir.clone(),
            scratch_dir: self.scratch_dir.clone(),
            timeout_multiplier: self.timeout_multiplier,
            timeout_floor: self.timeout_floor,
            baseline_timeout: self.baseline_timeout,
            natural_bound: self.natural_bound,
            per_box: self.per_box,
            select: self.select.filters(),
        }
    }
}

#[derive(Debug, Subcommand, Clone)]
pub(crate) enum MutantsCommand {
    /// Join the output folders of `--shard` runs into one report, as one unsharded run would
    /// have written it.
    Merge {
        /// The shards' output folders.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to write the merged report [default: <target>/capcheck/mutants].
        #[arg(long = "into", value_name = "DIR")]
        into: Option<PathBuf>,
        #[command(flatten)]
        format: FormatArgs,
    },
}

/// A finite number of seconds (or a multiplier) above zero.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 1e6 => Ok(v),
        Ok(_) => Err(format!("`{s}` is not a number above 0 and at most 1000000")),
        Err(e) => Err(format!("`{s}`: {e}")),
    }
}

/// A percentage from 0 to 100.
fn percent(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        Ok(_) => Err(format!("`{s}` is not a percentage from 0 to 100")),
        Err(e) => Err(format!("`{s}`: {e}")),
    }
}

/// clap's view of the plain enums the jobs and renderers take.
macro_rules! value_enum {
    ($ty:ty { $($variant:path => $name:literal $(: $help:literal)?),* $(,)? }) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &[$($variant),*]
            }
            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(match self {
                    $($variant => PossibleValue::new($name)$(.help($help))?,)*
                })
            }
        }
    };
}

value_enum!(Format {
    Format::Human => "human",
    Format::Json => "json",
    Format::Github => "github": "GitHub Actions annotations (`check`, `mutants`, `fixtures`; others print human output)",
    Format::Sarif => "sarif": "SARIF 2.1.0 for code scanning (`check`, `mutants`, `fixtures`; `rules` and `--list` print JSON, others human output)",
});
value_enum!(Color {
    Color::Auto => "auto",
    Color::Always => "always",
    Color::Never => "never",
});
value_enum!(EngineKind {
    EngineKind::Switch => "switch",
    EngineKind::Rebuild => "rebuild",
});

value_enum!(TestTool {
    TestTool::Cargo => "cargo",
    TestTool::Nextest => "nextest",
});

//! Rule levels as the user configured them in `[workspace.metadata.capcheck.levels]`
//! (`per-unit-cap = "error"`), over each rule's default.

use std::collections::BTreeMap;

use crate::catalog::{Level, Rule};

#[derive(Debug, Clone, Default)]
pub(crate) struct Levels {
    overrides: BTreeMap<Rule, Level>,
    /// `-D warnings` / `-W warnings` / `-A warnings`: what every warning becomes.
    warnings: Option<Level>,
}

/// What a command-line level flag names: one rule, or `warnings` (every warning-level finding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Rule(Rule),
    Warnings,
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        if s == "warnings" {
            return Ok(Target::Warnings);
        }
        s.parse().map(Target::Rule)
    }
}

impl Levels {
    /// Levels from the config table; an unknown rule id is an error naming the known ones.
    pub(crate) fn new(config: BTreeMap<String, Level>) -> anyhow::Result<Levels> {
        let mut overrides = BTreeMap::new();
        for (id, level) in config {
            let Some(rule) = Rule::from_id(&id) else {
                let known: Vec<_> = Rule::ALL.iter().map(|r| r.id()).collect();
                anyhow::bail!(
                    "[workspace.metadata.capcheck.levels]: unknown rule `{id}` (expected one of: {})",
                    known.join(", ")
                );
            };
            overrides.insert(rule, level);
        }
        Ok(Levels {
            overrides,
            warnings: None,
        })
    }

    /// The command line's `-A/-W/-D` over the configured levels, applied in the order given;
    /// `cli` passes every `-A`, then every `-W`, then every `-D`, so of two flags on one rule
    /// the stricter wins. `warnings` acts on the level a finding has after the rule overrides
    /// (`-D warnings -A per-unit-cap` allows per-unit-cap and denies every other warning).
    pub(crate) fn with_flags(mut self, flags: &[(Target, Level)]) -> Levels {
        for (target, level) in flags {
            match target {
                Target::Rule(r) => {
                    self.overrides.insert(*r, *level);
                }
                Target::Warnings => self.warnings = Some(*level),
            }
        }
        self
    }

    pub(crate) fn level(&self, rule: Rule, default: Level) -> Level {
        let level = self.overrides.get(&rule).copied().unwrap_or(default);
        match self.warnings {
            Some(to) if level == Level::Warning => to,
            _ => level,
        }
    }
}

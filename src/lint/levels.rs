//! Rule levels as the user configured them in `[workspace.metadata.capcheck.levels]`
//! (`per-unit-cap = "error"`), over each rule's default.

use std::collections::BTreeMap;

use crate::lint::registry::{self, Level};

#[derive(Debug, Clone, Default)]
pub struct Levels {
    overrides: BTreeMap<String, Level>,
}

impl Levels {
    /// Levels from the config table; an unknown rule id is an error naming the known ones.
    pub fn new(overrides: BTreeMap<String, Level>) -> anyhow::Result<Levels> {
        for id in overrides.keys() {
            if registry::get(id).is_none_or(|r| r.kind != "rule") {
                let known: Vec<_> = registry::all()
                    .iter()
                    .filter(|r| r.kind == "rule")
                    .map(|r| r.id.as_str())
                    .collect();
                anyhow::bail!(
                    "[workspace.metadata.capcheck.levels]: unknown rule `{id}` (expected one of: {})",
                    known.join(", ")
                );
            }
        }
        Ok(Levels { overrides })
    }

    pub fn level(&self, rule: &str, default: Level) -> Level {
        self.overrides.get(rule).copied().unwrap_or(default)
    }
}

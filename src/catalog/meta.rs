//! Every rule's, report kind's and operator's metadata, docs and name tables: they live once,
//! in `rules/*.toml`, embedded by the catalog and parsed here. `rules`, `explain`, SARIF help and the matchers all read them.

use std::sync::OnceLock;

use serde::Deserialize;

/// How serious a finding is; `error` findings make `check` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Level {
    Allow,
    Note,
    Warning,
    Error,
}

impl Level {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// One entry of the capacity-API table.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub(crate) struct Api {
    /// Trailing path segments of a function call, e.g. `Semaphore::new`.
    #[serde(default)]
    pub(crate) call: Option<String>,
    /// Method name, e.g. `buffer_unordered`.
    #[serde(default)]
    pub(crate) method: Option<String>,
    /// 0-based index of the argument that carries the capacity.
    pub(crate) arg: usize,
    /// A bound of 1 is a lock or a hand-off here (`Semaphore::new(1)`, `channel(1)`), not a
    /// capacity; elsewhere a 1 is a setting like any other (`.max_size(1)` serialises a pool).
    #[serde(default)]
    pub(crate) handoff: bool,
}

/// A rule or mutation operator as written in `rules/<id>.toml`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Meta {
    pub(crate) id: String,
    /// `rule` (a `check` lint), `operator` (a mutation operator) or `report` (a `fixtures` report).
    pub(crate) kind: String,
    pub(crate) level: Level,
    pub(crate) summary: String,
    pub(crate) what_it_does: String,
    pub(crate) why_is_this_bad: String,
    pub(crate) example: String,
    pub(crate) use_instead: String,
    #[serde(default)]
    pub(crate) names: Vec<String>,
    #[serde(default)]
    pub(crate) exclude_words: Vec<String>,
    /// Words that name a size in bytes or a share: excluded as `exclude_words` are, and a place
    /// so named passes no count on in the flow (`Tables::holds_no_count`).
    #[serde(default)]
    pub(crate) no_count_words: Vec<String>,
    /// Words that make a batch one of housekeeping (`purge_batch_size`): a serial page.
    #[serde(default)]
    pub(crate) chore_words: Vec<String>,
    /// Words that make a type or a receiver a machine's shape (`CpuTopology`): its fields count
    /// no work (`Tables::holds_shape`).
    #[serde(default)]
    pub(crate) shape_words: Vec<String>,
    /// Words that make a type or a receiver a store of entries kept for reuse (`CacheConfig`):
    /// its fields count entries, not work (`Tables::holder_counts_nothing`).
    #[serde(default)]
    pub(crate) store_words: Vec<String>,
    /// Words of a store's field that name only the store's size (`max_entries`).
    #[serde(default)]
    pub(crate) store_size_words: Vec<String>,
    /// Words that name a duration unless the value's type says it counts (see
    /// `NameTable::with_soft`).
    #[serde(default)]
    pub(crate) duration_words: Vec<String>,
    /// Words that name a collection of work held at once (`queue`, `in_flight`): a value
    /// compared with its length is a ceiling (`index::extract`'s length guard).
    #[serde(default)]
    pub(crate) work_words: Vec<String>,
    /// Words that make such a collection one of bytes, text or a page.
    #[serde(default)]
    pub(crate) not_work_words: Vec<String>,
    /// Words that count units of concurrency (`pool`, `workers`): a capacity parameter of the
    /// workspace's own so named is a sink of the flow (`Tables::names_concurrency_unit`).
    #[serde(default)]
    pub(crate) concurrency_unit_words: Vec<String>,
    #[serde(default)]
    pub(crate) apis: Vec<Api>,
    /// The arguments that size one request of a series (`.limit(n)`, `.bind(n)`, `lpop(key,
    /// n)`): a value named for a capacity that goes only there is a page size (see
    /// `index::serial_pages`).
    #[serde(default)]
    pub(crate) page_apis: Vec<Api>,
    /// Names that size a GPU kernel's launch (`LaunchConfig`, `MTLSize`, `block_dim`,
    /// `dispatch_workgroups`): the threads of a block or a group, a layout of one launch that
    /// covers the whole input, no pool of threads (see `Extractor::launch_geometry`).
    #[serde(default)]
    pub(crate) launch_names: Vec<String>,
    #[serde(default)]
    pub(crate) count_words: Vec<String>,
    /// Words that make a name holding a count word no count of units (`cpu_time`, `cpu_usage`).
    #[serde(default)]
    pub(crate) not_count_words: Vec<String>,
    #[serde(default)]
    pub(crate) unit_values: Vec<u64>,
    #[serde(default)]
    pub(crate) subject_words: Vec<String>,
    #[serde(default)]
    pub(crate) max_multiplier: Option<u64>,
}

impl Meta {
    /// The documentation `explain` prints, under the four fixed headings.
    pub(crate) fn docs(&self) -> String {
        format!(
            "# {id} ({kind}, default level: {level})\n\n{summary}\n\n## What it does\n{what}\n## Why is this bad?\n{why}\n## Example\n{ex}\n## Use instead\n{inst}",
            id = self.id,
            kind = self.kind,
            level = self.level.as_str(),
            summary = self.summary,
            what = self.what_it_does.trim_start(),
            why = self.why_is_this_bad.trim_start(),
            ex = self.example.trim_start(),
            inst = self.use_instead.trim_start(),
        )
    }
}

/// All rules and operators, parsed once.
pub(crate) fn all() -> &'static [Meta] {
    static RULES: OnceLock<Vec<Meta>> = OnceLock::new();
    RULES.get_or_init(|| {
        super::sources()
            .map(|(id, text)| {
                let rule: Meta = toml::from_str(text)
                    .unwrap_or_else(|e| panic!("rules/{id}.toml is invalid (a build bug): {e}"));
                assert_eq!(&rule.id, id, "rules/{id}.toml declares another id");
                rule
            })
            .collect()
    })
}

/// The rule or operator with this id.
pub(crate) fn get(id: &str) -> Option<&'static Meta> {
    all().iter().find(|r| r.id == id)
}

/// The rule with this id; panics on an id that is not registered (a programming error).
pub(crate) fn rule(id: &str) -> &'static Meta {
    get(id).unwrap_or_else(|| panic!("rule {id} is not registered"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_parses_and_has_docs_under_every_heading() {
        for rule in all() {
            for (heading, text) in [
                ("summary", &rule.summary),
                ("what_it_does", &rule.what_it_does),
                ("why_is_this_bad", &rule.why_is_this_bad),
                ("example", &rule.example),
                ("use_instead", &rule.use_instead),
            ] {
                assert!(!text.trim().is_empty(), "{}: empty {heading}", rule.id);
            }
        }
    }
}

//! The name and API tables the extractor and rules match against: the rule files' tables, plus
//! what the user added in `[workspace.metadata.capcheck]` (see `config`).

use crate::catalog::Api;
use crate::catalog::Entry;
use crate::index::names::NameTable;
use rustc_hash::FxHashMap as HashMap;

/// Compiled tables.
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    pub(crate) capacity_names: NameTable,
    pub(crate) count_words: NameTable,
    pub(crate) subject_words: NameTable,
    pub(crate) ceiling_names: NameTable,
    /// Words naming a collection of work held at once, and words that make one bytes or text
    /// (`rules/unmeasured-capacity.toml`'s `work_words`, `not_work_words`).
    pub(crate) work_words: rustc_hash::FxHashSet<String>,
    pub(crate) not_work_words: rustc_hash::FxHashSet<String>,
    /// Words that name a size in bytes or a share (`no_count_words`).
    no_count_words: rustc_hash::FxHashSet<String>,
    /// Words that make a batch one of housekeeping (`chore_words`).
    chore_words: rustc_hash::FxHashSet<String>,
    /// Words that make a holder a machine's shape (`shape_words`).
    shape_words: rustc_hash::FxHashSet<String>,
    /// Words that make a holder a store of entries (`store_words`).
    store_words: rustc_hash::FxHashSet<String>,
    /// Words of a store's field that name only its size (`store_size_words`).
    store_size_words: rustc_hash::FxHashSet<String>,
    /// Words that count units of concurrency (`concurrency_unit_words`).
    concurrency_unit_words: rustc_hash::FxHashSet<String>,
    pub(crate) apis: Vec<Api>,
    /// Types, methods and places that size a GPU kernel's launch (the rule's `launch_names`).
    pub(crate) launch_names: rustc_hash::FxHashSet<String>,
    /// The flow's places that size one page of a series (`rules/unmeasured-capacity.toml`'s
    /// `page_apis`), as `index::flow` keys a method's parameter: `(".limit", 0)`.
    pub(crate) page_sinks: rustc_hash::FxHashSet<(String, usize)>,
    /// `apis` by the last segment of their call (`new` of `Semaphore::new`) and by their method,
    /// each in table order: a call or method is matched against its few, not the whole table
    /// (the walk asks once per call expression of the workspace).
    calls_by_last: HashMap<String, Vec<usize>>,
    methods: HashMap<String, Vec<usize>>,
    pub(crate) unit_values: Vec<u64>,
    pub(crate) max_multiplier: u64,
    pub(crate) assert_macros: Vec<String>,
    /// Functions some signature of the workspace gives a capacity parameter (`index::params`):
    /// the walk records their calls' literal arguments.
    pub(crate) capacity_fns: rustc_hash::FxHashSet<String>,
    /// The name of every function the workspace's code defines (its signatures, test code's
    /// aside), whatever its parameters: a call's result is followed into a body only where one
    /// is defined (`flow::Graph::idents`).
    pub(crate) defined_fns: rustc_hash::FxHashSet<String>,
    /// Of those, the names every capacity signature of which is an associated function without
    /// `self` (`Limits::new(fetches, ..)`), with the types that define them: only a call through
    /// one of these types (or `Self`) can set a capacity (`index::capacities`' signature match),
    /// so the sparse parse keeps `Vec::new(8)` no more than `vec![8]`.
    pub(crate) typed_fns: HashMap<String, rustc_hash::FxHashSet<String>>,
    /// Every associated function without `self` the workspace defines, as `Type::name`, with
    /// the positions of its parameters named for a capacity or as unused (crucible's own
    /// `Buffer::new(block_count, block_size)`: none): a call of one the file does not import
    /// from elsewhere is the workspace's, not a library's API of the same path, unless the
    /// workspace's parameter there is named for a capacity too, or is a stand-in's that
    /// mirrors the library (`_bound`, read by nothing).
    pub(crate) own_assoc: HashMap<String, Vec<usize>>,
    /// The workspace's own crates, as code names them (`crucible` for the package `crucible`,
    /// `-` read as `_`): a path through one (`crucible::Buffer::new`) is the workspace's.
    pub(crate) own_crates: rustc_hash::FxHashSet<String>,
}

impl Tables {
    /// `capacity_fns`, `typed_fns` and `defined_fns` from the workspace's signatures.
    pub(crate) fn learn_capacity_fns<'s>(
        &mut self,
        sigs: impl Iterator<Item = &'s crate::index::params::Sig> + Clone,
    ) {
        self.defined_fns = sigs.clone().map(|s| s.name.clone()).collect();
        self.own_assoc = HashMap::default();
        for s in sigs.clone().filter(|s| !s.has_self) {
            if let Some(ty) = &s.self_ty {
                let caps = s
                    .caps
                    .iter()
                    .map(|(i, _)| *i)
                    .chain(s.unused.iter().copied());
                let at = self
                    .own_assoc
                    .entry(format!("{ty}::{}", s.name))
                    .or_default();
                at.extend(caps);
            }
        }
        let caps = sigs.filter(|s| !s.caps.is_empty());
        self.capacity_fns = caps.clone().map(|s| s.name.clone()).collect();
        let mut untyped = rustc_hash::FxHashSet::default();
        let mut typed: HashMap<String, rustc_hash::FxHashSet<String>> = HashMap::default();
        for s in caps {
            match (&s.self_ty, s.has_self) {
                (Some(ty), false) => {
                    typed.entry(s.name.clone()).or_default().insert(ty.clone());
                }
                _ => {
                    untyped.insert(s.name.clone());
                }
            }
        }
        typed.retain(|name, _| !untyped.contains(name));
        self.typed_fns = typed;
    }

    /// Whether a name is a collection of work held at once (`queued_blocks`, `in_flight`,
    /// `inbound_substreams`), not one of bytes or text (`pending_chunk`).
    pub(crate) fn is_work_collection(&self, name: &str) -> bool {
        work_named(
            &crate::index::names::words(name),
            &self.work_words,
            &self.not_work_words,
        )
    }

    /// Whether a name counts units of work one by one: a counter (`count`, `num`) of a unit whose
    /// plural names work held at once (`connection_count`, `num_active_task`), and no word of
    /// bytes or text.
    pub(crate) fn counts_work_units(&self, name: &str) -> bool {
        let words = crate::index::names::words(name);
        words.iter().any(|w| w == "count" || w == "num")
            && words
                .iter()
                .any(|w| self.work_words.contains(&format!("{w}s")))
            && !words.iter().any(|w| self.not_work_words.contains(w))
    }

    /// Whether a flow place is named for a size in bytes or a share (`fixed_workspace_bytes`,
    /// `MAX_FRAME_KIB`, `.transient_bytes()`, `OVERPROVISION_PERCENT`): what is stored there is
    /// no count, so no count flows through it, and no literal stored there is a capacity.
    pub(crate) fn holds_no_count(&self, place: &crate::index::flow::Node) -> bool {
        place.name().is_some_and(|n| self.names_no_count(n))
    }

    /// Whether a name holds a word of a size in bytes, a share or a rate (`RateLimit`,
    /// `reserve_bytes`): see `holds_no_count`.
    pub(crate) fn names_no_count(&self, name: &str) -> bool {
        crate::index::names::words(name)
            .iter()
            .any(|w| self.no_count_words.contains(w))
    }

    /// Whether `field` of a type or a value named `holder` counts nothing: the holder names a
    /// size in bytes, a share or a rate (`no_count_words`) or a machine's shape (`shape_words`:
    /// `CpuTopology`, `cpu_topology`), or it names a store of entries kept for reuse
    /// (`store_words`: `CertCacheConfig`) and the field names only its size (`max_size`,
    /// `max_entries_per_server`: `store_size_words`, and whatever a `per` counts by). A field
    /// that says it counts at once keeps its count (`RateLimits { concurrent_requests }`), and
    /// so does a store's field named for work (`prepare_channel_size`, `max_batch_size`).
    pub(crate) fn holder_counts_nothing(&self, holder: &str, field: &str) -> bool {
        if crate::index::names_at_once(field) {
            return false;
        }
        let words = crate::index::names::words(holder);
        let has = |set: &rustc_hash::FxHashSet<String>| words.iter().any(|w| set.contains(w));
        if has(&self.no_count_words) || has(&self.shape_words) {
            return true;
        }
        has(&self.store_words)
            && crate::index::names::words(field)
                .iter()
                .take_while(|w| *w != "per")
                .all(|w| self.store_size_words.contains(w))
    }

    /// Whether a capacity name counts units of concurrency (`pool_size`, `max_conns`,
    /// `worker_threads`, `concurrency_limit`; the rule's `concurrency_unit_words`): a parameter
    /// so named is one a flowed value sizes. A batch's or a token budget's parameter
    /// (`batch_size`, `max_batch_prefill_tokens`) is also a kernel's shape or a memory
    /// estimate's input, and is a capacity API for literals only.
    pub(crate) fn names_concurrency_unit(&self, name: &str) -> bool {
        crate::index::names::words(name)
            .iter()
            .any(|w| self.concurrency_unit_words.contains(w))
    }

    /// Whether a name is a batch of housekeeping (`PURGE_BATCH_SIZE`,
    /// `drop_prefix_delete_batch_size`): deleted, purged or pruned one request at a time in the
    /// background, a serial page size, not work held at once. A name that counts as a capacity
    /// without its batch (`DELETE_BATCH_ADMISSION_CONCURRENCY`) is no batch's size.
    /// A value a stream gathers into chunks (`api`: `.try_chunks()`, `.ready_chunks()`) is a
    /// batch whatever its name: `DELETE_OBJECTS_MAX_KEYS` chunked for one delete request each.
    /// The chore may be named by the function the batch is declared in instead (`function`:
    /// `fn clean_account() { const BATCH_SIZE: usize = 200; .. }`).
    pub(crate) fn is_chore_batch(
        &self,
        name: &str,
        api: Option<&str>,
        function: Option<&str>,
    ) -> bool {
        let w = crate::index::names::words(name);
        let batch = |x: &String| x == "batch" || x == "batches";
        let chunked = api.is_some_and(|a| a.trim_end_matches("()").ends_with("chunks"));
        let chore = |words: &[String]| words.iter().any(|x| self.chore_words.contains(x));
        let chore_fn = function.is_some_and(|f| chore(&crate::index::names::words(f)));
        if !(chunked || w.iter().any(batch)) || !(chore(&w) || chore_fn) {
            return false;
        }
        let rest: Vec<String> = w.into_iter().filter(|x| !batch(x)).collect();
        !self.capacity_names.matches_words(&rest)
    }

    /// The table's call APIs whose path ends with the segment `last`, in table order.
    pub(crate) fn calls_ending(&self, last: &str) -> impl Iterator<Item = &Api> {
        self.calls_by_last
            .get(last)
            .into_iter()
            .flatten()
            .map(|&i| &self.apis[i])
    }

    /// The table's method APIs named `method`, in table order.
    pub(crate) fn methods_named(&self, method: &str) -> impl Iterator<Item = &Api> {
        self.methods
            .get(method)
            .into_iter()
            .flatten()
            .map(|&i| &self.apis[i])
    }
}

/// Whether a name's words `w` name a collection of work (a word of `work`, none of `not_work`).
pub(crate) fn work_named(
    w: &[String],
    work: &rustc_hash::FxHashSet<String>,
    not_work: &rustc_hash::FxHashSet<String>,
) -> bool {
    w.iter().any(|x| work.contains(x)) && !w.iter().any(|x| not_work.contains(x))
}

const ASSERT_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "prop_assert",
    "prop_assert_eq",
    "prop_assert_ne",
    "assert_matches",
];

/// Words that name a function computing a ceiling from a count (`fleet_ceiling`, `max_in_flight`).
const CEILING_NAMES: &[&str] = &[
    "ceiling",
    "limit",
    "cap",
    "capacity",
    "max_in_flight",
    "max_inflight",
    "concurrency",
    "permits",
    "allowed",
];

impl Tables {
    pub(crate) fn new(cfg: &crate::config::TableConfig) -> Tables {
        let unmeasured = crate::catalog::Rule::UnmeasuredCapacity.meta();
        let per_unit = crate::catalog::Rule::PerUnitCap.meta();
        let pinned = crate::catalog::Rule::PinnedCapacityAssertion.meta();
        let mut names = unmeasured.names.clone();
        names.extend(cfg.capacity_names.iter().cloned());
        let mut exclude = unmeasured.exclude_words.clone();
        exclude.extend(unmeasured.no_count_words.iter().cloned());
        exclude.extend(cfg.exclude_words.iter().cloned());
        let mut counts = per_unit.count_words.clone();
        counts.extend(cfg.count_words.iter().cloned());
        let mut apis = unmeasured.apis.clone();
        apis.extend(cfg.apis.iter().cloned());
        let mut calls_by_last: HashMap<String, Vec<usize>> = HashMap::default();
        let mut methods: HashMap<String, Vec<usize>> = HashMap::default();
        for (i, api) in apis.iter().enumerate() {
            if let Some(last) = api.call.as_deref().and_then(|c| c.rsplit("::").next()) {
                calls_by_last.entry(last.to_string()).or_default().push(i);
            }
            if let Some(m) = &api.method {
                methods.entry(m.clone()).or_default().push(i);
            }
        }
        let ceiling: Vec<String> = CEILING_NAMES.iter().map(|s| s.to_string()).collect();
        Tables {
            capacity_names: NameTable::new(&names, &exclude).with_soft(&unmeasured.duration_words),
            count_words: NameTable::new(&counts, &{
                let mut not_count = exclude.clone();
                not_count.extend(per_unit.not_count_words.iter().cloned());
                not_count
            }),
            subject_words: NameTable::new(&pinned.subject_words, &[]),
            ceiling_names: NameTable::new(&ceiling, &["timeout".into(), "bytes".into()]),
            work_words: unmeasured.work_words.iter().cloned().collect(),
            not_work_words: unmeasured.not_work_words.iter().cloned().collect(),
            no_count_words: unmeasured.no_count_words.iter().cloned().collect(),
            chore_words: unmeasured.chore_words.iter().cloned().collect(),
            shape_words: unmeasured.shape_words.iter().cloned().collect(),
            store_words: unmeasured.store_words.iter().cloned().collect(),
            store_size_words: unmeasured.store_size_words.iter().cloned().collect(),
            concurrency_unit_words: unmeasured.concurrency_unit_words.iter().cloned().collect(),
            launch_names: unmeasured.launch_names.iter().cloned().collect(),
            apis,
            page_sinks: unmeasured
                .page_apis
                .iter()
                .filter_map(|a| a.method.as_ref().map(|m| (format!(".{m}"), a.arg)))
                .collect(),
            calls_by_last,
            methods,
            unit_values: per_unit.unit_values.clone(),
            max_multiplier: pinned.max_multiplier.unwrap_or(8),
            assert_macros: ASSERT_MACROS
                .iter()
                .map(|s| s.to_string())
                .chain(cfg.assert_macros.iter().cloned())
                .collect(),
            capacity_fns: Default::default(),
            defined_fns: Default::default(),
            typed_fns: Default::default(),
            own_assoc: Default::default(),
            own_crates: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::params::Sig;

    fn sig(name: &str, self_ty: Option<&str>, has_self: bool) -> Sig {
        Sig {
            name: name.to_string(),
            self_ty: self_ty.map(str::to_string),
            has_self,
            arity: 1,
            caps: vec![(0, "workers".to_string())],
            pages: Vec::new(),
            unused: Vec::new(),
        }
    }

    #[test]
    fn a_name_only_types_define_is_a_typed_function() {
        let mut t = Tables::new(&Default::default());
        let sigs = [
            sig("new", Some("Limits"), false),
            sig("new", Some("Pool"), false),
            sig("open", Some("Store"), false),
            sig("open", None, false),
            sig("resize", Some("Pool"), true),
        ];
        t.learn_capacity_fns(sigs.iter());
        assert_eq!(t.capacity_fns.len(), 3);
        let types: Vec<&String> = {
            let mut v: Vec<&String> = t.typed_fns["new"].iter().collect();
            v.sort();
            v
        };
        assert_eq!(types, ["Limits", "Pool"]);
        assert!(
            !t.typed_fns.contains_key("open"),
            "a free function of that name too"
        );
        assert!(!t.typed_fns.contains_key("resize"), "a method");
    }
}

//! What makes an item worth parsing (see `syntax::sparse`): an identifier the index can turn into
//! a fact. A superset of what the extractor and the rules match, never a subset:
//! - the last word of a count pattern (a product `healthy * x` needs no literal, a field will
//!   do; a ceiling function needs a count parameter, so counts cover it too);
//! - a capacity name (exactly as the rules match it) or a capacity API's first segment, next to
//!   a value: every fact they yield holds an integer literal or a constant;
//! - a capacity-named constant (a use of it, in production or test code);
//! - the last word of a pin's subject pattern, next to a literal of 2 or more;
//! - the items a manifest or an earlier pass named (`focus`).

use rustc_hash::FxHashSet as HashSet;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use crate::catalog::Api;
use crate::index::names::{NameTable, words};
use crate::index::tables::Tables;
use crate::syntax::sparse::Class;

thread_local! {
    static MEMO: RefCell<(u64, FxHashMap<u64, Class>)> = RefCell::default();
}

/// Each `Triggers` (and each extension of one) gets its own memo generation.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// clap's builder API sets a default by a method whose argument is a string
/// (`.default_value("4096")`): the name is in another string (`Arg::new("batch_size")`).
const BUILDER_DEFAULTS: &[&str] = &["default_value", "default_values"];
/// An environment variable read with a fallback (`env::var("WORKERS")..unwrap_or(8)`): the name
/// is a string, the value a literal. A helper named for the environment (`get_from_env(..)`)
/// is one too: any identifier with the word `env`.
const ENV_READS: &[&str] = &["var", "var_os"];

/// What starts a task or a thread: a loop that calls one each time round runs its bound's
/// number at once (`Extractor::spawn_loop`), so an item that calls one is read whatever its
/// bound is named (a constant, a field).
pub(crate) const SPAWNS: &[&str] = &["spawn", "spawn_blocking", "spawn_local"];

#[derive(Debug, Clone)]
pub(crate) struct Triggers {
    id: u64,
    /// Identifiers added by [`Triggers::with`]: they are classified past the memo, which the
    /// extension keeps (every other identifier's class is what it was).
    later: HashSet<String>,
    capacity_names: NameTable,
    apis: HashSet<String>,
    focus: HashSet<String>,
    count_words: HashSet<String>,
    subject_words: HashSet<String>,
    /// Functions with a capacity parameter (`Tables::capacity_fns`): a call of one is a fact
    /// next to a value.
    calls: HashSet<String>,
    /// Those only a type can call (`Tables::typed_fns`), with the types.
    typed_calls: FxHashMap<String, HashSet<String>>,
    /// Names of collections of work held at once (`Tables::is_work_collection`).
    work_words: HashSet<String>,
    not_work_words: HashSet<String>,
}

impl Triggers {
    /// Triggers for `tables`, plus identifiers named elsewhere (`focus`: manifest items,
    /// constants that reach an API).
    pub(crate) fn new(tables: &Tables, focus: impl IntoIterator<Item = String>) -> Triggers {
        Triggers {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            later: HashSet::default(),
            capacity_names: tables.capacity_names.clone(),
            apis: tables.apis.iter().flat_map(api_idents).collect(),
            focus: focus.into_iter().collect(),
            count_words: tables
                .count_words
                .last_words()
                .map(str::to_string)
                .collect(),
            subject_words: tables
                .subject_words
                .last_words()
                .map(str::to_string)
                .collect(),
            calls: tables.capacity_fns.clone(),
            typed_calls: tables.typed_fns.clone(),
            work_words: tables.work_words.clone(),
            not_work_words: tables.not_work_words.clone(),
        }
    }

    /// Add identifiers to keep.
    pub(crate) fn with(mut self, more: impl IntoIterator<Item = String>) -> Triggers {
        for m in more {
            if self.focus.insert(m.clone()) {
                self.later.insert(m);
            }
        }
        self
    }

    /// Production code keeps what any rule reads; test code only what a test can use or pin
    /// (the rules ignore capacities, APIs and products in test code): a capacity constant, a
    /// named item, a subject word (kept with a literal).
    pub(crate) fn classify(&self, ident: &str) -> Class {
        // `Limits::new`, asked by the sparse cut for a call of a typed function (`typed_call`).
        if let Some((ty, name)) = ident.split_once("::") {
            let fits = ty == "Self" || self.typed_calls.get(name).is_some_and(|t| t.contains(ty));
            return Class {
                prod_with_value: fits,
                ..Class::default()
            };
        }
        let value = crate::index::value::is_const_name(ident);
        if self.focus.contains(ident) {
            return Class {
                prod: true,
                test: true,
                value,
                whole_impl: ident.starts_with(char::is_uppercase) && !value,
                ..Class::default()
            };
        }
        let w = words(ident);
        let name = self.capacity_names.may_match_words(&w);
        Class {
            // A capacity API alone keeps an item: its argument may be any value (`self.queue`),
            // whose sources the flow then looks for (`index::flow`).
            prod: w.iter().any(|x| self.count_words.contains(x))
                || (name && value)
                || self.apis.contains(ident)
                || BUILDER_DEFAULTS.contains(&ident)
                || SPAWNS.contains(&ident),
            prod_with_value: name
                || self.apis.contains(ident)
                || (self.calls.contains(ident) && !self.typed_calls.contains_key(ident))
                || ENV_READS.contains(&ident)
                || w.iter().any(|x| x == "env"),
            value,
            test: name && value,
            subject: w.iter().any(|x| self.subject_words.contains(x)),
            api: self.apis.contains(ident),
            // A type named for a capacity (`QueueSizeConf`): its `Default` sets the capacity in
            // `Self { control: 2, .. }`, which names no capacity itself (`extract::struct_lit`).
            whole_impl: name && !value && ident.starts_with(char::is_uppercase),
            typed_call: self.typed_calls.contains_key(ident),
            len: matches!(ident, "len" | "count" | "size"),
            work: crate::index::tables::work_named(&w, &self.work_words, &self.not_work_words),
        }
    }

    /// Whether an identifier alone keeps an item of production code.
    pub(crate) fn keeps(&self, ident: &str) -> bool {
        self.classify(ident).prod
    }

    /// A memoised classifier for `syntax::sparse`: one memo per thread, kept across files (the
    /// same identifiers recur in every file) and across extensions ([`Triggers::with`]), and
    /// cleared when another `Triggers` asks. It is keyed by `sparse::ident_hash`, as
    /// `Sparse::hidden` is.
    pub(crate) fn classifier(&self) -> impl FnMut(&str) -> Class + '_ {
        move |ident| {
            if !self.later.is_empty() && self.later.contains(ident) {
                return self.classify(ident);
            }
            let key = crate::syntax::sparse::ident_hash(ident);
            MEMO.with_borrow_mut(|(id, memo)| {
                if *id != self.id {
                    *id = self.id;
                    memo.clear();
                }
                *memo.entry(key).or_insert_with(|| self.classify(ident))
            })
        }
    }
}

/// The identifiers a capacity API call names: the first segment of a call pattern (calls match
/// by trailing segments, so `mpsc::channel` needs `mpsc`, and `Semaphore::new` needs
/// `Semaphore`), its last segment unless it is `new` (`channel(64)` after `use
/// tokio::sync::mpsc::channel;`), the method of `.buffer_unordered`.
fn api_idents(api: &Api) -> Vec<String> {
    let path = api
        .call
        .as_deref()
        .or(api.method.as_deref())
        .unwrap_or_default();
    let segs: Vec<&str> = path.split("::").collect();
    let mut out = vec![segs[0].to_string()];
    if let Some(last) = segs.last().filter(|l| segs.len() > 1 && **l != "new") {
        out.push(last.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_the_rule_tables() {
        let t = Triggers::new(&Tables::new(&Default::default()), ["SITE_ITEM".to_string()]);
        let c = |w: &str| t.classify(w);
        assert!(
            c("healthy").prod && c("num_cpus").prod,
            "counts keep an item alone"
        );
        assert!(
            c("PER_BACKEND").prod && c("PER_BACKEND").test,
            "a capacity constant"
        );
        let (name, api) = (c("per_backend"), c("mpsc"));
        assert!(!name.prod && name.prod_with_value && !name.test);
        assert!(
            api.prod,
            "`mpsc::channel` needs `mpsc`, and keeps its item whatever the argument"
        );
        assert!(c("Semaphore").prod_with_value && c("buffer_unordered").prod_with_value);
        assert!(c("max_seq").subject && !c("max_seq").prod);
        assert!(c("SITE_ITEM").prod && c("SITE_ITEM").test, "manifest items");
        assert_eq!(c("frame_len"), Class::default());
        assert!(c("N").value && !c("n").value);
        // The memo outlives an extension, but not for what the extension adds.
        assert!(!t.classifier()("MAX_READS").prod);
        let per_backend = c("PER_BACKEND");
        let later = t.with(["MAX_READS".to_string()]);
        assert!(later.classify("MAX_READS").prod);
        assert!(later.classifier()("MAX_READS").prod);
        assert_eq!(later.classifier()("PER_BACKEND"), per_backend);
    }

    #[test]
    fn a_typed_call_counts_through_its_type() {
        let mut tables = Tables::new(&Default::default());
        tables.capacity_fns.insert("new".to_string());
        tables.typed_fns.insert(
            "new".to_string(),
            ["Limits".to_string()].into_iter().collect(),
        );
        let t = Triggers::new(&tables, []);
        let new = t.classify("new");
        assert!(new.typed_call && !new.prod_with_value, "{new:?}");
        assert!(t.classify("Limits::new").prod_with_value);
        assert!(t.classify("Self::new").prod_with_value);
        assert!(!t.classify("Vec::new").prod_with_value);
    }
}

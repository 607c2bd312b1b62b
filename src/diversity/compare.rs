//! Identical vs varying: for each collection, the fields whose values are the same in every
//! instance and the ones that differ; then, across the whole test suite, the fields of a type
//! that have the same value in every test. Fields that identify an instance (`name`, `id`) never
//! make a report on their own.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::diversity::{CollectionKind, FixtureAnalysis, FixtureCollection, Instance};
use crate::index::names::words;
use crate::syntax::Loc;

/// Whether a report is about one collection or about every instance of a type in the suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Collection,
    Suite,
}

/// One line of `cargo capcheck fixtures`.
#[derive(Debug, Clone, Serialize)]
pub struct FixtureReport {
    pub file: String,
    pub line: usize,
    pub function: String,
    /// The instances' key: `BoxSpec`, `BoxSpec::new`, `Pool::builder`, a data file's array.
    #[serde(rename = "type")]
    pub type_key: String,
    pub instances: usize,
    pub identical: Vec<String>,
    pub varying: Vec<String>,
    /// The value of every identical field.
    pub values: BTreeMap<String, String>,
    pub scope: Scope,
    /// How the collection is written; `null` for suite-wide reports.
    pub kind: Option<CollectionKind>,
    /// The functions the instances are built in.
    pub functions: Vec<String>,
    /// For a single-element collection: the min/max selections over its type.
    pub selected_by: Vec<String>,
    /// The type the instances are of (for explanations).
    #[serde(skip)]
    pub type_name: String,
    /// The first instance.
    #[serde(skip)]
    pub loc: Loc,
    /// Where each identical field is written in the first instance.
    #[serde(skip)]
    pub field_locs: BTreeMap<String, Loc>,
    #[serde(skip)]
    pub instance_locs: Vec<Loc>,
}

impl FixtureReport {
    /// Identical fields that are dimensions of interest (not names or ids).
    pub fn untested(&self) -> Vec<&str> {
        self.identical
            .iter()
            .filter(|f| !is_identity(f))
            .map(String::as_str)
            .collect()
    }
}

/// Fields whose words say they identify an instance.
const IDENTITY: &[&str] = &[
    "name",
    "names",
    "id",
    "ids",
    "uuid",
    "label",
    "key",
    "title",
    "tag",
    "ident",
    "slug",
    "description",
    "desc",
];

pub fn is_identity(field: &str) -> bool {
    words(field).iter().any(|w| IDENTITY.contains(&w.as_str()))
}

/// The outcome of comparing instances field by field.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    /// Present with the same literal value in every instance.
    pub identical: Vec<String>,
    /// At least two different literal values.
    pub varying: Vec<String>,
    pub values: BTreeMap<String, String>,
}

/// Compare instances. A field that is missing from an instance or not a literal in one is
/// neither identical nor varying, unless two instances already disagree on it.
pub fn compare(instances: &[&Instance]) -> Comparison {
    // `_marker: PhantomData` and other `_` fields are unused by convention.
    let fields: BTreeSet<&String> = instances
        .iter()
        .flat_map(|i| i.fields.keys())
        .filter(|f| !f.starts_with('_'))
        .collect();
    let mut out = Comparison::default();
    for f in fields {
        let texts: Vec<Option<&String>> = instances
            .iter()
            .map(|i| i.fields.get(f).and_then(|v| v.text.as_ref()))
            .collect();
        let distinct: BTreeSet<&String> = texts.iter().flatten().copied().collect();
        if distinct.len() >= 2 {
            out.varying.push(f.clone());
        } else if let (Some(v), true) = (distinct.first(), texts.iter().all(Option::is_some)) {
            out.identical.push(f.clone());
            out.values.insert(f.clone(), (*v).clone());
        }
    }
    out
}

fn report(c: &FixtureCollection, cmp: Comparison, selected_by: Vec<String>) -> FixtureReport {
    let first = &c.instances[0];
    FixtureReport {
        file: c.file.clone(),
        line: c.line,
        function: c.function.clone(),
        type_key: c.key().to_string(),
        instances: c.instances.len(),
        field_locs: field_locs(first, &cmp.identical),
        identical: cmp.identical,
        varying: cmp.varying,
        values: cmp.values,
        scope: Scope::Collection,
        kind: Some(c.kind),
        functions: vec![c.function.clone()],
        selected_by,
        type_name: c.type_name().to_string(),
        loc: first.loc.clone(),
        instance_locs: c.instances.iter().map(|i| i.loc.clone()).collect(),
    }
}

fn field_locs(first: &Instance, identical: &[String]) -> BTreeMap<String, Loc> {
    identical
        .iter()
        .filter_map(|f| Some((f.clone(), first.fields.get(f)?.loc.clone())))
        .collect()
}

/// Every report of a workspace, sorted by file and line.
pub fn reports(a: &FixtureAnalysis) -> Vec<FixtureReport> {
    let mut out = Vec::new();
    for c in &a.collections {
        let refs: Vec<&Instance> = c.instances.iter().collect();
        let cmp = compare(&refs);
        if c.instances.len() >= 2 {
            if cmp.identical.iter().any(|f| !is_identity(f)) {
                out.push(report(c, cmp, Vec::new()));
            }
        } else {
            // One element fed to a min/max selection: the smallest and the largest are the same.
            let selectors = a.code.selectors_of(c.type_name());
            if !selectors.is_empty() {
                out.push(report(c, cmp, selectors));
            }
        }
    }
    let covered: BTreeSet<&Loc> = out
        .iter()
        .filter(|r| r.instances >= 2)
        .flat_map(|r| r.instance_locs.iter())
        .collect();
    out.extend(suite(a, &covered));
    out.sort_by(|x, y| (&x.file, x.line, x.scope).cmp(&(&y.file, y.line, y.scope)));
    out
}

/// Across the suite: a key whose instances, built in at least two functions, agree on a field.
/// Instances that are all in reported collections are not reported again.
fn suite(a: &FixtureAnalysis, covered: &BTreeSet<&Loc>) -> Vec<FixtureReport> {
    let mut by_key: BTreeMap<(&str, &str), Vec<&crate::diversity::LooseInstance>> = BTreeMap::new();
    for l in &a.test_instances {
        let key = (l.instance.key.as_str(), l.instance.origin.as_str());
        by_key.entry(key).or_default().push(l);
    }
    let mut out = Vec::new();
    for ((key, _), mut group) in by_key {
        group.sort_by(|x, y| x.instance.loc.cmp(&y.instance.loc));
        let mut functions: Vec<String> = Vec::new();
        let mut sites = BTreeSet::new();
        for l in &group {
            if sites.insert(&l.function_site) {
                functions.push(l.function.clone());
            }
        }
        if sites.len() < 2 || group.iter().all(|l| covered.contains(&l.instance.loc)) {
            continue;
        }
        let refs: Vec<&Instance> = group.iter().map(|l| &l.instance).collect();
        let cmp = compare(&refs);
        if !cmp.identical.iter().any(|f| !is_identity(f)) {
            continue;
        }
        let first = group[0];
        out.push(FixtureReport {
            file: first.instance.loc.file.clone(),
            line: first.instance.loc.line,
            function: first.function.clone(),
            type_key: key.to_string(),
            instances: group.len(),
            field_locs: field_locs(&first.instance, &cmp.identical),
            identical: cmp.identical,
            varying: cmp.varying,
            values: cmp.values,
            scope: Scope::Suite,
            kind: None,
            functions,
            selected_by: Vec::new(),
            type_name: first.instance.type_name.clone(),
            loc: first.instance.loc.clone(),
            instance_locs: group.iter().map(|l| l.instance.loc.clone()).collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diversity::FieldValue;

    fn inst(fields: &[(&str, Option<&str>)]) -> Instance {
        let loc = Loc {
            file: "t.rs".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
        };
        Instance {
            key: "BoxSpec".into(),
            type_name: "BoxSpec".into(),
            loc: loc.clone(),
            fields: fields
                .iter()
                .map(|(k, v)| {
                    let value = FieldValue {
                        text: v.map(String::from),
                        loc: loc.clone(),
                    };
                    (k.to_string(), value)
                })
                .collect(),
            positional: false,
            origin: String::new(),
        }
    }

    fn check(instances: &[Instance], identical: &[&str], varying: &[&str]) {
        let refs: Vec<&Instance> = instances.iter().collect();
        let cmp = compare(&refs);
        assert_eq!(cmp.identical, identical, "identical");
        assert_eq!(cmp.varying, varying, "varying");
    }

    #[test]
    fn two_identical_boxes_differ_only_by_name() {
        let a = inst(&[
            ("name", Some("\"a\"")),
            ("kv", Some("1")),
            ("seqs", Some("160")),
        ]);
        let b = inst(&[
            ("name", Some("\"b\"")),
            ("kv", Some("1")),
            ("seqs", Some("160")),
        ]);
        check(&[a, b], &["kv", "seqs"], &["name"]);
    }

    #[test]
    fn unknown_or_missing_values_are_neither_identical_nor_varying() {
        let a = inst(&[("kv", None), ("seqs", Some("160")), ("p90", Some("1"))]);
        let b = inst(&[("kv", None), ("seqs", Some("160"))]);
        check(&[a, b], &["seqs"], &[]);
        let a = inst(&[("kv", None), ("seqs", Some("1"))]);
        let b = inst(&[("kv", Some("2")), ("seqs", Some("2"))]);
        check(&[a, b], &[], &["seqs"]);
    }

    #[test]
    fn identity_fields_are_recognised_by_their_words() {
        for f in ["name", "box_name", "id", "nodeId", "label", "key"] {
            assert!(is_identity(f), "{f}");
        }
        for f in [
            "max_num_seqs",
            "kv_cache_tokens",
            "keepalive",
            "idle_timeout",
        ] {
            assert!(!is_identity(f), "{f}");
        }
    }
}

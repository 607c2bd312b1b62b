//! Fixture diversity: which collections of test fixture values never vary along some field, and
//! why a surviving mutant survived. `fixtures` reports the first; `mutants` asks `explain` for the
//! second.
//!
//! The pipeline is the index's: each file is parsed once (in parallel) and reduced to plain data
//! (`collect`: fixture collections and instances in test code; `reads`: which fields production
//! functions read and which calls they make), then `compare` judges identical vs varying fields
//! and `explain` matches a mutated function against the fixtures that reach it. `data` adds
//! arrays of objects from JSON and TOML files under `tests/` and `fixtures/`.

pub mod collect;
pub mod compare;
pub mod data;
pub mod explain;
pub mod literal;
pub mod reads;

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::syntax::{FileRole, Loc, parse_file};
use crate::workspace::Workspace;
pub use compare::{FixtureReport, Scope};
pub use explain::{MutatedSite, NO_EXPLANATION, explain};

/// How a collection of fixture values is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CollectionKind {
    /// `vec![a, b]`
    Vec,
    /// `[a, b]`
    Array,
    /// `&[a, b]`
    Slice,
    /// The same constructor, builder or struct literal written several times in one function.
    Repeated,
    /// An array of objects in a JSON or TOML file.
    Data,
}

/// One field's value in one instance: its normalized literal text, or `None` when it is not a
/// literal (a variable, a call on one), which is neither identical nor varying.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldValue {
    pub text: Option<String>,
    pub loc: Loc,
}

/// One fixture value: a struct literal, a constructor or builder call, a data object.
#[derive(Debug, Clone, Serialize)]
pub struct Instance {
    /// What makes instances comparable: `BoxSpec` (struct literal), `BoxSpec::new` (constructor),
    /// `Pool::builder` (builder chain), `box_spec` (fixture helper call).
    pub key: String,
    /// The type the instance is of, when known (`BoxSpec` for all four forms above once resolved).
    pub type_name: String,
    pub loc: Loc,
    /// Field name (or argument position, or builder method) -> value.
    pub fields: BTreeMap<String, FieldValue>,
    /// Whether arguments are positional (`0`, `1`, ...) and may be renamed after parameters.
    pub positional: bool,
    /// The module the type was imported from (`unmanaged` for `use pool::unmanaged::Config`),
    /// so that two types of one name are not compared across the suite; empty when unknown.
    pub origin: String,
}

/// A collection of instances of one key: the unit a report is about.
#[derive(Debug, Clone, Serialize)]
pub struct FixtureCollection {
    pub file: String,
    /// The fixture function's line when the collection is what it returns, else the collection's.
    pub line: usize,
    /// The collection expression.
    pub loc: Loc,
    /// The function it is built in (`two_boxes`); a JSON path for data fixtures.
    pub function: String,
    pub function_site: String,
    pub kind: CollectionKind,
    pub instances: Vec<Instance>,
    /// Built in test code (rather than in a production helper that tests call).
    pub in_test: bool,
}

impl FixtureCollection {
    pub fn key(&self) -> &str {
        self.instances.first().map(|i| i.key.as_str()).unwrap_or("")
    }

    pub fn type_name(&self) -> &str {
        self.instances
            .first()
            .map(|i| i.type_name.as_str())
            .unwrap_or("")
    }
}

/// An instance in test code outside any collection, for the suite-wide pass.
#[derive(Debug, Clone, Serialize)]
pub struct LooseInstance {
    pub function: String,
    pub function_site: String,
    pub instance: Instance,
}

/// Everything the fixture analysis knows about a workspace.
#[derive(Debug, Default)]
pub struct FixtureAnalysis {
    pub collections: Vec<FixtureCollection>,
    /// Every instance in test code (in collections or not), with its function.
    pub test_instances: Vec<LooseInstance>,
    pub code: reads::CodeModel,
    /// What `fixtures` prints: collections and suite-wide findings, sorted by file and line.
    pub reports: Vec<FixtureReport>,
    pub files: usize,
    pub lines: usize,
}

/// Parse every file of the workspace in parallel, collect fixtures and reads, and compare.
pub fn analyse(ws: &Workspace) -> FixtureAnalysis {
    let per_file: Vec<collect::FileFixtures> = ws
        .files
        .par_iter()
        .filter_map(|f| {
            let (text, ast) = parse_file(&f.abs, &f.rel).ok()?;
            let path: Vec<String> = std::iter::once(f.crate_name.clone())
                .chain(f.module.iter().cloned())
                .collect();
            Some(collect::collect(
                &f.rel,
                &text,
                &ast,
                f.role == FileRole::Test,
                &path,
            ))
        })
        .collect();
    let mut analysis = FixtureAnalysis::from_files(per_file);
    analysis.files = ws.files.len();
    let data = data::collect(ws);
    analysis.files += data.files;
    analysis.collections.extend(data.collections);
    analysis.reports = compare::reports(&analysis);
    analysis
}

impl FixtureAnalysis {
    /// Merge per-file results: resolve helper calls to the types they return and positional
    /// arguments to parameter names, and keep production collections only when tests call the
    /// function that builds them.
    pub fn from_files(files: Vec<collect::FileFixtures>) -> FixtureAnalysis {
        let mut out = FixtureAnalysis::default();
        let mut test_calls = std::collections::BTreeSet::new();
        for f in &files {
            out.lines += f.lines;
            test_calls.extend(f.test_calls.iter().cloned());
        }
        let mut code = reads::CodeModel::default();
        let mut collections = Vec::new();
        let mut instances = Vec::new();
        for f in files {
            code.add(f.code);
            collections.extend(f.collections);
            instances.extend(f.test_instances);
        }
        collections.retain(|c: &FixtureCollection| c.in_test || test_calls.contains(&c.function));
        for c in &mut collections {
            for i in &mut c.instances {
                code.resolve_instance(i);
            }
        }
        for l in &mut instances {
            code.resolve_instance(&mut l.instance);
        }
        // Calls to functions that are not constructors of the workspace's own types (std's
        // `Duration::from_secs`, a helper returning `u64`) are not fixture values.
        let known = |i: &Instance| code.is_fixture_type(&i.type_name);
        collections.retain(|c| c.instances.iter().all(known));
        instances.retain(|l| known(&l.instance));
        out.collections = collections;
        out.test_instances = instances;
        out.code = code;
        out
    }
}

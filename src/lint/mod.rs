//! `check`'s rules: each module turns part of the index into findings. Rules never print and never
//! touch the filesystem; their metadata and tables live in `rules/*.toml` (see `registry`).

pub(crate) mod levels;
pub(crate) mod manifest;
pub(crate) mod parse_error;
pub(crate) mod per_unit_cap;
pub(crate) mod pinned;
pub(crate) mod suppress;
pub(crate) mod unmeasured;

use crate::catalog::Entry;
use crate::catalog::Rule;
use crate::finding::{self, Finding};
use crate::index::Index;
use crate::manifest::Manifest;
use crate::manifest::model::Date;
use levels::Levels;

/// The pass that reports a rule: some passes report several rules at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    ParseError,
    Manifest,
    PerUnitCap,
    Pinned,
    /// Reported by `suppress::apply`, after the other passes' findings exist.
    Suppress,
}

/// Every rule's pass; the match makes a new rule a compile error until it has one.
fn pass(rule: Rule) -> Pass {
    match rule {
        Rule::ParseError => Pass::ParseError,
        Rule::UnmeasuredCapacity
        | Rule::CapacityMismatch
        | Rule::CapBelowNaturalBound
        | Rule::CapNeverReached
        | Rule::StaleMeasurement
        | Rule::UnmatchedManifestEntry => Pass::Manifest,
        Rule::PerUnitCap => Pass::PerUnitCap,
        Rule::PinnedCapacityAssertion => Pass::Pinned,
        Rule::InvalidSuppression | Rule::UnusedSuppression => Pass::Suppress,
    }
}

/// Run every rule over the index; findings come back sorted, with configured levels applied and
/// `allow`ed ones dropped.
pub(crate) fn run(
    index: &Index,
    manifest: Option<&Manifest>,
    levels: &Levels,
    today: Date,
) -> Vec<Finding> {
    let mut passes: Vec<Pass> = Vec::new();
    for p in Rule::ALL.iter().map(|r| pass(*r)) {
        if !passes.contains(&p) {
            passes.push(p);
        }
    }
    let mut out = Vec::new();
    for p in passes {
        out.extend(match p {
            Pass::ParseError => parse_error::check(index),
            Pass::Manifest => manifest::check(index, manifest, today),
            Pass::PerUnitCap => per_unit_cap::check(index),
            Pass::Pinned => pinned::check(index),
            Pass::Suppress => Vec::new(),
        });
    }
    for f in &mut out {
        f.severity = levels.level(f.rule, f.severity);
    }
    out.retain(|f| f.severity != crate::catalog::Level::Allow);
    finding::sort(&mut out);
    out
}

/// A finding of `rule` at its default level.
pub(crate) fn finding(
    rule: Rule,
    loc: crate::source::Loc,
    message: String,
    label: String,
) -> Finding {
    Finding {
        rule,
        severity: rule.meta().level,
        loc,
        item: None,
        value: None,
        message,
        label,
        related: Vec::new(),
        path: Vec::new(),
        help: None,
    }
}

//! `check`'s rules: each module turns part of the index into findings. Rules never print and never
//! touch the filesystem; their metadata and tables live in `rules/*.toml` (see `registry`).

pub mod levels;
pub mod manifest;
pub mod parse_error;
pub mod per_unit_cap;
pub mod pinned;
pub mod registry;
pub mod suppress;
pub mod unmeasured;

use crate::finding::{self, Finding};
use crate::index::Index;
use crate::manifest::Manifest;
use crate::manifest::model::Date;
use levels::Levels;

/// Run every rule over the index; findings come back sorted, with configured levels applied and
/// `allow`ed ones dropped.
pub fn run(
    index: &Index,
    manifest: Option<&Manifest>,
    levels: &Levels,
    today: Date,
) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(parse_error::check(index));
    out.extend(manifest::check(index, manifest, today));
    out.extend(per_unit_cap::check(index));
    out.extend(pinned::check(index));
    for f in &mut out {
        f.severity = levels.level(&f.rule, f.severity);
    }
    out.retain(|f| f.severity != registry::Level::Allow);
    finding::sort(&mut out);
    out
}

/// A finding of `rule` at its default level.
pub fn finding(
    rule: crate::catalog::Rule,
    loc: crate::syntax::Loc,
    message: String,
    label: String,
) -> Finding {
    Finding {
        rule: rule.id().to_string(),
        severity: rule.meta().level,
        loc,
        item: None,
        value: None,
        message,
        label,
        related: Vec::new(),
    }
}

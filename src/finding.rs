//! Findings are data: analyses return them, `report` renders them, `cli` turns them into an exit
//! code.

use serde::Serialize;

use crate::catalog::{Level, Rule};
use crate::source::Loc;

/// A related location: where a constant flows, or the manifest line that measured it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Related {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) note: String,
    /// Where the related span ends (for labels in human output).
    #[serde(skip)]
    pub(crate) end: (usize, usize),
}

impl Related {
    pub(crate) fn new(loc: &Loc, note: impl Into<String>) -> Related {
        Related {
            file: loc.file.clone(),
            line: loc.line,
            column: loc.column,
            note: note.into(),
            end: (loc.end_line, loc.end_column),
        }
    }
}

/// One finding of `check`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    pub(crate) rule: Rule,
    pub(crate) severity: Level,
    #[serde(flatten)]
    pub(crate) loc: Loc,
    pub(crate) item: Option<String>,
    pub(crate) value: Option<u64>,
    pub(crate) message: String,
    /// A short label for the primary span in human output.
    #[serde(skip)]
    pub(crate) label: String,
    pub(crate) related: Vec<Related>,
    /// The path a capacity's value takes to the API that makes it one (`index::flow`), in
    /// order; empty when a name or an API found it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) path: Vec<Related>,
    /// What to do about it, when the tool knows (`unmeasured-capacity`: the binding a measured
    /// quantity fits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) help: Option<String>,
}

/// Sort findings by file, line, column, then rule id and message: two runs give the same order.
pub(crate) fn sort(findings: &mut [Finding]) {
    findings
        .sort_by(|a, b| (&a.loc, a.rule.id(), &a.message).cmp(&(&b.loc, b.rule.id(), &b.message)));
}

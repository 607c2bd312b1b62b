//! Findings are data: analyses return them, `report` renders them, `cli` turns them into an exit
//! code.

use serde::Serialize;

use crate::catalog::Level;
use crate::source::Loc;

/// A related location: where a constant flows, or the manifest line that measured it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Related {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub note: String,
    /// Where the related span ends (for labels in human output).
    #[serde(skip)]
    pub end: (usize, usize),
}

impl Related {
    pub fn new(loc: &Loc, note: impl Into<String>) -> Related {
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
pub struct Finding {
    pub rule: String,
    pub severity: Level,
    #[serde(flatten)]
    pub loc: Loc,
    pub item: Option<String>,
    pub value: Option<u64>,
    pub message: String,
    /// A short label for the primary span in human output.
    #[serde(skip)]
    pub label: String,
    pub related: Vec<Related>,
}

/// Sort findings by file, line, column, then rule: two runs give the same order.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| (&a.loc, &a.rule, &a.message).cmp(&(&b.loc, &b.rule, &b.message)));
}

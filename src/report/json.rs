//! `--format json`: one object, stable field order, findings sorted.

use serde::Serialize;

use crate::check::Summary;
use crate::finding::Finding;

#[derive(Serialize)]
struct CheckReport<'a> {
    version: u32,
    findings: &'a [Finding],
    summary: &'a Summary,
}

/// The JSON document for a `check` run.
pub(crate) fn check(findings: &[Finding], summary: &Summary) -> String {
    let report = CheckReport {
        version: 1,
        findings,
        summary,
    };
    serde_json::to_string_pretty(&report).expect("findings serialise") + "\n"
}

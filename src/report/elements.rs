//! The mutation-testing-elements report, schema version 2: the format Stryker, mull and
//! cargo-gamma share, so their HTML viewer and dashboards read capcheck runs too.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::mutate::outcome::{MutantResult, Outcome};
use crate::mutate::select::Skipped;

fn status(o: Outcome) -> &'static str {
    match o {
        Outcome::Killed => "Killed",
        Outcome::Survived => "Survived",
        // The schema has no memory status; both are stopped by a limit and count as detected.
        Outcome::Timeout | Outcome::Oom => "Timeout",
        Outcome::Unviable => "CompileError",
        Outcome::Uncovered => "NoCoverage",
    }
}

/// One mutant's entry: what it changes, where, and its status.
fn mutant(m: &crate::operators::mutant::Mutant, status: &str, reason: String) -> Value {
    json!({
        "id": m.id,
        "mutatorName": m.operator,
        "description": m.description,
        "replacement": m.replacement,
        "location": {
            "start": {"line": m.line, "column": m.column},
            "end": {"line": m.end_line, "column": m.end_column},
        },
        "status": status,
        "statusReason": reason,
    })
}

/// The report; sources are read from `root` (a file that cannot be read embeds as empty).
/// Skipped mutants are `Ignored`, with what skipped them and why as the status reason.
pub(crate) fn report(results: &[MutantResult], skipped: &[Skipped], root: &Path) -> String {
    let mut texts = crate::source::Texts::new(root);
    let mut files: BTreeMap<&str, Vec<Value>> = BTreeMap::new();
    for k in skipped {
        let reason = match &k.reason {
            Some(r) => format!("skipped by {}: {r}", k.skipped_by),
            None => format!("skipped by {}", k.skipped_by),
        };
        let entry = mutant(&k.mutant, "Ignored", reason);
        files.entry(k.mutant.file.as_str()).or_default().push(entry);
    }
    for r in results {
        let reason = match r.outcome {
            Outcome::Killed if !r.killed_by.is_empty() => {
                format!("killed by {}", r.killed_by.join(", "))
            }
            Outcome::Survived => format!("{} tests ran and passed", r.tests_run),
            o => o.as_str().to_string(),
        };
        let mut entry = mutant(&r.mutant, status(r.outcome), reason);
        entry["killedBy"] = json!(r.killed_by);
        entry["duration"] = json!(r.duration_ms);
        entry["testsCompleted"] = json!(r.tests_run);
        files.entry(r.mutant.file.as_str()).or_default().push(entry);
    }
    let files: serde_json::Map<String, Value> = files
        .into_iter()
        .map(|(file, mutants)| {
            let source = texts.get(file).to_string();
            (
                file.to_string(),
                json!({"language": "rust", "source": source, "mutants": mutants}),
            )
        })
        .collect();
    let doc = json!({
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": "2",
        "thresholds": {"high": 80, "low": 60},
        "projectRoot": root.display().to_string(),
        "files": files,
        "framework": {"name": "cargo-capcheck", "version": env!("CARGO_PKG_VERSION")},
    });
    serde_json::to_string_pretty(&doc).expect("json serialises") + "\n"
}

//! SARIF 2.1.0 of surviving mutants (and guards that were not killed), for code-scanning UIs.
//! Each operator is a SARIF rule whose help is its `rules/<id>.toml` documentation.

use serde_json::{Value, json};

use crate::lint::registry;
use crate::mutate::outcome::{MutantResult, Outcome};

pub fn survivors(results: &[MutantResult]) -> String {
    let flagged: Vec<&MutantResult> = results
        .iter()
        .filter(|r| r.outcome == Outcome::Survived || r.failed_guard())
        .collect();
    let mut ops: Vec<&str> = flagged.iter().map(|r| r.mutant.operator.as_str()).collect();
    ops.sort();
    ops.dedup();
    let rules: Vec<Value> = ops
        .iter()
        .map(|id| match registry::get(id) {
            Some(r) => json!({
                "id": r.id,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.what_it_does.trim()},
                "help": {"text": r.docs(), "markdown": r.docs()},
                "defaultConfiguration": {"level": r.level.as_str()},
            }),
            None => json!({"id": id}),
        })
        .collect();
    let found: Vec<Value> = flagged
        .iter()
        .map(|r| {
            let m = &r.mutant;
            let what = if m.replacement.is_empty() {
                "removing it".to_string()
            } else {
                format!("`{}`", m.replacement)
            };
            json!({
                "ruleId": m.operator,
                "level": "error",
                "message": {"text": format!(
                    "mutant {} in `{}`: {}; replacing `{}` with {what} passes all {} tests",
                    r.outcome.as_str(), m.function, m.description, m.original, r.tests_run
                )},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": m.file, "uriBaseId": "%SRCROOT%"},
                    "region": {
                        "startLine": m.line, "startColumn": m.column,
                        "endLine": m.end_line, "endColumn": m.end_column,
                    },
                }}],
                "partialFingerprints": {"capcheckMutantId/v1": m.id},
                "properties": {"replacement": m.replacement, "ran": r.ran},
            })
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cargo-capcheck",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": found,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("json serialises") + "\n"
}

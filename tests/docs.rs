//! docs/rules.md is generated from `rules/*.toml` through the real binary (`rules` and
//! `explain`), never written by hand: this test fails when it is out of date, and
//! `UPDATE_DOCS=1 cargo test docs` rewrites it.

use crate::support::*;

fn generated() -> String {
    let out = capcheck(&["rules", "--format", "json"]);
    let rules: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut doc = String::from(
        "# Rules, reports and mutation operators\n\n\
         Generated from `rules/*.toml` by `tests/docs.rs` (`UPDATE_DOCS=1 cargo test docs`); \
         `cargo capcheck explain ID` prints the same text.\n",
    );
    for kind in ["rule", "report", "operator"] {
        for r in rules.iter().filter(|r| r["kind"] == kind) {
            let id = r["id"].as_str().unwrap();
            let text = stdout(&capcheck(&["explain", id]));
            // One heading level down (each entry sits under the page title), outside code blocks.
            let mut fenced = false;
            let mut shifted = String::new();
            for l in text.lines() {
                fenced ^= l.starts_with("```");
                if !fenced && l.starts_with('#') {
                    shifted.push('#');
                }
                shifted.push_str(l);
                shifted.push('\n');
            }
            doc.push('\n');
            doc.push_str(&shifted);
        }
    }
    doc
}

#[test]
fn docs_rules_md_is_generated_from_the_rule_files() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
    let want = generated();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/rules.md is out of date: run `UPDATE_DOCS=1 cargo test docs`"
    );
}

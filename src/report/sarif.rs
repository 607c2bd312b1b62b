//! `--format sarif`: SARIF 2.1.0 for `check`, `fixtures` and `mutants` (and the mutants output
//! folder's `survivors.sarif`), as GitHub code scanning reads it.
//!
//! - The driver is `cargo-capcheck` with its version and `informationUri`; its rules are the
//!   catalog's entries for the job (rules, report kinds or operators), with the docs of
//!   `rules/<id>.toml` as descriptions and help, the default level and tags.
//! - Every location is `uriBaseId: "%SRCROOT%"` plus a path relative to the repository root: the
//!   nearest folder at or above the workspace holding `.git` (a workspace in a subfolder gets
//!   `sub/folder/src/lib.rs`), else the workspace root; `originalUriBaseIds` says where that is.
//!   Regions are 1-based, in Unicode code points (`columnKind`), with end positions.
//! - `partialFingerprints` carry the finding's identity (`report::fingerprint`), which no line
//!   shift changes, as `capcheck/v1` and as `primaryLocationLineHash` (so GitHub neither
//!   computes a line-based one nor merges two findings on one line).
//! - `automationDetails.id` is `cargo-capcheck/<job>/` plus the workspace's folder when it is not
//!   the repository root and `shard-K-of-N` for a shard, so uploads of different jobs,
//!   workspaces and shards do not replace each other.
//! - Levels: a finding's own level (`error`, `warning`, `note`). A mutant survivor is a
//!   `warning`: it shows that no test notices a change, not that the code is wrong, and it may
//!   be an equivalent mutant; a guard mutant (`expect = "killed"`) that was not killed is an
//!   `error`, because the user declared that its survival fails the run. Fixture reports are
//!   `note`s: information, as the `fixtures` exit code says.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::catalog::{Entry, Level};
use crate::finding::Finding;
use crate::fixture_model::FixtureReport;
use crate::mutate::outcome::MutantsReport;
use crate::report::fingerprint::Fingerprints;
use crate::source::Texts;
use crate::source::lines::Lines;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The tool's home: Cargo.toml's `package.repository` (tests/ci.rs checks that the release, the
/// action and the docs name the same one).
const INFORMATION_URI: &str = env!("CARGO_PKG_REPOSITORY");
const BASE: &str = "%SRCROOT%";

/// Where result paths start: the repository holding the workspace, and the workspace's folder
/// inside it (`""` or `sub/folder/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Base {
    pub(crate) root: PathBuf,
    pub(crate) prefix: String,
}

impl Base {
    /// The nearest folder at or above `workspace` with a `.git` (a folder, or a worktree's
    /// file), else the workspace itself.
    pub(crate) fn of(workspace: &Path) -> Base {
        let ws = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_path_buf());
        let repo = ws.ancestors().find(|d| d.join(".git").exists());
        match repo.and_then(|r| Some((r, crate::workspace::rel_within(r, &ws)?))) {
            Some((r, rel)) => Base {
                root: r.to_path_buf(),
                prefix: if rel.is_empty() {
                    rel
                } else {
                    format!("{rel}/")
                },
            },
            None => Base {
                root: ws,
                prefix: String::new(),
            },
        }
    }

    /// `file` (workspace-relative) relative to the repository root.
    pub(crate) fn uri(&self, file: &str) -> String {
        format!("{}{file}", self.prefix)
    }

    fn root_uri(&self) -> String {
        let mut s = String::from("file://");
        for c in self.root.to_string_lossy().replace('\\', "/").chars() {
            match c {
                ' ' => s.push_str("%20"),
                '%' => s.push_str("%25"),
                '#' => s.push_str("%23"),
                '?' => s.push_str("%3F"),
                c => s.push(c),
            }
        }
        if !s.ends_with('/') {
            s.push('/');
        }
        s
    }
}

fn level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note => "note",
        Level::Allow => "none",
    }
}

/// A SARIF rule from a catalog entry (`name` is the catalog's variant name).
fn rule(entry: impl Entry) -> Value {
    let r = entry.meta();
    let name = format!("{entry:?}");
    json!({
        "id": r.id,
        "name": name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.what_it_does.trim()},
        "help": {"text": r.docs(), "markdown": r.docs()},
        "defaultConfiguration": {"level": level(r.level)},
        "properties": {"tags": ["capcheck", r.kind.as_str()]},
    })
}

/// The rules of a catalog list, as SARIF rules and their ids (for `ruleIndex`).
fn rules<T: Entry>() -> (Vec<Value>, Vec<&'static str>) {
    let ids: Vec<&str> = T::ALL.iter().map(|x| x.id()).collect();
    let rules = T::ALL.iter().map(|x| rule(*x)).collect();
    (rules, ids)
}

/// One result. `region` is 1-based `(line, column, end line, end column)`.
struct Item<'a> {
    rule: &'a str,
    level: &'static str,
    message: String,
    file: &'a str,
    region: (usize, usize, usize, usize),
    fingerprint: String,
    properties: Value,
    /// `(file, line, column, note)` of related places.
    related: Vec<(&'a str, usize, usize, &'a str)>,
}

fn result(base: &Base, ids: &[&str], it: Item) -> Value {
    let (line, column, end_line, end_column) = it.region;
    let (end_line, end_column) = if (end_line, end_column) < (line, column) {
        (line, column)
    } else {
        (end_line, end_column)
    };
    let mut r = json!({
        "ruleId": it.rule,
        "level": it.level,
        "message": {"text": it.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": base.uri(it.file), "uriBaseId": BASE},
            "region": {
                "startLine": line.max(1), "startColumn": column.max(1),
                "endLine": end_line.max(1), "endColumn": end_column.max(1),
            },
        }}],
        "partialFingerprints": {
            "capcheck/v1": it.fingerprint,
            "primaryLocationLineHash": it.fingerprint,
        },
        "properties": it.properties,
    });
    if let Some(i) = ids.iter().position(|x| *x == it.rule) {
        r["ruleIndex"] = json!(i);
    }
    if !it.related.is_empty() {
        let related: Vec<Value> = it
            .related
            .iter()
            .enumerate()
            .map(|(i, (file, line, column, note))| {
                json!({
                    "id": i,
                    "message": {"text": note},
                    "physicalLocation": {
                        "artifactLocation": {"uri": base.uri(file), "uriBaseId": BASE},
                        "region": {"startLine": (*line).max(1), "startColumn": (*column).max(1)},
                    },
                })
            })
            .collect();
        r["relatedLocations"] = json!(related);
    }
    r
}

fn document(
    job: &str,
    shard: Option<&str>,
    base: &Base,
    rules: Vec<Value>,
    results: Vec<Value>,
) -> String {
    let mut id = format!("cargo-capcheck/{job}/");
    if !base.prefix.is_empty() {
        id.push_str(&base.prefix);
    }
    if let Some(s) = shard {
        id.push_str(&format!("shard-{}/", s.replace('/', "-of-")));
    }
    let doc = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "cargo-capcheck",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules,
            }},
            "automationDetails": {"id": id},
            "originalUriBaseIds": {BASE: {"uri": base.root_uri()}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&doc).expect("json serialises") + "\n"
}

/// The slice of `text` between two 1-based (line, char column) positions, each line's piece
/// ended by a newline (`lines` indexes `text`). Each piece is cut by the line index, never by
/// walking its line: thousands of findings on one long line stay linear.
fn span_text(text: &str, lines: &Lines, from: (usize, usize), to: (usize, usize)) -> String {
    let mut out = String::new();
    for n in from.0.max(1)..=to.0 {
        let Some(line_start) = lines.offset(n, 1) else {
            break;
        };
        let start = if n == from.0 {
            lines.offset(n, from.1).unwrap_or(line_start)
        } else {
            line_start
        };
        let end = lines
            .offset(n, if n == to.0 { to.1 } else { usize::MAX })
            .unwrap_or(text.len());
        let piece = text.get(start..end.max(start)).unwrap_or_default();
        let piece = piece.strip_suffix('\n').unwrap_or(piece);
        out.push_str(piece.strip_suffix('\r').unwrap_or(piece));
        out.push('\n');
    }
    out
}

/// SARIF for a `check` run; `texts` gives the findings' expression texts for their identity.
pub(crate) fn check(findings: &[Finding], workspace: &Path, texts: &mut Texts) -> String {
    let base = Base::of(workspace);
    let (rules, ids) = rules::<crate::catalog::Rule>();
    let mut prints = Fingerprints::default();
    // Per file, once: its line index, and the enclosing items of its findings that name none
    // (one lexer pass for all of them).
    for f in findings {
        texts.get(&f.loc.file);
    }
    let texts: &Texts = texts;
    let source = |file: &str| texts.cached(file).unwrap_or_default();
    let mut index: HashMap<&str, Lines> = HashMap::new();
    let mut wanted: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (i, f) in findings.iter().enumerate() {
        let l = &f.loc;
        let lines = index
            .entry(l.file.as_str())
            .or_insert_with(|| Lines::new(source(&l.file)));
        if f.item.is_none() {
            let offset = lines.offset(l.line, l.column).unwrap_or(0);
            wanted.entry(l.file.as_str()).or_default().push((i, offset));
        }
    }
    let mut items: HashMap<usize, String> = HashMap::new();
    for (file, at) in wanted {
        let offsets: Vec<usize> = at.iter().map(|&(_, o)| o).collect();
        let names = crate::report::fingerprint::enclosing_items(file, source(file), &offsets);
        items.extend(at.iter().map(|&(i, _)| i).zip(names));
    }
    let results = findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let l = &f.loc;
            let text = span_text(
                source(&l.file),
                &index[l.file.as_str()],
                (l.line, l.column),
                (l.end_line, l.end_column),
            );
            let item = match &f.item {
                Some(item) => item.clone(),
                None => items.remove(&i).unwrap_or_default(),
            };
            let fingerprint = prints.next(f.rule.id(), &l.file, &item, &text);
            let mut message = f.message.clone();
            for r in &f.related {
                message.push_str(&format!(
                    "\n{}:{}:{}: {}",
                    base.uri(&r.file),
                    r.line,
                    r.column,
                    r.note
                ));
            }
            let mut r = result(
                &base,
                &ids,
                Item {
                    rule: f.rule.id(),
                    level: level(f.severity),
                    message,
                    file: &l.file,
                    region: (l.line, l.column, l.end_line, l.end_column),
                    fingerprint,
                    properties: json!({"item": f.item, "value": f.value}),
                    related: f
                        .related
                        .iter()
                        .map(|r| (r.file.as_str(), r.line, r.column, r.note.as_str()))
                        .collect(),
                },
            );
            if !f.path.is_empty() {
                r["codeFlows"] = code_flow(&base, f);
            }
            r
        })
        .collect();
    document("check", None, &base, rules, results)
}

/// A finding's path as a SARIF code flow: the literal, then each place its value goes.
fn code_flow(base: &Base, f: &Finding) -> Value {
    let step = |file: &str, line: usize, column: usize, text: &str| {
        json!({"location": {
            "physicalLocation": {
                "artifactLocation": {"uri": base.uri(file), "uriBaseId": BASE},
                "region": {"startLine": line, "startColumn": column},
            },
            "message": {"text": text},
        }})
    };
    let first = step(&f.loc.file, f.loc.line, f.loc.column, &f.label);
    let rest = f
        .path
        .iter()
        .map(|p| step(&p.file, p.line, p.column, &p.note));
    json!([{"threadFlows": [{"locations": std::iter::once(first).chain(rest).collect::<Vec<_>>()}]}])
}

/// SARIF for a `fixtures` run: one `note` per report.
pub(crate) fn fixtures(reports: &[FixtureReport], workspace: &Path) -> String {
    let base = Base::of(workspace);
    let (rules, ids) = rules::<crate::catalog::Report>();
    let rule_id = crate::catalog::Report::IdenticalFixture.id();
    let mut prints = Fingerprints::default();
    let results = reports
        .iter()
        .map(|r| {
            let item = format!("{}\0{}", r.function, r.type_key);
            let fingerprint = prints.next(rule_id, &r.file, &item, &r.identical.join(","));
            let (line, column) = if r.loc.line == r.line {
                (r.loc.line, r.loc.column)
            } else {
                (r.line, 1)
            };
            let end = if r.loc.line == r.line { (r.loc.end_line, r.loc.end_column) } else { (line, column) };
            result(
                &base,
                &ids,
                Item {
                    rule: rule_id,
                    level: "note",
                    message: crate::report::fixtures::one_line(r),
                    file: &r.file,
                    region: (line, column, end.0, end.1),
                    fingerprint,
                    properties: json!({"function": r.function, "type": r.type_key, "identical": r.identical}),
                    related: Vec::new(),
                },
            )
        })
        .collect();
    document("fixtures", None, &base, rules, results)
}

/// SARIF for a mutants report (`--format sarif` and the output folder's `survivors.sarif`).
pub(crate) fn mutants(report: &MutantsReport, workspace: &Path) -> String {
    let base = Base::of(workspace);
    let (rules, ids) = rules::<crate::catalog::Operator>();
    // One result per span: the mutants of one literal are one finding, fingerprinted by the
    // first (canonical order), so an alert stays while any of them survives.
    let results = crate::mutate::advice::groups(report)
        .into_iter()
        .map(|g| {
            let (r, m) = (g[0], &g[0].mutant);
            let mutant_ids: Vec<&str> = g.iter().map(|r| r.mutant.id.as_str()).collect();
            let replacements: Vec<&str> = g.iter().map(|r| r.mutant.replacement.as_str()).collect();
            result(
                &base,
                &ids,
                Item {
                    rule: m.operator.id(),
                    level: level(crate::report::mutants::flagged_level(r)),
                    message: crate::report::mutants::survivor_message(&g),
                    file: &m.file,
                    region: (m.line, m.column, m.end_line, m.end_column),
                    fingerprint: Fingerprints::mutant(&m.id),
                    properties: json!({
                        "mutantId": m.id, "mutantIds": mutant_ids, "outcome": r.outcome.as_str(),
                        "guard": m.guard, "replacement": m.replacement,
                        "replacements": replacements, "testsRun": r.tests_run, "ran": r.ran,
                        "nextStep": r.next_step,
                    }),
                    related: Vec::new(),
                },
            )
        })
        .collect();
    document(
        "mutants",
        report.summary.shard.map(|s| s.to_string()).as_deref(),
        &base,
        rules,
        results,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_in_a_subfolder_gets_repository_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("tools/ws")).unwrap();
        let base = Base::of(&dir.path().join("tools/ws"));
        assert_eq!(base.uri("src/lib.rs"), "tools/ws/src/lib.rs");
        assert_eq!(Base::of(dir.path()).uri("src/lib.rs"), "src/lib.rs");
    }

    #[test]
    fn each_shard_uploads_under_its_own_category() {
        let summary = crate::mutate::outcome::Summary {
            shard: Some(crate::mutate::select::Shard { k: 1, n: 4 }),
            ..Default::default()
        };
        let report = MutantsReport::new(Vec::new(), summary);
        let doc: Value =
            serde_json::from_str(&mutants(&report, Path::new("/nonexistent/ws"))).unwrap();
        assert_eq!(
            doc["runs"][0]["automationDetails"]["id"],
            "cargo-capcheck/mutants/shard-1-of-4/"
        );
    }

    #[test]
    fn span_text_takes_the_columns_of_the_region() {
        let text = "let a = 1;\nfn f() { x * 8 }\n";
        let lines = Lines::new(text);
        assert_eq!(span_text(text, &lines, (2, 10), (2, 15)), "x * 8\n");
        assert_eq!(
            span_text(text, &lines, (1, 5), (2, 3)),
            "a = 1;\nfn\n",
            "from its column on the first line, to its column on the last"
        );
        assert_eq!(span_text(text, &lines, (9, 1), (9, 2)), "", "past the end");
    }
}

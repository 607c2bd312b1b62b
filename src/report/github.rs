//! `--format github`: GitHub Actions workflow commands, one annotation per finding, survivor or
//! fixture report, so a CI run marks the lines in the pull request
//! (`::error file=src/lib.rs,line=5,col=32,title=unmeasured-capacity::...`). Paths are made
//! relative to `$GITHUB_WORKSPACE` (the checkout) when the workspace sits inside it.

use std::path::Path;

use crate::finding::Finding;
use crate::fixtures::FixtureReport;
use crate::lint::registry::Level;
use crate::mutate::outcome::Outcome;
use crate::report::mutants::MutantsReport;

/// Escape a message (`%`, CR, LF) the way the runner expects.
fn message(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value: a message's escapes plus `:` and `,`.
fn property(s: &str) -> String {
    message(s).replace(':', "%3A").replace(',', "%2C")
}

/// `file` (workspace-relative) as the checkout sees it.
fn repo_path(root: &Path, file: &str) -> String {
    std::env::var_os("GITHUB_WORKSPACE")
        .and_then(|checkout| crate::workspace::rel_within(Path::new(&checkout), &root.join(file)))
        .unwrap_or_else(|| file.to_string())
}

fn annotation(level: &str, file: &str, line: usize, col: usize, title: &str, text: &str) -> String {
    format!(
        "::{level} file={},line={line},col={col},title={}::{}\n",
        property(file),
        property(title),
        message(text)
    )
}

/// One annotation per `check` finding: errors as `error`, warnings as `warning`, notes as
/// `notice`.
pub fn check(findings: &[Finding], root: &Path) -> String {
    findings
        .iter()
        .map(|f| {
            let level = match f.severity {
                Level::Error => "error",
                Level::Warning => "warning",
                Level::Note | Level::Allow => "notice",
            };
            let file = repo_path(root, &f.loc.file);
            annotation(level, &file, f.loc.line, f.loc.column, &f.rule, &f.message)
        })
        .collect()
}

/// One `error` per surviving mutant or failed guard, with its explanation.
pub fn mutants(report: &MutantsReport, root: &Path) -> String {
    report
        .mutants
        .iter()
        .filter(|r| r.outcome == Outcome::Survived || r.failed_guard())
        .map(|r| {
            let m = &r.mutant;
            let mut text = format!("{} survived: {}", m.id, m.description);
            if let Some(e) = &r.explanation {
                text.push_str(&format!("\n{e}"));
            }
            annotation(
                "error",
                &repo_path(root, &m.file),
                m.line,
                m.column,
                &m.operator,
                &text,
            )
        })
        .collect()
}

/// One `notice` per fixture report.
pub fn fixtures(reports: &[FixtureReport], root: &Path) -> String {
    reports
        .iter()
        .map(|r| {
            let text = format!(
                "the {} `{}` values of `{}` are identical along {}",
                r.instances,
                r.type_key,
                r.function,
                r.identical.join(", ")
            );
            annotation(
                "notice",
                &repo_path(root, &r.file),
                r.line,
                1,
                "identical-fixture",
                &text,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_the_runner_would_misread() {
        assert_eq!(
            annotation("error", "src/a,b.rs", 3, 4, "r:x", "50% of\nthat"),
            "::error file=src/a%2Cb.rs,line=3,col=4,title=r%3Ax::50%25 of%0Athat\n"
        );
    }
}

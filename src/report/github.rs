//! `--format github`: GitHub Actions workflow commands, one annotation per finding, survivor or
//! fixture report, so a CI run marks the lines in the pull request
//! (`::error file=src/lib.rs,line=5,col=32,title=unmeasured-capacity::...`). Paths are made
//! relative to `$GITHUB_WORKSPACE` (the checkout) when the workspace sits inside it.

use std::path::Path;

use crate::catalog::Level;
use crate::catalog::Report;
use crate::finding::Finding;
use crate::fixture_model::FixtureReport;
use crate::mutate::outcome::MutantsReport;

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

/// One row of a step summary: level, rule, repository path, line and message.
pub(crate) struct Row {
    pub(crate) level: &'static str,
    pub(crate) rule: &'static str,
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) message: String,
}

/// How many findings the step summary lists (GitHub shows 10 error annotations per step).
const TOP: usize = 20;

/// The markdown appended to `$GITHUB_STEP_SUMMARY`: counts per rule and level, then the first
/// findings, errors first, so what the annotation cap hides is still one click away.
pub(crate) fn step_summary(job: &str, rows: &[Row]) -> String {
    let mut s = format!("### cargo capcheck {job}\n\n");
    if rows.is_empty() {
        s.push_str("No findings.\n\n");
        return s;
    }
    let mut counts: std::collections::BTreeMap<(&str, &str), usize> = Default::default();
    for r in rows {
        *counts.entry((r.rule, r.level)).or_default() += 1;
    }
    s.push_str("| rule | level | count |\n|---|---|---:|\n");
    for ((rule, level), n) in &counts {
        s.push_str(&format!("| `{rule}` | {level} | {n} |\n"));
    }
    let rank = |l: &str| match l {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    };
    let mut top: Vec<&Row> = rows.iter().collect();
    top.sort_by_key(|r| rank(r.level));
    s.push_str(&format!(
        "\n{} finding{}{}:\n\n",
        rows.len(),
        crate::diag::plural(rows.len()),
        if rows.len() > TOP {
            format!(", the first {TOP}")
        } else {
            String::new()
        }
    ));
    for r in top.into_iter().take(TOP) {
        let first = r.message.lines().next().unwrap_or_default();
        s.push_str(&format!(
            "- **{}** `{}` {}:{}: {}\n",
            r.level,
            r.rule,
            r.file,
            r.line,
            first.replace('|', "\\|")
        ));
    }
    s.push('\n');
    s
}

fn notice_level(l: Level) -> &'static str {
    match l {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Note | Level::Allow => "notice",
    }
}

/// The step summary rows of `check` findings.
pub(crate) fn check_rows(findings: &[Finding], root: &Path) -> Vec<Row> {
    findings
        .iter()
        .map(|f| Row {
            level: notice_level(f.severity),
            rule: f.rule.id(),
            file: repo_path(root, &f.loc.file),
            line: f.loc.line,
            message: f.message.clone(),
        })
        .collect()
}

/// The step summary rows of a mutants report.
pub(crate) fn mutant_rows(report: &MutantsReport, root: &Path) -> Vec<Row> {
    crate::mutate::advice::groups(report)
        .into_iter()
        .map(|g| Row {
            level: notice_level(crate::report::mutants::flagged_level(g[0])),
            rule: g[0].mutant.operator.id(),
            file: repo_path(root, &g[0].mutant.file),
            line: g[0].mutant.line,
            message: crate::report::mutants::survivor_message(&g),
        })
        .collect()
}

/// The step summary rows of fixture reports.
pub(crate) fn fixture_rows(reports: &[FixtureReport], root: &Path) -> Vec<Row> {
    reports
        .iter()
        .map(|r| Row {
            level: "notice",
            rule: Report::IdenticalFixture.id(),
            file: repo_path(root, &r.file),
            line: r.line,
            message: crate::report::fixtures::one_line(r),
        })
        .collect()
}

/// One annotation per `check` finding: errors as `error`, warnings as `warning`, notes as
/// `notice`.
pub(crate) fn check(findings: &[Finding], root: &Path) -> String {
    findings
        .iter()
        .map(|f| {
            let level = notice_level(f.severity);
            let file = repo_path(root, &f.loc.file);
            annotation(
                level,
                &file,
                f.loc.line,
                f.loc.column,
                f.rule.id(),
                &f.message,
            )
        })
        .collect()
}

/// One annotation per span with surviving mutants (a `warning`) or failed guard (an `error`),
/// with its explanation and next step.
pub(crate) fn mutants(report: &MutantsReport, root: &Path) -> String {
    crate::mutate::advice::groups(report)
        .into_iter()
        .map(|g| {
            let m = &g[0].mutant;
            annotation(
                notice_level(crate::report::mutants::flagged_level(g[0])),
                &repo_path(root, &m.file),
                m.line,
                m.column,
                m.operator.id(),
                &crate::report::mutants::survivor_message(&g),
            )
        })
        .collect()
}

/// One `notice` per fixture report.
pub(crate) fn fixtures(reports: &[FixtureReport], root: &Path) -> String {
    reports
        .iter()
        .map(|r| {
            let text = crate::report::fixtures::one_line(r);
            annotation(
                "notice",
                &repo_path(root, &r.file),
                r.line,
                1,
                Report::IdenticalFixture.id(),
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

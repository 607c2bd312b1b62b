//! Human output via ariadne: the literal, where it flows, and the note. Colour only when asked or
//! on a terminal; the layout is ariadne's and outside our compatibility promise (tests snapshot
//! JSON).

use std::path::Path;

use ariadne::{Color, Label, Report, ReportKind};

use crate::finding::Finding;
use crate::lint::registry::Level;
use crate::report::{Summary, plural};
use crate::source::Texts;
use crate::syntax::Loc;

/// Char offsets of a location's start and end in its file's text.
pub(crate) fn char_range(texts: &mut Texts, loc: &Loc) -> std::ops::Range<usize> {
    let lines = crate::syntax::lines::Lines::new(texts.get(&loc.file));
    let start = lines.char_index(loc.line, loc.column);
    let end = lines
        .char_index(loc.end_line, loc.end_column)
        .max(start + 1);
    start..end
}

fn kind(level: Level) -> ReportKind<'static> {
    match level {
        Level::Error => ReportKind::Error,
        Level::Warning => ReportKind::Warning,
        Level::Note | Level::Allow => ReportKind::Advice,
    }
}

/// Render findings and the summary line (none with `-q`; with the counts per rule, suppressions
/// and time with `-v`).
pub fn check(
    findings: &[Finding],
    summary: &Summary,
    root: &Path,
    style: crate::report::Style,
    verbosity: crate::report::Verbosity,
) -> String {
    let mut texts = Texts::new(root);
    let mut out = Vec::new();
    for f in findings {
        render(f, &mut texts, style, &mut out);
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Level::Error)
        .count();
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Level::Warning)
        .count();
    let mut s = String::from_utf8_lossy(&out).into_owned();
    if verbosity == crate::report::Verbosity::Quiet {
        return s;
    }
    s.push_str(&format!(
        "capcheck: {} finding{} ({errors} error{}, {warnings} warning{}) in {} files, {} lines",
        findings.len(),
        plural(findings.len()),
        plural(errors),
        plural(warnings),
        summary.files,
        summary.lines,
    ));
    if summary.suppressed > 0 {
        s.push_str(&format!("; {} allowed by comments", summary.suppressed));
    }
    s.push('\n');
    if verbosity == crate::report::Verbosity::Verbose {
        for (rule, n) in &summary.findings_by_rule {
            s.push_str(&format!("  {rule}: {n}\n"));
        }
        s.push_str(&format!("  in {} ms\n", summary.elapsed_ms));
    }
    s
}

fn render(f: &Finding, texts: &mut Texts, style: crate::report::Style, out: &mut Vec<u8>) {
    let range = char_range(texts, &f.loc);
    let mut report = Report::build(kind(f.severity), (f.loc.file.clone(), range.clone()))
        .with_config(style.ariadne())
        .with_code(&f.rule)
        .with_message(&f.message)
        .with_label(
            Label::new((f.loc.file.clone(), range))
                .with_message(&f.label)
                .with_color(Color::Red),
        );
    for r in &f.related {
        let loc = Loc {
            file: r.file.clone(),
            line: r.line,
            column: r.column,
            end_line: r.end.0,
            end_column: r.end.1,
        };
        let range = char_range(texts, &loc);
        report = report.with_label(
            Label::new((r.file.clone(), range))
                .with_message(&r.note)
                .with_color(Color::Blue),
        );
    }
    report = report.with_note(format!("`cargo capcheck explain {}` says why", f.rule));
    let files: Vec<(String, String)> = std::iter::once(f.loc.file.clone())
        .chain(f.related.iter().map(|r| r.file.clone()))
        .map(|file| {
            let text = texts.get(&file).to_string();
            (file, text)
        })
        .collect();
    let _ = report.finish().write(ariadne::sources(files), &mut *out);
}

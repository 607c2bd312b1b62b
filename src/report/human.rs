//! Human output via ariadne: the literal, where it flows, and the note. Colour only when asked or
//! on a terminal; the layout is ariadne's and outside our compatibility promise (tests snapshot
//! JSON).

use std::path::Path;

use std::collections::HashMap;
use std::ops::Range;

use ariadne::{Cache, Color, Label, Report, ReportKind, Source};

use crate::catalog::Level;
use crate::check::Summary;
use crate::diag::plural;
use crate::finding::Finding;
use crate::source::Loc;
use crate::source::Texts;
use crate::source::lines::Lines;

/// A line longer than this (in chars) is not drawn: ariadne prints a label's whole line, so
/// thousands of findings on one line of generated or minified code made the output, and the
/// time, quadratic. Such a label becomes a note that says where it is.
const DRAWN_LINE: usize = 1_000;

/// Where a location is in its file's text as ariadne counts it (chars), and whether its line is
/// short enough to draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placed {
    pub(crate) range: Range<usize>,
    pub(crate) drawn: bool,
}

/// Where `locs` are in their files' texts, with one line index per file however many locations
/// it holds.
pub(crate) fn place(texts: &mut Texts, locs: &[&Loc]) -> Vec<Placed> {
    let mut order: Vec<usize> = (0..locs.len()).collect();
    order.sort_by(|&a, &b| locs[a].file.cmp(&locs[b].file));
    let mut out = vec![
        Placed {
            range: 0..0,
            drawn: true
        };
        locs.len()
    ];
    for group in order.chunk_by(|&a, &b| locs[a].file == locs[b].file) {
        let lines = Lines::new(texts.get(&locs[group[0]].file));
        for &i in group {
            let loc = locs[i];
            let start = lines.char_index(loc.line, loc.column);
            let end = lines
                .char_index(loc.end_line, loc.end_column)
                .max(start + 1);
            let width = |line| lines.char_index(line, usize::MAX) - lines.char_index(line, 1);
            out[i] = Placed {
                range: start..end,
                drawn: width(loc.line) <= DRAWN_LINE && width(loc.end_line) <= DRAWN_LINE,
            };
        }
    }
    out
}

/// The report's span for a location: ariadne's header names its file, line and column.
pub(crate) type Spanned = (String, Range<usize>);

/// A report's labels as they were added: how many ariadne draws, and, for those on lines too
/// long to draw, their place and message, which [`Labels::finish`] prints.
#[derive(Default)]
pub(crate) struct Labels {
    drawn: usize,
    undrawn: Vec<String>,
}

impl Labels {
    /// Add a label at `loc` to `report`, or keep it for the end when its line is too long.
    pub(crate) fn add<'a>(
        &mut self,
        report: ariadne::ReportBuilder<'a, Spanned>,
        loc: &Loc,
        at: &Placed,
        message: &str,
        color: Color,
    ) -> ariadne::ReportBuilder<'a, Spanned> {
        if at.drawn {
            self.drawn += 1;
            return report.with_label(
                Label::new((loc.file.clone(), at.range.clone()))
                    .with_message(message)
                    .with_color(color),
            );
        }
        self.undrawn.push(format!(
            "{}:{}:{}: {message} (a line over {DRAWN_LINE} chars is not drawn)",
            loc.file, loc.line, loc.column
        ));
        report
    }

    /// Write the report with its notes, then each label that was not drawn, one line each;
    /// ariadne draws notes only under a label, so with none drawn the notes follow them.
    pub(crate) fn finish(
        self,
        mut report: ariadne::ReportBuilder<'_, Spanned>,
        notes: &[String],
        help: Option<&str>,
        sources: &Sources,
        out: &mut Vec<u8>,
    ) {
        for n in notes {
            report = report.with_note(n);
        }
        if let Some(h) = help {
            report = report.with_help(h);
        }
        let _ = report.finish().write(sources, &mut *out);
        let mut tail = String::new();
        for u in &self.undrawn {
            tail.push_str(&format!("    --> {u}\n"));
        }
        if self.drawn == 0 {
            for n in notes {
                tail.push_str(&format!("    note: {n}\n"));
            }
            if let Some(h) = help {
                tail.push_str(&format!("    help: {h}\n"));
            }
        }
        out.extend_from_slice(tail.as_bytes());
    }
}

/// The files one render draws from, each turned into an ariadne `Source` once and shared by
/// every report in it (a `Source` per report made 5,000 findings in one file take minutes).
pub(crate) struct Sources(HashMap<String, Source<String>>);

impl Sources {
    /// The sources of `files`, each once.
    pub(crate) fn new<'f>(texts: &mut Texts, files: impl IntoIterator<Item = &'f str>) -> Sources {
        let mut map = HashMap::new();
        for file in files {
            if !map.contains_key(file) {
                map.insert(file.to_string(), Source::from(texts.get(file).to_string()));
            }
        }
        Sources(map)
    }
}

impl Cache<String> for &Sources {
    type Storage = String;

    fn fetch(&mut self, id: &String) -> Result<&Source<String>, impl std::fmt::Debug> {
        self.0.get(id).ok_or_else(|| format!("no source for {id}"))
    }

    fn display<'a>(&self, id: &'a String) -> Option<impl std::fmt::Display + 'a> {
        Some(id)
    }
}

fn kind(level: Level) -> ReportKind<'static> {
    match level {
        Level::Error => ReportKind::Error,
        Level::Warning => ReportKind::Warning,
        // "note", as the docs and every other format call the level (ariadne's own word is
        // "Advice").
        Level::Note | Level::Allow => ReportKind::Custom("Note", Color::Cyan),
    }
}

/// Render findings and the summary line (none with `-q`; with the counts per rule, suppressions
/// and time with `-v`).
pub(crate) fn check(
    findings: &[Finding],
    summary: &Summary,
    root: &Path,
    style: crate::report::Style,
    verbosity: crate::report::Verbosity,
) -> String {
    let mut texts = Texts::new(root);
    // Every location first (the finding's, then its related ones), so that each file is indexed
    // and made a source once.
    let locs: Vec<Vec<Loc>> = findings
        .iter()
        .map(|f| {
            std::iter::once(f.loc.clone())
                .chain(f.related.iter().chain(&f.path).map(related_loc))
                .collect()
        })
        .collect();
    let flat: Vec<&Loc> = locs.iter().flatten().collect();
    let mut placed = place(&mut texts, &flat).into_iter();
    let sources = Sources::new(&mut texts, flat.iter().map(|l| l.file.as_str()));
    let mut out = Vec::new();
    for (f, locs) in findings.iter().zip(&locs) {
        let placed: Vec<Placed> = placed.by_ref().take(locs.len()).collect();
        render(f, locs, &placed, &sources, style, &mut out);
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Level::Error)
        .count();
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Level::Warning)
        .count();
    let notes = findings.len() - errors - warnings;
    let mut s = String::from_utf8_lossy(&out).into_owned();
    if verbosity == crate::report::Verbosity::Quiet {
        return s;
    }
    s.push_str(&format!(
        "capcheck: {} finding{} ({errors} error{}, {warnings} warning{}, {notes} note{}) in {} files, {} lines",
        findings.len(),
        plural(findings.len()),
        plural(errors),
        plural(warnings),
        plural(notes),
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

fn related_loc(r: &crate::finding::Related) -> Loc {
    Loc {
        file: r.file.clone(),
        line: r.line,
        column: r.column,
        end_line: r.end.0,
        end_column: r.end.1,
    }
}

/// One finding; `locs` and `placed` are its location and then each related one, then each step
/// of its path, numbered.
fn render(
    f: &Finding,
    locs: &[Loc],
    placed: &[Placed],
    sources: &Sources,
    style: crate::report::Style,
    out: &mut Vec<u8>,
) {
    let mut report = Report::build(
        kind(f.severity),
        (f.loc.file.clone(), placed[0].range.clone()),
    )
    .with_config(style.ariadne())
    .with_code(f.rule.id())
    .with_message(&f.message);
    let mut labels = Labels::default();
    report = labels.add(report, &locs[0], &placed[0], &f.label, Color::Red);
    for ((r, loc), at) in f.related.iter().zip(&locs[1..]).zip(&placed[1..]) {
        report = labels.add(report, loc, at, &r.note, Color::Blue);
    }
    let steps = locs[1..].iter().zip(&placed[1..]).skip(f.related.len());
    for (n, (r, (loc, at))) in f.path.iter().zip(steps).enumerate() {
        let note = format!("{}. {}", n + 1, r.note);
        report = labels.add(report, loc, at, &note, Color::Cyan);
    }
    let note = format!("`cargo capcheck explain {}` says why", f.rule);
    labels.finish(report, &[note], f.help.as_deref(), sources, out);
}

//! `fixtures` output: JSON (`{"fixtures": [..]}`) and ariadne reports with the identical fields
//! labelled in the first instance.

use std::path::Path;

use ariadne::{Color, Report, ReportKind};
use serde::Serialize;

use crate::diag::plural;
use crate::fixture_model::compare::is_identity;
use crate::fixture_model::explain::join;
use crate::fixture_model::{FixtureAnalysis, FixtureReport, Scope};
use crate::report::human::{Labels, Placed, Sources, place};
use crate::source::Loc;
use crate::source::Texts;

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    fixtures: &'a [FixtureReport],
}

/// A report in one sentence, for annotations and SARIF.
pub(crate) fn one_line(r: &FixtureReport) -> String {
    format!(
        "the {} `{}` values of `{}` are identical along {}",
        r.instances,
        r.type_key,
        r.function,
        r.identical.join(", ")
    )
}

/// The JSON document for a `fixtures` run.
pub(crate) fn json(reports: &[FixtureReport]) -> String {
    let doc = Doc {
        version: 1,
        fixtures: reports,
    };
    serde_json::to_string_pretty(&doc).expect("reports serialise") + "\n"
}

fn message(r: &FixtureReport) -> String {
    let fields = join(
        &r.untested()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>(),
    );
    match r.scope {
        Scope::Suite => format!(
            "every `{}` in the test suite ({} in {} functions) has the same {fields}",
            r.type_key,
            r.instances,
            r.functions.len()
        ),
        Scope::Collection if r.instances == 1 => format!(
            "`{}()` holds a single `{}`, and {} selects the min or max over them",
            r.function,
            r.type_key,
            r.selected_by
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Scope::Collection => format!(
            "the {} `{}` values of `{}()` are identical along {fields}",
            r.instances, r.type_key, r.function
        ),
    }
}

/// Render the reports and a summary line.
pub(crate) fn human(a: &FixtureAnalysis, root: &Path, style: crate::report::Style) -> String {
    let mut texts = Texts::new(root);
    // Every location first (the report's, then its fields'), so that each file is indexed and
    // made a source once.
    let flat: Vec<&Loc> = a
        .reports
        .iter()
        .flat_map(|r| std::iter::once(&r.loc).chain(r.field_locs.values()))
        .collect();
    let mut placed = place(&mut texts, &flat).into_iter();
    let sources = Sources::new(&mut texts, flat.iter().map(|l| l.file.as_str()));
    let mut out = Vec::new();
    for r in &a.reports {
        let at = placed.next().expect("a place per location");
        let fields: Vec<Placed> = placed.by_ref().take(r.field_locs.len()).collect();
        let main = match (r.scope, r.instances) {
            (Scope::Suite, _) => "the first of them".to_string(),
            (_, 1) => "the only element".to_string(),
            (_, n) => format!("the first of {n}"),
        };
        let mut report = Report::build(ReportKind::Advice, (r.loc.file.clone(), at.range.clone()))
            .with_config(style.ariadne())
            .with_code(crate::catalog::Report::IdenticalFixture.id())
            .with_message(message(r));
        let mut labels = Labels::default();
        report = labels.add(report, &r.loc, &at, &main, Color::Blue);
        let mut seen = vec![at];
        for ((field, loc), at) in r.field_locs.iter().zip(fields) {
            if is_identity(field) || seen.contains(&at) {
                continue;
            }
            let value = r.values.get(field).map(String::as_str).unwrap_or("?");
            let message = format!("`{field}` is {value} in {}", every(r.instances));
            report = labels.add(report, loc, &at, &message, Color::Yellow);
            seen.push(at);
        }
        let mut notes = Vec::new();
        if !r.varying.is_empty() {
            let varying: Vec<String> = r
                .varying
                .iter()
                .map(|f| {
                    if is_identity(f) {
                        format!("{f} (identifies the instance)")
                    } else {
                        f.clone()
                    }
                })
                .collect();
            notes.push(format!("varying: {}", varying.join(", ")));
        }
        let help = if r.instances == 1 {
            "add a second, different element; `cargo capcheck explain identical-fixture` says why"
        } else {
            "vary these fields across the fixture; `cargo capcheck explain identical-fixture` says why"
        };
        labels.finish(report, &notes, Some(help), &sources, &mut out);
    }
    let mut s = String::from_utf8_lossy(&out).into_owned();
    let suite = a.reports.iter().filter(|r| r.scope == Scope::Suite).count();
    s.push_str(&format!(
        "capcheck: {} fixture report{} ({} collection{}, {suite} suite-wide) in {} files, {} lines\n",
        a.reports.len(),
        plural(a.reports.len()),
        a.reports.len() - suite,
        plural(a.reports.len() - suite),
        a.files,
        a.lines,
    ));
    s
}

fn every(n: usize) -> String {
    if n == 2 {
        "both".to_string()
    } else {
        format!("all {n}")
    }
}

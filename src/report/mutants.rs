//! `mutants` reports: human (ariadne: the mutated span and its replacement, survivors first, then
//! one line per other mutant and a summary line) and JSON (`mutants.json`, which `merge` reads
//! back).

use std::path::Path;

use ariadne::{Color, Label, Report, ReportKind};

use crate::diag::plural;
use crate::mutate::advice;
use crate::mutate::outcome::{MutantResult, MutantsReport, Outcome, Summary};
use crate::mutate::select::{Skipped, one_line};
use crate::operators::mutant::Mutant;

pub(crate) fn json(report: &MutantsReport) -> String {
    serde_json::to_string_pretty(report).expect("reports serialise") + "\n"
}

/// A mutant as a unified diff of its file (three lines of context), headed by its id line
/// (`mutant: ID`, which `patch` and `git apply` skip as a preamble); `None` when the file no
/// longer holds the original text.
pub(crate) fn diff(m: &Mutant, text: &str) -> Option<String> {
    let mutated = m.apply_to(text)?;
    let a = format!("a/{}", m.file);
    let b = format!("b/{}", m.file);
    let unified = similar::TextDiff::from_lines(text, &mutated)
        .unified_diff()
        .context_radius(3)
        .header(&a, &b)
        .to_string();
    Some(format!(
        "{}{}\n{unified}",
        crate::mutate::output::MUTANT_HEADER,
        m.id
    ))
}

/// The ids of each verdict's list (`caught.txt`, `missed.txt`, `timeout.txt`, `unviable.txt`),
/// one a line, in report order.
pub(crate) fn lists(report: &MutantsReport) -> Vec<(&'static str, String)> {
    let of = |outcomes: &[Outcome]| -> String {
        report
            .mutants
            .iter()
            .filter(|r| outcomes.contains(&r.outcome))
            .map(|r| format!("{}\n", r.mutant.id))
            .collect()
    };
    let [caught, missed, timeout, unviable] = crate::mutate::output::LISTS;
    vec![
        (caught, of(&[Outcome::Killed])),
        (missed, of(&[Outcome::Survived, Outcome::Uncovered])),
        (timeout, of(&[Outcome::Timeout, Outcome::Oom])),
        (unviable, of(&[Outcome::Unviable])),
    ]
}

/// `--list --format json`: the mutants, without outcomes.
pub(crate) fn list_json(mutants: &[Mutant]) -> String {
    serde_json::to_string_pretty(mutants).expect("mutants serialise") + "\n"
}

/// `--list`: one mutant a line, id first, then the skipped ones with what skipped them.
pub(crate) fn list_human(mutants: &[Mutant], skipped: &[Skipped]) -> String {
    let mut s = String::new();
    for m in mutants {
        s.push_str(&format!(
            "{}\n    {}\n",
            m.id,
            crate::mutate::select::name(m)
        ));
    }
    for k in skipped {
        s.push_str(&skipped_line(k));
        s.push_str(&format!("    {}\n", crate::mutate::select::name(&k.mutant)));
    }
    s.push_str(&format!(
        "{} mutant{}{}\n",
        mutants.len(),
        plural(mutants.len()),
        skipped_count(skipped)
    ));
    s
}

/// `skipped   ID (by ..: reason)`.
fn skipped_line(k: &Skipped) -> String {
    let why = match &k.reason {
        Some(r) => format!("{}: {r}", k.skipped_by),
        None => k.skipped_by.clone(),
    };
    format!("{:9} {} ({why})\n", "skipped", k.mutant.id)
}

/// `, N skipped` when any were.
fn skipped_count(skipped: &[Skipped]) -> String {
    if skipped.is_empty() {
        String::new()
    } else {
        format!(", {} skipped", skipped.len())
    }
}

/// Render a run: every survivor (and failed guard) as an ariadne report, the mutants of one span
/// in one report (`advice::groups`), then one line per other mutant, then the summary line.
/// `output` is the output folder the logs are in.
pub(crate) fn human(
    report: &MutantsReport,
    root: &Path,
    output: &Path,
    style: crate::report::Style,
) -> String {
    let mut texts = crate::source::Texts::new(root);
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut groups = advice::groups(report);
    // Failed guards first: they are the errors.
    groups.sort_by_key(|g| !g[0].failed_guard());
    for g in &groups {
        render(g, output, &mut texts, style, &mut out);
    }
    let mut results: Vec<&MutantResult> = report
        .mutants
        .iter()
        .filter(|r| !advice::flagged(r))
        .collect();
    results.sort_by_key(|r| r.outcome);
    for r in results {
        rest.push_str(&line(r));
    }
    for k in &report.skipped {
        rest.push_str(&skipped_line(k));
    }
    let mut s = String::from_utf8_lossy(&out).into_owned();
    s.push_str(&rest);
    s.push_str(&summary_line(&report.summary, &report.skipped));
    s
}

fn line(r: &MutantResult) -> String {
    let m = &r.mutant;
    let why = match r.outcome {
        Outcome::Killed if r.killed_by.is_empty() => {
            " (the tests failed without naming a test: a crash or a build script)".to_string()
        }
        Outcome::Killed => {
            let shown: Vec<&str> = r.killed_by.iter().take(3).map(String::as_str).collect();
            let mut s = format!(" by {}", shown.join(", "));
            if r.killed_by.len() > shown.len() {
                s.push_str(&format!(" and {} more", r.killed_by.len() - shown.len()));
            }
            if r.killed_only_by_pins {
                s.push_str(
                    "\n              every killing test pins a capacity: this proves the constant, not the behaviour",
                );
            }
            s
        }
        Outcome::Timeout => " (ran past the timeout)".to_string(),
        Outcome::Oom => " (stopped at the memory ceiling)".to_string(),
        Outcome::Unviable => " (does not compile)".to_string(),
        Outcome::Uncovered => " (no test ran)".to_string(),
        Outcome::Survived => String::new(),
    };
    format!("{:9} {}{why}\n", r.outcome.as_str(), m.id)
}

/// The replacements of a group, as the label says them.
fn replacements(g: &[&MutantResult]) -> String {
    let each: Vec<String> = g
        .iter()
        .map(|r| {
            if r.mutant.replacement.is_empty() {
                "removed".to_string()
            } else {
                format!("`{}`", one_line(&r.mutant.replacement))
            }
        })
        .collect();
    match each.as_slice() {
        [one] if one == "removed" => "removed".to_string(),
        [one] => format!("replaced with {one}"),
        many => format!("replaced with {} in turn: each passed", many.join(", ")),
    }
}

/// The headline of a group: the mutant's description, or how many mutants of one span passed.
pub(crate) fn headline(g: &[&MutantResult]) -> String {
    let (r, m) = (g[0], &g[0].mutant);
    let what = if m.guard {
        format!("guard {}", r.outcome.as_str())
    } else {
        "survived".to_string()
    };
    match g {
        [_] => format!("{what}: {} in `{}`", m.description, m.function),
        _ => format!(
            "{what}: {} {} mutants of `{}` in `{}`",
            g.len(),
            m.operator,
            one_line(&m.original),
            m.function
        ),
    }
}

fn render(
    g: &[&MutantResult],
    output: &Path,
    texts: &mut crate::source::Texts,
    style: crate::report::Style,
    out: &mut Vec<u8>,
) {
    let (r, m) = (g[0], &g[0].mutant);
    let text = texts.get(&m.file).to_string();
    let chars = |b: usize| text.get(..b).map_or(0, |s| s.chars().count());
    let start = chars(m.byte_range.0);
    let range = start..chars(m.byte_range.1).max(start + 1);
    let tests = if r.ran.is_empty() {
        format!("{} tests ran with this mutant and passed", r.tests_run)
    } else {
        let shown: Vec<&str> = r.ran.iter().take(8).map(String::as_str).collect();
        let mut names = shown.join(", ");
        if r.tests_run > shown.len() {
            names.push_str(&format!(" and {} more", r.tests_run - shown.len()));
        }
        format!(
            "{} tests ran with this mutant and passed: {names}",
            r.tests_run
        )
    };
    // One severity per verdict, as in SARIF and annotations: a failed guard is an error, a
    // survivor a warning.
    let kind = match flagged_level(r) {
        crate::catalog::Level::Error => ReportKind::Error,
        _ => ReportKind::Warning,
    };
    let mut report = Report::build(kind, (m.file.clone(), range.clone()))
        .with_config(style.ariadne())
        .with_code(m.operator.id())
        .with_message(headline(g))
        .with_label(
            Label::new((m.file.clone(), range))
                .with_message(replacements(g))
                .with_color(Color::Yellow),
        )
        .with_note(tests);
    if let Some(e) = r
        .explanation
        .as_ref()
        .filter(|e| *e != crate::fixture_model::NO_EXPLANATION)
        .filter(|_| !fixture_step(r))
    {
        report = report.with_note(e);
    }
    let ids: Vec<&str> = g.iter().map(|r| r.mutant.id.as_str()).collect();
    if let Some(step) = &r.next_step {
        report = report.with_help(format!(
            "next step: {}; then `{}`",
            step.text,
            advice::rerun(&ids)
        ));
        report = report.with_help(format!(
            "or, if no test can tell them apart, paste above line {}: {}",
            m.line, step.skip
        ));
    }
    let logs: Vec<String> = g
        .iter()
        .map(|r| output.join(&r.log).display().to_string())
        .collect();
    report = report.with_note(format!(
        "id {}; log {}; `cargo capcheck explain {}`",
        ids.join(", "),
        logs.join(", "),
        m.operator
    ));
    let _ = report
        .finish()
        .write(ariadne::sources([(m.file.clone(), text)]), &mut *out);
}

/// Whether the next step is the fixture explanation itself (then it is said once, as the step).
fn fixture_step(r: &MutantResult) -> bool {
    r.next_step
        .as_ref()
        .is_some_and(|s| s.kind == advice::StepKind::Fixture)
}

/// The level of a flagged mutant in annotations and SARIF: a guard (`expect = "killed"`) that
/// was not killed is an error, since the user declared that it fails the run; a survivor is a
/// warning, since it shows a change no test notices (possibly an equivalent mutant), not that
/// the code is wrong. The exit code (1 for either) is the gate; this is how it is shown.
pub(crate) fn flagged_level(r: &MutantResult) -> crate::catalog::Level {
    if r.failed_guard() {
        crate::catalog::Level::Error
    } else {
        crate::catalog::Level::Warning
    }
}

/// A group of flagged mutants (one span) in one message for annotations and SARIF: what
/// changed, how many tests passed with it, the fixture explanation (the part only this tool
/// knows) and the next step.
pub(crate) fn survivor_message(g: &[&MutantResult]) -> String {
    let (r, m) = (g[0], &g[0].mutant);
    let what = if m.guard {
        format!("guard {}", r.outcome.as_str())
    } else {
        r.outcome.as_str().to_string()
    };
    let replaced: Vec<String> = g
        .iter()
        .map(|r| format!("`{}`", one_line(&r.mutant.replacement)))
        .collect();
    let change = if m.replacement.is_empty() {
        format!("removing `{}`", one_line(&m.original))
    } else {
        format!(
            "replacing `{}` with {}",
            one_line(&m.original),
            replaced.join(" or ")
        )
    };
    let ids: Vec<&str> = g.iter().map(|r| r.mutant.id.as_str()).collect();
    let what_changed = match g {
        [_] => m.description.clone(),
        _ => format!("{} {} mutants", g.len(), m.operator),
    };
    let mut s = format!(
        "mutant {} {what} in `{}`: {what_changed}; {change} passes all {} tests",
        ids.join(", "),
        m.function,
        r.tests_run
    );
    if let Some(e) = r
        .explanation
        .as_ref()
        .filter(|e| *e != crate::fixture_model::NO_EXPLANATION)
        .filter(|_| !fixture_step(r))
    {
        s.push_str(&format!("\n{e}"));
    }
    if let Some(step) = &r.next_step {
        s.push_str(&format!(
            "\nnext step: {}; then `{}`\nor paste above line {}: {}",
            step.text,
            advice::rerun(&ids),
            m.line,
            step.skip
        ));
    }
    s
}

fn summary_line(s: &Summary, skipped: &[Skipped]) -> String {
    let mut line = format!(
        "capcheck mutants: {} mutant{}: {} survived, {} killed, {} timeout, {} unviable, {} uncovered; score {:.1}%",
        s.mutants,
        plural(s.mutants),
        s.survived,
        s.killed,
        s.timeout,
        s.unviable,
        s.uncovered,
        s.score
    );
    line.push_str(&skipped_count(skipped).replacen(',', ";", 1));
    if !s.guards_failed.is_empty() {
        let n = s.guards_failed.len();
        line.push_str(&format!("; {n} guard{} not killed", plural(n)));
    }
    if let Some(shard) = &s.shard {
        line.push_str(&format!("; shard {shard}"));
    }
    line.push_str(&format!(
        " (baseline: {} tests, build {:.1}s, test {:.1}s; {:.1}s in all)\n",
        s.baseline.tests,
        s.baseline.build_ms as f64 / 1000.0,
        s.baseline.test_ms as f64 / 1000.0,
        s.elapsed_ms as f64 / 1000.0
    ));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_carry_a_version_and_old_ones_read_back_as_version_1() {
        let report = MutantsReport::new(Vec::new(), Summary::default());
        let json: serde_json::Value = serde_json::from_str(&json(&report)).unwrap();
        assert_eq!(json["version"], 1);
        let old = r#"{"mutants": [], "summary": {"mutants": 0, "killed": 0, "survived": 0,
            "timeout": 0, "unviable": 0, "uncovered": 0, "score": 100.0, "guards_failed": [],
            "baseline": {"build_ms": 0, "test_ms": 0, "tests": 0}, "elapsed_ms": 0,
            "shard": null}}"#;
        let read: MutantsReport = serde_json::from_str(old).unwrap();
        assert_eq!(read.version, 1);
    }
}

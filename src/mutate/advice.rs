//! What to do about a survivor: the concrete next step for each one (the input to vary, the
//! boundary or cap to assert, or the skip line to paste), and the survivors of one span grouped
//! (`perturb-capacity` makes up to five mutants of one literal; they are one finding).
//!
//! The step is derived from what the run already knows, as data: the fixture explanation (the
//! fixture analysis), else the operator and the mutated text. Nothing here runs anything.

use serde::{Deserialize, Serialize};

use crate::catalog::Operator;
use crate::mutate::outcome::{MutantResult, MutantsReport, Outcome};
use crate::mutate::select::one_line;

/// Which kind of step a survivor calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum StepKind {
    /// The fixtures are identical where the mutated code reads them: vary an input.
    Fixture,
    /// No test stands at the boundary the mutant moved (`<` vs `<=`, the narrowest vs the
    /// widest, a clamp's bound, the all-down case): add the case where the two differ.
    Boundary,
    /// No test depends on the capacity's value (or on the cap's absence): assert what the
    /// capacity does at its value, or measure and bind it.
    Cap,
    /// Nothing the tool knows tells which test would see the change (code put back from
    /// history): write one, or skip the mutant with a reason.
    Skip,
}

/// The next step for one survivor (or a guard that was not killed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NextStep {
    pub(crate) kind: StepKind,
    /// One sentence: what test to write or what input to vary.
    pub(crate) text: String,
    /// The comment that skips this mutant, to paste above the mutated line when no test can
    /// tell the two apart (an equivalent mutant), with its reason to fill in.
    pub(crate) skip: String,
}

/// The reason placeholder of a pasted skip line; `select` refuses an empty reason, so a user
/// must at least keep or replace this one.
pub(crate) const REASON: &str = "TODO: why no test can tell these apart";

/// The next step for a flagged result; `None` for a mutant the tests detected.
pub(crate) fn next_step(r: &MutantResult) -> Option<NextStep> {
    if r.outcome != Outcome::Survived && !r.failed_guard() {
        return None;
    }
    let m = &r.mutant;
    let skip = format!(
        "// capcheck: skip-mutants({}, reason = \"{REASON}\")",
        m.operator
    );
    let explained = r
        .explanation
        .as_deref()
        .filter(|e| *e != crate::fixture_model::NO_EXPLANATION);
    if let Some(e) = explained {
        let text = vary(e);
        return Some(NextStep {
            kind: StepKind::Fixture,
            text,
            skip,
        });
    }
    let original = one_line(&m.original);
    let replacement = one_line(&m.replacement);
    let (kind, text) = match m.operator {
        Operator::BoundaryShift => (
            StepKind::Boundary,
            format!(
                "add a test where the two sides of `{original}` are equal (exactly at the limit): \
                 there `{original}` and `{replacement}` disagree"
            ),
        ),
        Operator::SwapMinMax => (
            StepKind::Boundary,
            "add a test whose units differ along what is selected (two boxes of different \
             capacity), so the narrowest and the widest are not the same one"
                .to_string(),
        ),
        Operator::DropClamp => (
            StepKind::Boundary,
            format!(
                "add a test whose value goes past the bound of `{original}`, and assert the \
                 bound holds"
            ),
        ),
        Operator::DropAllDownGuard => (
            StepKind::Boundary,
            "add a test with every backend down and assert what the early return gives (no \
             permits, no division by zero)"
                .to_string(),
        ),
        Operator::ReinstateCap => (
            StepKind::Cap,
            format!(
                "add a test where the cap would bind: few units and a burst larger than \
                 `{replacement}` (the story: 2 healthy boxes and a roster of 32 callers fail \
                 when the cap is `healthy * 8`), asserting that no call waits"
            ),
        ),
        Operator::PerturbCapacity => (
            StepKind::Cap,
            format!(
                "no test depends on the value `{original}`: assert what it bounds at that value \
                 (that many run at once, one more waits), or measure it and bind it in \
                 capacity.toml (`cargo capcheck measure --write`)"
            ),
        ),
        Operator::Guard => (
            StepKind::Cap,
            format!(
                "your guard came back unnoticed: write the test that fails with `{replacement}` \
                 in place, the one the guard was declared for"
            ),
        ),
        Operator::HistoryRevert => (
            StepKind::Skip,
            format!(
                "no test notices the deleted code put back (`{replacement}`): write one that \
                 fails with it, or paste the skip line with the reason it cannot matter"
            ),
        ),
    };
    Some(NextStep { kind, text, skip })
}

/// The command that runs these mutants again, once the step is taken.
pub(crate) fn rerun(ids: &[&str]) -> String {
    let each: Vec<String> = ids.iter().map(|id| format!("--mutant {id}")).collect();
    format!("cargo capcheck mutants {}", each.join(" "))
}

/// The fixture explanation as an instruction: its own advice after the colon (`..: vary one
/// of them`), with the reason before it.
fn vary(explanation: &str) -> String {
    match explanation.rsplit_once(": ") {
        Some((why, what)) => format!("{what} ({why})"),
        None => explanation.to_string(),
    }
}

/// Flagged results that mutate one span of one file (the same literal, the same call), in
/// report order: one finding each, however many replacements survived.
pub(crate) fn groups(report: &MutantsReport) -> Vec<Vec<&MutantResult>> {
    let mut out: Vec<Vec<&MutantResult>> = Vec::new();
    for r in report.mutants.iter().filter(|r| flagged(r)) {
        let same = |g: &Vec<&MutantResult>| {
            let m = &g[0].mutant;
            m.file == r.mutant.file
                && m.byte_range == r.mutant.byte_range
                && m.operator == r.mutant.operator
                && m.guard == r.mutant.guard
        };
        match out.iter_mut().find(|g| same(g)) {
            Some(g) => g.push(r),
            None => out.push(vec![r]),
        }
    }
    out
}

/// Whether a result is reported: a survivor or a guard that was not killed.
pub(crate) fn flagged(r: &MutantResult) -> bool {
    r.outcome == Outcome::Survived || r.failed_guard()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixture_explanation_becomes_its_own_advice() {
        assert_eq!(
            vary("survived because 2 boxes in tests/a.rs:3 have the same kv: vary one of them"),
            "vary one of them (survived because 2 boxes in tests/a.rs:3 have the same kv)"
        );
    }
}

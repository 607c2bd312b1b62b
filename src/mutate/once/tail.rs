//! What the switch could not hold: the mutants left after the switched runs go through the
//! rebuild path on the original text, and when nothing could be switched at all, the rebuild
//! engine runs them from the start.

use std::path::Path;

use super::build::Sources;
use crate::mutate::engine::{self, Event, Options, Ran, Stop, Timeouts};
use crate::mutate::outcome::MutantResult;
use crate::mutate::switch::Plan;
use crate::operators::mutant::Mutant;

/// Nothing is switched: no reach to trace, every mutant is rebuilt (the rebuild engine, on a copy
/// of the original), after the verdicts rustc already gave.
pub(super) fn rebuild_unswitched(
    root: &Path,
    mutants: &[Mutant],
    results: Vec<Option<MutantResult>>,
    opts: &Options,
    log: &Path,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
    progress: &(dyn Fn(Event) + Sync),
) -> Result<Ran, Stop> {
    // The rebuild engine writes its own baseline log; this one holds the build that found
    // nothing to switch.
    std::fs::rename(log, opts.log_dir.join("switch-build.log"))?;
    let rest: Vec<Mutant> = mutants
        .iter()
        .zip(&results)
        .filter(|(_, r)| r.is_none())
        .map(|(m, _)| m.clone())
        .collect();
    let given: Vec<MutantResult> = results.into_iter().flatten().collect();
    for r in &given {
        engine::record(&opts.verdicts, r)?;
    }
    let mut ran = engine::rebuild_all(root, &rest, opts, pins, progress)?;
    ran.results.extend(given);
    Ok(ran)
}

/// The mutants still without a verdict (their switch was withdrawn, or they sit in a const
/// context), one rebuild each, on the original text put back into the scratch copy.
#[allow(clippy::too_many_arguments)]
pub(super) fn rebuild_rest(
    mutants: &[Mutant],
    scratch: &Path,
    target: &Path,
    opts: &Options,
    sources: &mut Sources,
    timeouts: &Timeouts,
    pins: &(dyn Fn(&[String]) -> bool + Sync),
    tally: &engine::Tally,
    results: &mut [Option<MutantResult>],
) -> Result<(), Stop> {
    let rest: Vec<usize> = (0..mutants.len())
        .filter(|&i| results[i].is_none())
        .collect();
    if rest.is_empty() {
        return Ok(());
    }
    sources.write(scratch, &Plan::default())?;
    for i in rest {
        tally.started(&mutants[i]);
        let r = engine::run_one(&mutants[i], scratch, target, opts, timeouts, pins)?;
        tally.finished(&r);
        engine::record(&opts.verdicts, &r)?;
        results[i] = Some(r);
    }
    Ok(())
}

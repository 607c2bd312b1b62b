//! `mutants` progress on stderr: the phases before the mutants (copy, build, baseline) with the
//! time each took, then done/total, the mutants running now and an estimate of the time left.
//! On a terminal it is a live line (indicatif) with finished mutants printed above it; in a CI
//! log, plain lines, one per phase and one per finished mutant.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::mutate::engine::{Event, Phase};
use crate::report::Verbosity;

pub(super) struct Progress {
    verbosity: Verbosity,
    state: Mutex<State>,
    /// The live line on a terminal; `None` in a log.
    bar: Option<ProgressBar>,
}

struct State {
    start: Instant,
    phase: Option<(Phase, Instant)>,
    /// What one mutant takes, as the baseline says, until one has finished.
    guess: Option<Duration>,
    running: Vec<String>,
    finished: Vec<Duration>,
    /// The notes said already.
    said: std::collections::BTreeSet<String>,
}

impl Progress {
    pub(super) fn new(verbosity: Verbosity) -> Progress {
        let live = std::io::stderr().is_terminal() && verbosity != Verbosity::Quiet;
        let bar = live.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {wide_msg} ({elapsed} in all)")
                    .expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            verbosity,
            state: Mutex::new(State {
                start: Instant::now(),
                phase: None,
                guess: None,
                running: Vec::new(),
                finished: Vec::new(),
                said: Default::default(),
            }),
            bar,
        }
    }

    /// A line above the live one (or on its own in a log).
    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    pub(super) fn event(&self, e: Event) {
        let mut s = self.state.lock().expect("progress lock");
        match e {
            // Said even with -q, as it happens: the run that left it is gone, no report will
            // say so.
            Event::RemovedStale(stale) => self.line(&format!(
                "capcheck: removed {}, a scratch copy left by an earlier run (pid {}) that was killed{}",
                stale.dir.display(),
                stale.pid,
                match stale.killed {
                    0 => String::new(),
                    n => format!("; {n} of its processes were still running and were killed"),
                }
            )),
            // Said even with -q, once (the switch engine's tail copies again): a test that
            // needed the link fails the baseline, and this says why.
            Event::LeftOut(links) => {
                for why in links {
                    if s.said.insert(why.clone()) {
                        self.line(&format!("note: left out of the scratch copy: {why}"));
                    }
                }
            }
            Event::ResumeStale(n) => self.line(&format!(
                "note: --resume: the {n} verdict(s) in the output folder were given on other code \
                 (a file of the selected packages or the manifest changed since); every mutant runs again"
            )),
            _ if self.verbosity == Verbosity::Quiet => {}
            Event::Phase(p) => {
                s.end_phase(self);
                s.phase = Some((p, Instant::now()));
                match &self.bar {
                    Some(bar) => bar.set_message(p.as_str()),
                    // In a log, the phase as it starts, with the run's time so far.
                    // (A line that starts with `[` is a verdict's.)
                    None => eprintln!("{} (at {:.1}s)", p.as_str(), s.start.elapsed().as_secs_f64()),
                }
            }
            Event::Baseline(b) => {
                s.end_phase(self);
                self.line(&format!(
                    "baseline: ok, {} tests (build {:.1}s, test {:.1}s)",
                    b.tests,
                    b.build_ms as f64 / 1000.0,
                    b.test_ms as f64 / 1000.0
                ));
                let per_mutant = if b.engine == "switch" {
                    b.test_ms
                } else {
                    b.build_ms + b.test_ms
                };
                s.guess = Some(Duration::from_millis(per_mutant.max(1)));
            }
            Event::Started {
                mutant,
                done,
                total,
            } => {
                s.running.push(mutant.id.clone());
                if self.verbosity == Verbosity::Verbose && self.bar.is_none() {
                    eprintln!("[{done}/{total}] running {}", mutant.id);
                }
                self.show(&s, done, total);
            }
            Event::Done {
                done,
                total,
                result,
            } => {
                s.running.retain(|id| id != &result.mutant.id);
                s.finished
                    .push(Duration::from_millis(result.duration_ms.max(1)));
                let left = s.left(total - done);
                self.line(&format!(
                    "[{done}/{total}] {:9} {} ({:.1}s){}",
                    result.outcome.as_str(),
                    result.mutant.id,
                    result.duration_ms as f64 / 1000.0,
                    left.map_or(String::new(), |l| format!("; about {} left", secs(l)))
                ));
                if self.verbosity == Verbosity::Verbose && !result.log.is_empty() {
                    self.line(&format!("    log: {}", result.log));
                }
                self.show(&s, done, total);
            }
        }
    }

    /// The live line: done/total, what runs now, the time left.
    fn show(&self, s: &State, done: usize, total: usize) {
        let Some(bar) = &self.bar else { return };
        let running = match s.running.as_slice() {
            [] => String::new(),
            [one] => format!(" running {one}"),
            [first, rest @ ..] => format!(" running {first} and {} more", rest.len()),
        };
        let left = s
            .left(total - done)
            .map_or(String::new(), |l| format!(" about {} left;", secs(l)));
        bar.set_message(format!("[{done}/{total}]{left}{running}"));
    }

    /// Clear the live line before the report prints.
    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl State {
    /// The phase that was running ends: on a terminal, say how long it took (a log said when
    /// it began).
    fn end_phase(&mut self, p: &Progress) {
        if let (Some((phase, at)), Some(_)) = (self.phase.take(), &p.bar) {
            p.line(&format!(
                "{}: {:.1}s",
                phase.as_str(),
                at.elapsed().as_secs_f64()
            ));
        }
    }

    /// The time the `remaining` mutants will take: the mean of those that finished (the
    /// baseline's estimate before any has), over as many at once as run now.
    fn left(&self, remaining: usize) -> Option<Duration> {
        if remaining == 0 {
            return None;
        }
        let each = match self.finished.as_slice() {
            [] => self.guess?,
            f => f.iter().sum::<Duration>() / f.len() as u32,
        };
        let at_once = self.running.len().max(1) as u32;
        Some(each * remaining as u32 / at_once)
    }
}

/// `<1s`, `21s`, `3m05s`.
fn secs(d: Duration) -> String {
    let s = d.as_secs();
    if s == 0 {
        "<1s".to_string()
    } else if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

//! `mutants`: list, run or merge, then write the output folder's reports, print, and decide the
//! exit code.

use std::path::Path;

use super::*;
use crate::mutate::outcome::{MutantsReport, Summary};
use crate::mutate::output::{ELEMENTS_JSON, HTML, REPORT_JSON, SARIF};

pub(super) fn mutants(args: &MutantsArgs) -> anyhow::Result<Exit> {
    use crate::mutate::engine::{Event, Stop};
    use crate::report::mutants as render;
    if let Some(MutantsCommand::Merge { dirs, into, format }) = &args.command {
        // `merge --format` or `mutants --format .. merge`.
        let format = if format.format != Format::Human || format.color != Color::Auto {
            format
        } else {
            &args.format
        };
        let report = crate::mutate::job::merge(dirs)?;
        let ws = crate::workspace::discover(&args.workspace.selection())?;
        let output = into
            .clone()
            .unwrap_or_else(|| crate::mutate::job::default_output(&ws.target_dir));
        write_output(&output, &report, &ws.root)?;
        crate::mutate::job::copy_logs(dirs, &output)?;
        return Ok(print_mutants(args, format, &report, &ws.root, &output));
    }
    let history = from_history(args)?;
    if args.list || args.list_files {
        let listed = crate::mutate::job::list(&args.options())?;
        stale_skips(&listed.skips);
        history.warn_unread(&listed.unread);
        warn_skipped(&listed.index);
        if let Some(why) = listed.empty_because() {
            eprintln!("capcheck mutants: no mutants selected: {why}");
        }
        let json = matches!(args.format.format, Format::Json | Format::Sarif);
        match (args.list_files, json) {
            (true, true) => print!("{}", list_files_json(&listed.files())),
            (true, false) => {
                for (file, n) in listed.files() {
                    println!("{file} ({n} mutant{})", crate::diag::plural(n));
                }
            }
            (false, true) => print!("{}", render::list_json(&listed.mutants)),
            (false, false) => print!(
                "{}",
                render::list_human(&listed.mutants, &listed.skips.skipped)
            ),
        }
        return Ok(Exit::Clean);
    }
    crate::sys::process::install_interrupt_handler()?;
    crate::sys::process::become_subreaper();
    let scratch_parent = args.scratch_dir.clone().unwrap_or_else(std::env::temp_dir);
    crate::sys::process::set_scope(&scratch_parent);
    // Said even with -q, as it happens: the run that left them is gone, no report will say so.
    for (pid, killed) in crate::sys::process::end_orphans_of_dead_runs() {
        eprintln!(
            "capcheck: ended {killed} process{} left running by an earlier run (pid {pid}) that was killed",
            if killed == 1 { "" } else { "es" }
        );
    }
    let verbosity = args.verbosity.level();
    let shown = super::progress::Progress::new(verbosity);
    let progress = |e: Event| shown.event(e);
    let opts = args.options();
    // An error once a stop signal came is the signal's doing (`Stop::from`), in the listing too.
    let listed = crate::mutate::job::preflight(&opts)
        .and_then(|()| crate::mutate::job::list(&opts))
        .map_err(Stop::from);
    let (ran, unread) = match listed {
        Ok(listed) if listed.mutants.is_empty() => {
            return empty_selection(args, &opts, listed);
        }
        Ok(mut listed) => {
            let unread = std::mem::take(&mut listed.unread);
            (crate::mutate::job::run(&opts, listed, &progress), unread)
        }
        Err(stop) => (Err(stop), Vec::new()),
    };
    shown.finish();
    history.warn_unread(&unread);
    // Whatever a run left that its own cleanup missed (each child run ends its strays already).
    crate::sys::process::end_strays(None);
    match ran {
        Ok(run) => {
            write_output(&run.output, &run.report, &run.root)?;
            Ok(print_mutants(
                args,
                &args.format,
                &run.report,
                &run.root,
                &run.output,
            ))
        }
        Err(Stop::BaselineFailed { log, step }) => {
            eprintln!(
                "error: the unmutated baseline failed to {step}; nothing was mutated (log: {})",
                log.display()
            );
            Ok(Exit::BaselineFailed)
        }
        Err(Stop::BaselineHung { log, tests, after }) => {
            let which = match tests.as_slice() {
                [] => "a test".to_string(),
                names => names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            eprintln!(
                "error: the unmutated baseline hung: {which} still running after {}s \
                 (--baseline-timeout); it was ended, nothing was mutated (log: {})",
                after.as_secs_f64(),
                log.display()
            );
            Ok(Exit::BaselineFailed)
        }
        // No signal came: stderr refused a line, and `main` makes it exit 2.
        Err(Stop::Interrupted) if crate::sys::process::signal().is_none() => Ok(Exit::Usage),
        Err(Stop::Interrupted) => {
            eprintln!("interrupted: children killed, scratch copies removed");
            Ok(Exit::interrupted_by(crate::sys::process::signal()))
        }
        Err(Stop::Error(e)) => Err(e),
    }
}

/// `--list-files --format json`: `[{"file": .., "mutants": N}, ..]`.
fn list_files_json(files: &[(String, usize)]) -> String {
    let rows: Vec<serde_json::Value> = files
        .iter()
        .map(|(file, n)| serde_json::json!({"file": file, "mutants": n}))
        .collect();
    serde_json::to_string_pretty(&rows).unwrap_or_default() + "\n"
}

/// A run with nothing selected: nothing is built and there is no score (a score of no mutants
/// would read as a pass, or as 100%). It says why on stderr, clears the output folder of an
/// earlier run's reports (they would pass for this run's), and exits 0, as cargo-mutants does:
/// a change that touches no mutant has nothing to fail. `--format json` prints
/// `{"selected": 0, "why": .., "score": null}`; SARIF a run with no results.
fn empty_selection(
    args: &MutantsArgs,
    opts: &crate::mutate::job::MutantsOptions,
    listed: crate::mutate::job::Listed,
) -> anyhow::Result<Exit> {
    let why = listed.empty_because().unwrap_or_default();
    stale_skips(&listed.skips);
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| crate::mutate::job::default_output(&listed.workspace.target_dir));
    crate::mutate::output::clear(&output)?;
    eprintln!("capcheck mutants: no mutants selected: {why}; nothing built, no score");
    match args.format.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"selected": 0, "why": why, "mutants": [], "score": null})
            )
            .unwrap_or_default()
        ),
        Format::Sarif => {
            let summary = crate::mutate::outcome::Summary::new(&[], Default::default(), 0, None);
            let report = MutantsReport::new(Vec::new(), summary);
            print!(
                "{}",
                crate::report::sarif::mutants(&report, &listed.workspace.root)
            );
        }
        Format::Human | Format::Github => {}
    }
    Ok(Exit::Clean)
}

/// The config's `skip-mutants` ids that name no mutant: a warning on stderr (they may belong to
/// a package not selected, or to code that changed).
fn stale_skips(skips: &crate::mutate::select::Skips) {
    for id in &skips.stale {
        eprintln!(
            "warning: [workspace.metadata.capcheck.mutants] skip-mutants: `{id}` names no mutant of the selected packages"
        );
    }
}

/// Whether `--from-history` was asked for (and its repository checked).
struct FromHistory(bool);

impl FromHistory {
    /// Say which files' history `git log` could not show (their history mutants are missing).
    fn warn_unread(&self, unread: &[(String, String)]) {
        if self.0 {
            for (file, why) in unread {
                eprintln!(
                    "warning: --from-history: the history of {file} was not searched ({why})"
                );
            }
        }
    }
}

/// With `--from-history`, before any work: a repository without history to search is an error
/// (exit 2), a shallow clone's partial one a warning.
fn from_history(args: &MutantsArgs) -> anyhow::Result<FromHistory> {
    if !args.from_history {
        return Ok(FromHistory(false));
    }
    let dir = args
        .workspace
        .manifest_path
        .as_deref()
        .and_then(std::path::Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    match crate::operators::history::searchable(&dir) {
        Err(e) => anyhow::bail!(e),
        Ok(Some(warning)) => eprintln!("warning: {warning}"),
        Ok(None) => {}
    }
    Ok(FromHistory(true))
}

/// Print a mutants report and decide the exit code: 1 survivors, a failed guard or a score
/// under `--min-score`; 4 timeouts only; 0 otherwise.
fn print_mutants(
    args: &MutantsArgs,
    format: &FormatArgs,
    report: &crate::mutate::outcome::MutantsReport,
    root: &std::path::Path,
    output: &std::path::Path,
) -> Exit {
    match format.format {
        Format::Json => print!("{}", crate::report::mutants::json(report)),
        Format::Sarif => print!("{}", crate::report::sarif::mutants(report, root)),
        Format::Github => {
            let rows = crate::report::github::mutant_rows(report, root);
            if let Err(e) = step_summary("mutants", &rows) {
                eprintln!("warning: {e:#}");
            }
            print!("{}", crate::report::github::mutants(report, root))
        }
        Format::Human => print!(
            "{}",
            crate::report::mutants::human(report, root, output, style(format.color))
        ),
    }
    exit_code(&report.summary, args.min_score)
}

/// Write mutants.json, the mutation-testing-elements report and SARIF of survivors, into a
/// folder this tool created or marked (`merge --into` a foreign folder is refused).
fn write_output(output: &Path, report: &MutantsReport, root: &Path) -> anyhow::Result<()> {
    crate::mutate::output::claim(output)?;
    let write = |name: &str, text: String| crate::mutate::output::write_report(output, name, &text);
    write(REPORT_JSON, crate::report::mutants::json(report))?;
    write(
        ELEMENTS_JSON,
        crate::report::elements::report(&report.mutants, &report.skipped, root),
    )?;
    write(SARIF, crate::report::sarif::mutants(report, root))?;
    write(HTML, crate::report::html::report(report, root))?;
    for (name, ids) in crate::report::mutants::lists(report) {
        write(name, ids)?;
    }
    let mut texts = crate::source::Texts::new(root);
    for r in &report.mutants {
        let m = &r.mutant;
        if let Some(diff) = crate::report::mutants::diff(m, texts.get(&m.file)) {
            let name = format!("{}.diff", crate::mutate::engine::file_stem(&m.id));
            crate::mutate::output::write_diff(output, &name, &diff)?;
        }
    }
    Ok(())
}

/// The exit code of a finished run: 1 for survivors, uncovered mutants (no test can notice
/// them: holes, not passes), a guard not killed or a score under `min_score`; 4 for timeouts
/// alone; 0 otherwise.
fn exit_code(s: &Summary, min_score: Option<f64>) -> Exit {
    if s.survived > 0
        || s.uncovered > 0
        || !s.guards_failed.is_empty()
        || min_score.is_some_and(|min| s.score < min)
    {
        Exit::Findings
    } else if s.timeout > 0 {
        Exit::TimeoutsOnly
    } else {
        Exit::Clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_of_a_run() {
        let run = |killed, survived, timeout, uncovered, score| Summary {
            killed,
            survived,
            timeout,
            uncovered,
            score,
            ..Summary::default()
        };
        assert_eq!(exit_code(&run(0, 0, 0, 0, 100.0), None), Exit::Clean);
        assert_eq!(exit_code(&run(1, 0, 0, 0, 100.0), None), Exit::Clean);
        assert_eq!(exit_code(&run(1, 0, 1, 0, 100.0), None), Exit::TimeoutsOnly);
        assert_eq!(exit_code(&run(0, 1, 1, 0, 50.0), None), Exit::Findings);
        assert_eq!(exit_code(&run(2, 0, 0, 0, 100.0), Some(100.0)), Exit::Clean);
        assert_eq!(
            exit_code(&run(1, 1, 0, 0, 50.0), Some(40.0)),
            Exit::Findings
        );
        // Regression: a crate without tests reported "2 uncovered; score 0.0%" and exited 0.
        assert_eq!(exit_code(&run(0, 0, 0, 2, 0.0), None), Exit::Findings);
        let mut guard = run(0, 0, 0, 0, 100.0);
        guard.guards_failed.push("guard:x".into());
        assert_eq!(exit_code(&guard, None), Exit::Findings);
    }
}

//! The command line: `args` holds the clap definitions, which convert into the plain options
//! each job takes; this module dispatches and prints. Only this module and `main` decide the
//! exit code; analyses return data and errors.

use std::process::ExitCode;

use clap::Parser;

use crate::exit::Exit;

// Every `print!`/`println!` of this module goes through `out` (a `macro_rules!` shadows the
// prelude's from here down), so no print can panic on a closed or full stdout.
macro_rules! print {
    ($($arg:tt)*) => { $crate::cli::out(&format!($($arg)*)) };
}
macro_rules! println {
    ($($arg:tt)*) => { $crate::cli::out(&format!("{}\n", format_args!($($arg)*))) };
}

/// Write `text` to stdout, the one way the tool prints a result. A reader that went away
/// (`| head`, `| true`) ends the run quietly with exit 0, as for any Unix filter; any other write
/// error (`> /dev/full`: no space left) ends it with one message and exit 1. Either way nothing is
/// left to do: the report was the last step.
pub fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(Exit::Clean as i32);
        }
        eprintln!("error: cannot write the report to stdout: {e}");
        std::process::exit(Exit::Findings as i32);
    }
}

mod args;
pub mod measure;
pub use crate::report::{Color, Format, style, use_color};
pub use args::*;
pub use measure::MeasureArgs;

/// Parse the command line (dropping cargo's `capcheck` argument) and run.
pub fn main() -> ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "capcheck") {
        args.remove(1);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage.into()
            } else {
                Exit::Clean.into()
            };
        }
    };
    match run(cli) {
        Ok(code) => code.into(),
        Err(e) => {
            eprintln!("error: {e:#}");
            Exit::Usage.into()
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<Exit> {
    match cli.command {
        None => check(&cli.check),
        Some(Command::Check(args)) => check(&args),
        Some(Command::Init(args)) => init(&args),
        Some(Command::Measure(a)) => measure(a),
        Some(Command::Fixtures(args)) => fixtures(&args),
        Some(Command::Rules(f)) => rules(f.format),
        Some(Command::Explain { id }) => explain(&id),
        Some(Command::Mutants(args)) => mutants(&args),
        Some(Command::Completions { shell }) => completions(shell),
    }
}

/// `measure`: the report on stdout, exit 0; with `--format json` an error is also printed as a
/// JSON object on stdout before it ends the run (exit 2).
fn measure(args: MeasureArgs) -> anyhow::Result<Exit> {
    let manifest_path = args.manifest_path.clone();
    let opts = args.into_options();
    let json = opts.json;
    match crate::measure::run(opts, manifest_path.as_deref()) {
        Ok(measured) => {
            print!("{}", measured.report);
            Ok(Exit::Clean)
        }
        Err(e) => {
            if json {
                print!("{}", crate::measure::report::error_json(&e));
            }
            Err(e)
        }
    }
}

/// `completions SHELL`: the script clap_complete derives from the clap definitions, so every
/// subcommand and flag is in it. It completes the `cargo-capcheck` binary; cargo's own completion
/// does not reach into subcommands.
fn completions(shell: clap_complete::Shell) -> anyhow::Result<Exit> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    // `cargo capcheck` (the usage name) has a space, which the generators cannot name a
    // function after.
    let mut cmd = Cli::command().bin_name("cargo-capcheck");
    clap_complete::generate(shell, &mut cmd, "cargo-capcheck", &mut script);
    let mut script = String::from_utf8_lossy(&script).into_owned();
    if shell == clap_complete::Shell::Bash {
        // clap_complete's bash generator names a subcommand's branch after the binary with its
        // `-` turned into the subcommand separator (`cargo__subcmd__capcheck__subcmd__mutants`)
        // but dispatches to `cargo__capcheck__subcmd__mutants`: without this no subcommand's
        // flags would complete (`the_bash_completion_script_completes_subcommands_and_flags`).
        script = script.replace(
            "cargo__subcmd__capcheck__subcmd__",
            "cargo__capcheck__subcmd__",
        );
    }
    print!("{script}");
    Ok(Exit::Clean)
}

fn check(args: &CheckArgs) -> anyhow::Result<Exit> {
    let mut run = crate::check::run(&args.project(), &args.level_flags())?;
    let root = &run.project.workspace.root;
    let out = match args.format.format {
        Format::Json => crate::report::json::check(&run.findings, &run.summary),
        Format::Sarif => crate::report::sarif::check(&run.findings, root, &mut run.project.texts),
        Format::Github => {
            let rows = crate::report::github::check_rows(&run.findings, root);
            step_summary("check", &rows)?;
            crate::report::github::check(&run.findings, root)
        }
        Format::Human => crate::report::human::check(
            &run.findings,
            &run.summary,
            root,
            style(args.format.color),
            args.verbosity.level(),
        ),
    };
    print!("{out}");
    let errors = run
        .findings
        .iter()
        .any(|f| f.severity == crate::lint::registry::Level::Error);
    Ok(if errors { Exit::Findings } else { Exit::Clean })
}

/// With `--format github`, append the job's markdown summary to `$GITHUB_STEP_SUMMARY` when the
/// runner sets it: annotations are capped (10 errors per step), the summary is not.
fn step_summary(job: &str, rows: &[crate::report::github::Row]) -> anyhow::Result<()> {
    use anyhow::Context;
    use std::io::Write;
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let text = crate::report::github::step_summary(job, rows);
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .with_context(|| {
            format!(
                "cannot append to $GITHUB_STEP_SUMMARY ({})",
                path.to_string_lossy()
            )
        })
}

fn init(args: &InitArgs) -> anyhow::Result<Exit> {
    // A manifest that does not read is refused by `index`: the user's file is never half-written.
    let opts = crate::project::ProjectOptions {
        selection: args.workspace.selection(),
        capacity: args.capacity.clone(),
        full_parse: false,
    };
    let front = crate::manifest::init::front(&opts)?;
    let path = front.manifest_path;
    let existing = if front.manifest.is_some() {
        std::fs::read_to_string(&path)?
    } else {
        String::new()
    };
    let (text, added) = crate::manifest::init::add_unmeasured(&existing, &front.index.capacities)?;
    if added > 0 {
        crate::manifest::write_atomic(&path, &text)?;
    }
    eprintln!(
        "capcheck: {added} unmeasured capacit{} added to {}",
        if added == 1 { "y" } else { "ies" },
        path.display()
    );
    Ok(Exit::Clean)
}

/// `fixtures`: reports are information, so the exit code is 0 unless the input is bad.
fn fixtures(args: &FixturesArgs) -> anyhow::Result<Exit> {
    let opts = crate::project::ProjectOptions {
        selection: args.workspace.selection(),
        ..Default::default()
    };
    let needs = crate::project::Needs {
        fixtures: true,
        ..Default::default()
    };
    let project = crate::project::Project::load(&opts, needs)?;
    warn_skipped(&project.index);
    let ws = &project.workspace;
    let analysis = project.fixtures.unwrap_or_default();
    let out = match args.format.format {
        Format::Json => crate::report::fixtures::json(&analysis.reports),
        Format::Sarif => crate::report::sarif::fixtures(&analysis.reports, &ws.root),
        Format::Github => {
            let rows = crate::report::github::fixture_rows(&analysis.reports, &ws.root);
            step_summary("fixtures", &rows)?;
            crate::report::github::fixtures(&analysis.reports, &ws.root)
        }
        Format::Human => {
            crate::report::fixtures::human(&analysis, &ws.root, style(args.format.color))
        }
    };
    print!("{out}");
    Ok(Exit::Clean)
}

fn rules(format: Format) -> anyhow::Result<Exit> {
    let all = crate::lint::registry::all();
    match format {
        Format::Json | Format::Sarif => {
            let list: Vec<_> = all
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "id": r.id, "kind": r.kind, "level": r.level, "summary": r.summary
                    })
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&list)?);
        }
        Format::Human | Format::Github => {
            let width = all.iter().map(|r| r.id.len()).max().unwrap_or(0);
            for r in all {
                println!(
                    "{:width$}  {:8}  {:7}  {}",
                    r.id,
                    r.kind,
                    r.level.as_str(),
                    r.summary
                );
            }
        }
    }
    Ok(Exit::Clean)
}

fn explain(id: &str) -> anyhow::Result<Exit> {
    match crate::lint::registry::get(id) {
        Some(r) => {
            print!("{}", r.docs());
            Ok(Exit::Clean)
        }
        None => {
            let ids: Vec<_> = crate::lint::registry::all()
                .iter()
                .map(|r| r.id.as_str())
                .collect();
            anyhow::bail!(
                "unknown rule or operator `{id}` (known: {})",
                ids.join(", ")
            )
        }
    }
}

fn mutants(args: &MutantsArgs) -> anyhow::Result<Exit> {
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
        crate::mutate::job::write_output(&output, &report, &ws.root)?;
        crate::mutate::job::copy_logs(dirs, &output)?;
        return Ok(print_mutants(args, format, &report, &ws.root, &output));
    }
    let history = from_history(args)?;
    if args.list {
        let listed = crate::mutate::job::list(&args.options())?;
        stale_skips(&listed.skips);
        history.warn_unread();
        warn_skipped(&listed.index);
        match args.format.format {
            Format::Json | Format::Sarif => print!("{}", render::list_json(&listed.mutants)),
            Format::Human | Format::Github => print!(
                "{}",
                render::list_human(&listed.mutants, &listed.skips.skipped)
            ),
        }
        return Ok(Exit::Clean);
    }
    crate::mutate::process::install_interrupt_handler()?;
    let verbosity = args.verbosity.level();
    let progress = |e: Event| match e {
        _ if verbosity == crate::report::Verbosity::Quiet => {}
        Event::Baseline(b) => eprintln!(
            "baseline: ok, {} tests (build {:.1}s, test {:.1}s)",
            b.tests,
            b.build_ms as f64 / 1000.0,
            b.test_ms as f64 / 1000.0
        ),
        Event::Done {
            done,
            total,
            result,
        } => {
            eprintln!(
                "[{done}/{total}] {:9} {} ({:.1}s)",
                result.outcome.as_str(),
                result.mutant.id,
                result.duration_ms as f64 / 1000.0
            );
            if verbosity == crate::report::Verbosity::Verbose && !result.log.is_empty() {
                eprintln!("    log: {}", result.log);
            }
        }
    };
    let ran = crate::mutate::job::run(&args.options(), &progress);
    history.warn_unread();
    match ran {
        Ok(run) => Ok(print_mutants(
            args,
            &args.format,
            &run.report,
            &run.root,
            &run.output,
        )),
        Err(Stop::BaselineFailed { log, step }) => {
            eprintln!(
                "error: the unmutated baseline failed to {step}; nothing was mutated (log: {})",
                log.display()
            );
            Ok(Exit::BaselineFailed)
        }
        Err(Stop::Interrupted) => {
            eprintln!("interrupted: children killed, scratch copies removed");
            Ok(Exit::interrupted_by(crate::mutate::process::signal()))
        }
        Err(Stop::Error(e)) => Err(e),
    }
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

/// Jobs other than `check` (which reports them as `parse-error` findings) skip the files that
/// do not parse, or whose names are not UTF-8: say so, with where.
fn warn_skipped(index: &crate::index::Index) {
    for e in index.files.iter().filter_map(|f| f.parse_error.as_ref()) {
        eprintln!(
            "warning: {}:{}:{}: {}; the file was skipped",
            e.loc.file, e.loc.line, e.loc.column, e.message
        );
    }
}

/// Whether `--from-history` was asked for (and its repository checked).
struct FromHistory(bool);

impl FromHistory {
    /// Say which files' history `git log` could not show (their history mutants are missing).
    fn warn_unread(&self) {
        if self.0 {
            for (file, why) in crate::mutate::operators::history::unread() {
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
    match crate::mutate::operators::history::searchable(&dir) {
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
    report: &crate::report::mutants::MutantsReport,
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
    report.summary.exit(args.min_score)
}

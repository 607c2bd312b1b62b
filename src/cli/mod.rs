//! The command line: `args` holds the clap definitions, which convert into the plain options
//! each job takes; this module dispatches and prints. Only this module and `main` decide the
//! exit code; analyses return data and errors.

use std::process::ExitCode;

use clap::Parser;

use crate::cli::exit::Exit;

// Every `print!`/`println!`/`eprintln!` of this module and its submodules goes through `out` and
// `err` (each `macro_rules!` shadows the prelude's from here down), so no write can panic on a
// closed or full stream.
macro_rules! print {
    ($($arg:tt)*) => { $crate::cli::out(&format!($($arg)*)) };
}
macro_rules! println {
    ($($arg:tt)*) => { $crate::cli::out(&format!("{}\n", format_args!($($arg)*))) };
}
macro_rules! eprintln {
    ($($arg:tt)*) => { $crate::cli::err(&format!("{}\n", format_args!($($arg)*))) };
}

/// Set once stderr refused a line: the run ends with exit 2 (`Exit::Usage`), whatever else
/// happened, since a message (an error, a warning, a verdict) was lost.
static STDERR_LOST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Write `text` to stdout, the one way the tool prints a result. A reader that went away
/// (`| head`, `| true`) ends the run quietly with exit 0, as for any Unix filter; any other write
/// error (`> /dev/full`: no space left) ends it with one message and exit 2: the report was lost,
/// which is not a finding. Either way nothing is left to do: the report was the last step.
pub(crate) fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        if e.kind() == std::io::ErrorKind::BrokenPipe && !lost() {
            std::process::exit(Exit::Clean as i32);
        }
        err(&format!("error: cannot write the report to stdout: {e}\n"));
        std::process::exit(Exit::Usage as i32);
    }
}

/// Write `text` to stderr, the one way the tool says anything else (errors, warnings, progress).
/// A write that fails (`2> /dev/full`, a closed pipe) is remembered and asks a running job to
/// stop (`sys::process::request_stop`: `mutants` ends its children and removes its copies as
/// on a signal); the run then exits 2.
pub(crate) fn err(text: &str) {
    use std::io::Write;
    if lost() {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    if stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush())
        .is_err()
    {
        STDERR_LOST.store(true, std::sync::atomic::Ordering::SeqCst);
        crate::sys::process::request_stop();
    }
}

/// Whether a line to stderr was lost.
fn lost() -> bool {
    STDERR_LOST.load(std::sync::atomic::Ordering::SeqCst)
}

mod args;
pub(crate) mod exit;
pub(crate) mod measure;
mod mutants;
mod progress;
pub(crate) use crate::report::{Color, Format, style, use_color};
pub(crate) use args::*;
pub(crate) use measure::MeasureArgs;

/// Parse the command line (dropping cargo's `capcheck` argument) and run.
pub fn main() -> ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "capcheck") {
        args.remove(1);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            eprintln!("{}", clap_text(&e, std::io::stderr()).trim_end());
            return Exit::Usage.into();
        }
        // `--help`, `--version`: a result, on stdout.
        Err(e) => {
            print!("{}", clap_text(&e, std::io::stdout()));
            return Exit::Clean.into();
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            Exit::Usage
        }
    };
    // A lost message outranks what the run found: the user did not see all of it.
    if lost() { Exit::Usage } else { code }.into()
}

/// clap's message, styled only for a terminal (what `clap::Error::print` does, without its panic-free
/// but silent handling of a write error).
fn clap_text(e: &clap::Error, stream: impl std::io::IsTerminal) -> String {
    if stream.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) {
        e.render().ansi().to_string()
    } else {
        e.render().to_string()
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
        Some(Command::Mutants(args)) => mutants::mutants(&args),
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
        Ok(measured) if measured.failed.is_empty() => {
            print!("{}", measured.report);
            Ok(Exit::Clean)
        }
        Ok(measured) => {
            // Some boxes measured fine: their report is out; the run still fails, naming the
            // others.
            print!("{}", measured.report);
            for (name, why) in &measured.failed {
                eprintln!("error: box `{name}` did not start: {why}");
            }
            Ok(Exit::Usage)
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
        .any(|f| f.severity == crate::catalog::Level::Error);
    // The process ends next: its memory goes back whole, so the index's many small allocations
    // are not freed one by one (rustc and cargo end the same way).
    std::mem::forget(run);
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
    let opts = crate::project::ProjectOptions {
        selection: args.workspace.selection(),
        capacity: args.capacity.clone(),
        full_parse: false,
    };
    let done = crate::init::run(&opts)?;
    eprintln!(
        "capcheck: {} unmeasured capacit{} added to {}",
        done.added,
        if done.added == 1 { "y" } else { "ies" },
        done.path.display()
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
    let all = crate::catalog::meta::all();
    match format {
        Format::Sarif => anyhow::bail!(
            "`rules` prints `human` or `json`; SARIF lists the rules inside a report: `check \
             --format sarif`"
        ),
        Format::Json => {
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
    match crate::catalog::meta::get(id) {
        Some(r) => {
            print!("{}", r.docs());
            Ok(Exit::Clean)
        }
        None => {
            let ids: Vec<_> = crate::catalog::meta::all()
                .iter()
                .map(|r| r.id.as_str())
                .collect();
            // The closest id, as cargo and clap suggest a subcommand.
            let near = ids
                .iter()
                .map(|k| (strsim::jaro_winkler(id, k), *k))
                .filter(|(score, _)| *score > 0.8)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let hint = near.map_or(String::new(), |(_, k)| format!("; did you mean `{k}`?"));
            anyhow::bail!(
                "unknown rule or operator `{id}`{hint} (known: {})",
                ids.join(", ")
            )
        }
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

//! Command-line definitions (clap derive) and dispatch. Only this module and `main` decide the exit
//! code; analyses return data and errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::exit::Exit;

/// Cargo runs `cargo-capcheck capcheck ARGS`; run directly it is `cargo-capcheck ARGS`.
#[derive(Debug, Parser)]
#[command(
    name = "cargo-capcheck",
    bin_name = "cargo capcheck",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options of `check`, the default subcommand.
    #[command(flatten)]
    pub check: CheckArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Find hard-coded capacity constants and the test assertions that pin them (the default).
    Check(CheckArgs),
    /// Write a capacity.toml entry (method = "unmeasured") for every capacity not yet listed.
    Init(InitArgs),
    /// List the test fixtures whose values never vary along some field.
    Fixtures(FixturesArgs),
    /// List the rules and mutation operators.
    Rules(FormatArgs),
    /// Print the documentation of a rule or operator.
    Explain {
        /// A rule or operator id, e.g. `unmeasured-capacity`.
        id: String,
    },
    /// Read startup logs and /metrics scrapes; compute capacity, latency breakdown and waves.
    Measure(crate::measure::MeasureArgs),
    /// Mutate capacity logic in a scratch copy and report which mutants the tests miss.
    Mutants(Box<MutantsArgs>),
}

/// Which packages of the workspace to look at, in cargo's own words.
#[derive(Debug, Args, Clone, Default)]
pub struct WorkspaceArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH", global = true)]
    pub manifest_path: Option<PathBuf>,
    /// Package(s) to check.
    #[arg(short = 'p', long = "package", value_name = "SPEC", global = true)]
    pub packages: Vec<String>,
    /// Check every package of the workspace (the default for a virtual workspace).
    #[arg(long, global = true)]
    pub workspace: bool,
    /// Exclude package(s) (with --workspace).
    #[arg(long, value_name = "SPEC", global = true)]
    pub exclude: Vec<String>,
    /// Parse every item of every file. By default items that cannot hold a capacity (no
    /// capacity name, API, count or assertion literal) are skipped unparsed, which is about
    /// three times faster; this also reports syntax errors inside such items.
    #[arg(long, global = true)]
    pub full_parse: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct FormatArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human, global = true)]
    pub format: Format,
    /// Colour in human output.
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    pub color: Color,
}

#[derive(Debug, Args, Clone, Default)]
pub struct CheckArgs {
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    /// The capacity manifest (default: `capacity.toml` at the workspace root, if present).
    #[arg(long = "capacity", value_name = "PATH")]
    pub capacity: Option<PathBuf>,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Debug, Args, Clone, Default)]
pub struct InitArgs {
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    /// The manifest to create or extend (default: `capacity.toml` at the workspace root).
    #[arg(long = "capacity", value_name = "PATH")]
    pub capacity: Option<PathBuf>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct FixturesArgs {
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    #[command(flatten)]
    pub format: FormatArgs,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    #[default]
    Human,
    Json,
    /// GitHub Actions annotations (`check`, `mutants`, `fixtures`; others print human output).
    Github,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Color {
    #[default]
    Auto,
    Always,
    Never,
}

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
        Some(Command::Measure(a)) => crate::measure::run(
            a.into_options(),
            cli.check.workspace.manifest_path.as_deref(),
        ),
        Some(Command::Fixtures(args)) => fixtures(&args),
        Some(Command::Rules(f)) => rules(&f),
        Some(Command::Explain { id }) => explain(&id),
        Some(Command::Mutants(args)) => mutants(&args),
    }
}

/// Whether to colour human output.
pub fn use_color(c: Color) -> bool {
    use std::io::IsTerminal;
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

fn check(args: &CheckArgs) -> anyhow::Result<Exit> {
    let run = crate::check::run(args)?;
    let out = match args.format.format {
        Format::Json => crate::report::json::check(&run.findings, &run.summary),
        Format::Github => crate::report::github::check(&run.findings, &run.workspace.root),
        Format::Human => crate::report::human::check(
            &run.findings,
            &run.summary,
            &run.workspace.root,
            use_color(args.format.color),
        ),
    };
    print!("{out}");
    let errors = run
        .findings
        .iter()
        .any(|f| f.severity == crate::lint::registry::Level::Error);
    Ok(if errors { Exit::Findings } else { Exit::Clean })
}

fn init(args: &InitArgs) -> anyhow::Result<Exit> {
    // A manifest that does not read is refused by `index`: the user's file is never half-written.
    let front = crate::check::index(&args.workspace, args.capacity.as_deref())?;
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
    let ws = crate::workspace::discover(&args.workspace)?;
    let analysis = crate::diversity::analyse(&ws);
    let out = match args.format.format {
        Format::Json => crate::report::fixtures::json(&analysis.reports),
        Format::Github => crate::report::github::fixtures(&analysis.reports, &ws.root),
        Format::Human => {
            crate::report::fixtures::human(&analysis, &ws.root, use_color(args.format.color))
        }
    };
    print!("{out}");
    Ok(Exit::Clean)
}

fn rules(f: &FormatArgs) -> anyhow::Result<Exit> {
    let all = crate::lint::registry::all();
    match f.format {
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

// ---- mutants -------------------------------------------------------------------------------

/// Options of `mutants`.
#[derive(Debug, Args, Clone)]
pub struct MutantsArgs {
    #[command(subcommand)]
    pub command: Option<MutantsCommand>,
    #[command(flatten)]
    pub workspace: WorkspaceArgs,
    #[command(flatten)]
    pub format: FormatArgs,
    /// Print the mutants (ids, locations, replacements) without building anything.
    #[arg(long)]
    pub list: bool,
    /// Only mutants of this operator (repeatable); `cargo capcheck rules` lists them.
    #[arg(long = "operator", value_name = "ID")]
    pub operators: Vec<String>,
    /// Mutants tested at once, each in its own scratch copy and build folder.
    #[arg(short = 'j', long, default_value_t = 1, value_parser = clap::value_parser!(usize))]
    pub jobs: usize,
    /// What runs the tests.
    #[arg(long, value_enum, default_value_t = crate::mutate::engine::TestTool::Cargo)]
    pub test_tool: crate::mutate::engine::TestTool,
    /// Only mutants on lines this unified diff adds or changes.
    #[arg(long, value_name = "PATCH")]
    pub in_diff: Option<PathBuf>,
    /// Run shard K of N (0-based); `mutants merge` joins the shards' output folders.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::mutate::select::Shard>,
    /// Also put back code deleted from ceiling functions in the git history.
    #[arg(long)]
    pub from_history: bool,
    /// Output folder [default: <target>/capcheck/mutants].
    #[arg(long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Build folders of the scratch copies, kept warm between runs
    /// [default: <target>/capcheck/scratch-target].
    #[arg(long, value_name = "DIR")]
    pub build_dir: Option<PathBuf>,
    /// Where scratch copies of the workspace are made [default: the system temp folder].
    #[arg(long, value_name = "DIR")]
    pub scratch_dir: Option<PathBuf>,
    /// A mutant's build or tests time out after this many times the baseline's...
    #[arg(long, value_name = "K", default_value_t = 5.0)]
    pub timeout_multiplier: f64,
    /// ...but never sooner than this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 20.0)]
    pub timeout_floor: f64,
    /// Exit 1 when the score (detected / viable mutants, in percent) is below this.
    #[arg(long, value_name = "PERCENT")]
    pub min_score: Option<f64>,
    /// The workload's natural bound on concurrency (e.g. the roster size); default: capacity.toml's
    /// `[workload] natural_bound`.
    #[arg(long, value_name = "N")]
    pub natural_bound: Option<u64>,
    /// The measured per-box capacity K for `reinstate-cap`; default: capacity.toml's
    /// `[derived] per_box_capacity`, or its first `per = "backend"` entry.
    #[arg(long, value_name = "K")]
    pub per_box: Option<u64>,
    /// The capacity manifest (default: `capacity.toml` at the workspace root, if present).
    #[arg(long = "capacity", value_name = "PATH")]
    pub capacity: Option<PathBuf>,
}

#[derive(Debug, Subcommand, Clone)]
pub enum MutantsCommand {
    /// Join the output folders of `--shard` runs into one report, as one unsharded run would
    /// have written it.
    Merge {
        /// The shards' output folders.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
        /// Where to write the merged report [default: <target>/capcheck/mutants].
        #[arg(long = "into", value_name = "DIR")]
        into: Option<PathBuf>,
    },
}

fn mutants(args: &MutantsArgs) -> anyhow::Result<Exit> {
    use crate::mutate::engine::{Event, Stop};
    use crate::report::mutants as render;
    if let Some(MutantsCommand::Merge { dirs, into }) = &args.command {
        let report = crate::mutate::job::merge(dirs)?;
        let ws = crate::workspace::discover(&args.workspace)?;
        let output = into
            .clone()
            .unwrap_or_else(|| crate::mutate::job::default_output(&ws.target_dir));
        crate::mutate::job::write_output(&output, &report, &ws.root)?;
        crate::mutate::job::copy_logs(dirs, &output)?;
        return Ok(print_mutants(args, &report, &ws.root, &output));
    }
    if args.list {
        let listed = crate::mutate::job::list(args)?;
        match args.format.format {
            Format::Json => print!("{}", render::list_json(&listed.mutants)),
            Format::Human | Format::Github => print!("{}", render::list_human(&listed.mutants)),
        }
        return Ok(Exit::Clean);
    }
    if args.jobs == 0 {
        anyhow::bail!("--jobs must be at least 1");
    }
    crate::mutate::process::install_interrupt_handler()?;
    let progress = |e: Event| match e {
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
        } => eprintln!(
            "[{done}/{total}] {:9} {} ({:.1}s)",
            result.outcome.as_str(),
            result.mutant.id,
            result.duration_ms as f64 / 1000.0
        ),
    };
    match crate::mutate::job::run(args, &progress) {
        Ok(run) => Ok(print_mutants(args, &run.report, &run.root, &run.output)),
        Err(Stop::BaselineFailed { log, step }) => {
            eprintln!(
                "error: the unmutated baseline failed to {step}; nothing was mutated (log: {})",
                log.display()
            );
            Ok(Exit::BaselineFailed)
        }
        Err(Stop::Interrupted) => {
            eprintln!("interrupted: children killed, scratch copies removed");
            Ok(Exit::Interrupted)
        }
        Err(Stop::Error(e)) => Err(e),
    }
}

/// Print a mutants report and decide the exit code: 1 survivors, a failed guard or a score
/// under `--min-score`; 4 timeouts only; 0 otherwise.
fn print_mutants(
    args: &MutantsArgs,
    report: &crate::report::mutants::MutantsReport,
    root: &std::path::Path,
    output: &std::path::Path,
) -> Exit {
    match args.format.format {
        Format::Json => print!("{}", crate::report::mutants::json(report)),
        Format::Github => print!("{}", crate::report::github::mutants(report, root)),
        Format::Human => print!(
            "{}",
            crate::report::mutants::human(report, root, output, use_color(args.format.color))
        ),
    }
    report.summary.exit(args.min_score)
}

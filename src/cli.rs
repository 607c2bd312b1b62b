//! Command-line definitions (clap derive) and dispatch. Only this module and `main` decide the exit
//! code; analyses return data and errors.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::exit::Exit;

/// Cargo runs `cargo-capcheck capcheck ARGS`; run directly it is `cargo-capcheck ARGS`.
#[derive(Debug, Parser)]
#[command(name = "cargo-capcheck", bin_name = "cargo capcheck", version, about)]
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
        Some(Command::Measure(a)) => crate::measure::run(a, &cli.check.workspace),
        Some(Command::Fixtures(args)) => fixtures(&args),
        Some(Command::Rules(f)) => rules(&f),
        Some(Command::Explain { id }) => explain(&id),
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
    let (ws, config, index) = crate::check::index(&args.workspace)?;
    let path = crate::manifest::locate(
        &ws.root,
        args.capacity.as_deref(),
        config.manifest.as_deref(),
    );
    let existing = if path.exists() {
        // Refuse to extend a manifest that does not read: the user's file is never half-written.
        crate::manifest::load(&ws.root, &path, true)?;
        std::fs::read_to_string(&path)?
    } else {
        String::new()
    };
    let (text, added) = crate::manifest::init::add_unmeasured(&existing, &index.capacities)?;
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
        Format::Human => {
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

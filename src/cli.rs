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
        None => anyhow::bail!("check is not wired yet"),
        Some(Command::Measure(a)) => crate::measure::run(a, &cli.check.workspace),
        Some(_) => anyhow::bail!("not wired yet"),
    }
}

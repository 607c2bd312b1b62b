//! `cargo capcheck measure`: evidence in (startup logs, /metrics scrapes), numbers and the
//! capacity manifest out. Reading and arithmetic never print; [`report`] renders to text, [`run`]
//! prints it, and only [`write`] touches the filesystem, at the one path the user asked for.

pub mod capacity;
pub mod logs;
pub mod model;
pub mod prom;
pub mod report;
pub mod scrape;
pub mod signals;
pub mod window;
pub mod write;

use std::path::{Path, PathBuf};

use clap::Args;

use crate::cli::FormatArgs;
use crate::diag::{InputError, InputErrors};
use crate::exit::Exit;
use crate::workspace::Selection as WorkspaceArgs;
use capacity::BoxInput;
use model::{Options, WhatIf};

#[derive(Debug, Args, Clone, Default)]
pub struct MeasureArgs {
    /// A box's vLLM, SGLang or TGI startup log, once per box; NAME defaults to the file stem.
    #[arg(long = "log", value_name = "[NAME=]PATH")]
    pub logs: Vec<String>,
    /// A /metrics scrape taken at the start of the window (Prometheus text format).
    #[arg(long, value_name = "PATH", requires = "scrape_after")]
    pub scrape_before: Option<PathBuf>,
    /// A /metrics scrape taken at the end of the window; alone, the window is the server's life.
    #[arg(long, value_name = "PATH", conflicts_with = "scrape_url")]
    pub scrape_after: Option<PathBuf>,
    /// Scrape this /metrics endpoint twice, --window apart.
    #[arg(long, value_name = "URL", requires = "window")]
    pub scrape_url: Option<String>,
    /// The window between two scrapes, e.g. 15m, 900s, 200ms (with files: their distance).
    #[arg(long, value_name = "DURATION", value_parser = scrape::parse_duration)]
    pub window: Option<std::time::Duration>,
    /// How many requests the workload can have in flight at once (its natural bound).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub roster: Option<u64>,
    /// The most end-to-end latency can gain if a phase shrinks, e.g. prefill=-50%.
    #[arg(long = "what-if", value_name = "PHASE=-N%", value_parser = clap::value_parser!(WhatIfArg))]
    pub what_if: Vec<WhatIfArg>,
    /// Use this p90 prompt length (tokens) instead of the scrapes' histogram.
    #[arg(long, value_name = "N")]
    pub p90_prompt_tokens: Option<f64>,
    /// Create or update the capacity manifest (default: capacity.toml at the workspace root).
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    pub write: Option<Option<PathBuf>>,
    #[command(flatten)]
    pub format: FormatArgs,
}

/// clap wants `Clone + Send + Sync + 'static` values with a `FromStr` it can call.
#[derive(Debug, Clone, Copy)]
pub struct WhatIfArg(pub WhatIf);

impl std::str::FromStr for WhatIfArg {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        s.parse().map(WhatIfArg)
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
}

/// `[NAME=]PATH` into a name and a path.
fn split_log_arg(arg: &str) -> (String, PathBuf) {
    match arg.split_once('=') {
        Some((name, path)) if !name.is_empty() && !name.contains(['/', '\\']) => {
            (name.to_string(), PathBuf::from(path))
        }
        _ => {
            let path = PathBuf::from(arg);
            let stem = path
                .file_stem()
                .map_or_else(|| arg.to_string(), |s| s.to_string_lossy().into_owned());
            (stem, path)
        }
    }
}

fn read_logs(args: &[String], problems: &mut InputErrors) -> Vec<BoxInput> {
    let mut boxes: Vec<BoxInput> = Vec::new();
    for arg in args {
        let (name, path) = split_log_arg(arg);
        let shown = path.display().to_string();
        if boxes.iter().any(|b| b.name == name) {
            problems.unlocated.push(format!(
                "--log {arg}: a box named `{name}` was given twice; name them NAME=PATH"
            ));
            continue;
        }
        match read(&path).map(|text| logs::parse(&text)) {
            Ok(Ok(facts)) => boxes.push(BoxInput {
                name,
                path: shown,
                facts,
            }),
            Ok(Err(found)) => problems.files.push(InputError {
                file: shown,
                problems: found,
            }),
            Err(e) => problems.unlocated.push(e),
        }
    }
    boxes
}

fn parse_scrape(text: &str, shown: &str, problems: &mut InputErrors) -> Option<prom::Exposition> {
    match prom::parse(text) {
        Ok(e) => Some(e),
        Err(found) => {
            problems.files.push(InputError {
                file: shown.to_string(),
                problems: found,
            });
            None
        }
    }
}

/// Run `measure`: read, compute, render, and write the manifest when asked.
pub fn run(args: MeasureArgs, workspace: &WorkspaceArgs) -> anyhow::Result<Exit> {
    let mut problems = InputErrors::default();
    let boxes = read_logs(&args.logs, &mut problems);
    let mut window_s = args.window.map(|w| w.as_secs_f64());
    // (before text, after text, how the after scrape is cited)
    let texts: Option<(Option<String>, String, String)> = if let Some(url) = &args.scrape_url {
        let window = args.window.unwrap_or_default();
        let live = scrape::twice(url, window)?;
        window_s = Some(live.elapsed.as_secs_f64());
        Some((Some(live.before), live.after, url.clone()))
    } else if let Some(after) = &args.scrape_after {
        let before = args.scrape_before.as_deref().map(read).transpose();
        match (before, read(after)) {
            (Ok(b), Ok(a)) => Some((b, a, after.display().to_string())),
            (b, a) => {
                problems.unlocated.extend(b.err());
                problems.unlocated.extend(a.err());
                None
            }
        }
    } else {
        None
    };
    let mut expositions = None;
    if let Some((before, after, shown)) = &texts {
        let before_shown = args.scrape_before.as_ref().map_or_else(
            || format!("{shown} (first scrape)"),
            |p| p.display().to_string(),
        );
        let b = before
            .as_deref()
            .map(|t| parse_scrape(t, &before_shown, &mut problems));
        let a = parse_scrape(after, shown, &mut problems);
        expositions = a.map(|a| (b.flatten(), a));
    }
    if args.logs.is_empty() && texts.is_none() {
        problems.unlocated.push(
            "expected evidence: --log [NAME=]PATH, --scrape-after PATH or --scrape-url URL"
                .to_string(),
        );
    }
    problems.into_result()?;

    if window_s.is_none()
        && let Some((Some(b), a)) = &expositions
    {
        window_s = window::timestamp_span(b, a);
    }
    let signals = expositions.as_ref().map(|(b, a)| {
        let w = window::Window {
            before: b.as_ref(),
            after: a,
        };
        signals::read(&w)
    });
    let opts = Options {
        roster: args.roster,
        what_if: args.what_if.iter().map(|w| w.0).collect(),
        p90_prompt_tokens: args.p90_prompt_tokens,
        window_s,
    };
    let shown = texts.as_ref().map(|t| t.2.as_str()).unwrap_or_default();
    let mut m = capacity::compute(&boxes, signals.as_ref().map(|s| (s, shown)), &opts);
    let written = match &args.write {
        Some(path) => {
            let w = write::update(&write::target(path.as_deref(), workspace)?, &m, &opts)?;
            m.warnings.extend(w.warnings);
            Some(w.path)
        }
        None => None,
    };
    // The one print in `measure`, at its edge: cli's `run` only passes the exit code on.
    print!("{}", report::render(&m, written.as_deref(), &args.format));
    Ok(Exit::Clean)
}

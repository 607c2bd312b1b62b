//! `cargo capcheck measure`: evidence in (startup logs, /metrics scrapes), numbers and the
//! capacity manifest out. Reading and arithmetic never print; [`report`] renders to text, [`run`]
//! prints it, and only [`write`] touches the filesystem, at the one path the user asked for.
//! The engine takes plain [`Options`]; the command line lives in [`args`] alone.

pub(crate) mod boxes;
pub(crate) mod capacity;
pub(crate) mod check;
pub(crate) mod logs;
pub(crate) mod model;
pub(crate) mod prom;
pub(crate) mod prometheus;
pub(crate) mod report;
pub(crate) mod scrape;
pub(crate) mod signals;
pub(crate) mod window;
pub(crate) mod write;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::diag::{InputError, InputErrors, Problem};
use capacity::BoxInput;
use model::Settings;

/// Everything `measure` is asked to do, as plain data.
#[derive(Debug, Clone, Default)]
pub(crate) struct Options {
    /// `[NAME=]PATH` of each box's startup log.
    pub(crate) logs: Vec<String>,
    pub(crate) scrape_before: Option<PathBuf>,
    pub(crate) scrape_after: Option<PathBuf>,
    pub(crate) scrape_url: Option<String>,
    /// `--prometheus URL`: the window from a Prometheus server's HTTP API.
    pub(crate) prometheus: Option<String>,
    /// `--match {..}`: the selector every Prometheus query carries.
    pub(crate) match_selector: Option<String>,
    /// `--at`: the window's end, Unix seconds (default: now).
    pub(crate) at: Option<f64>,
    pub(crate) window: Option<Duration>,
    pub(crate) settings: Settings,
    /// `--write [PATH]`: `Some(None)` writes at the workspace's manifest path.
    pub(crate) write: Option<Option<PathBuf>>,
    /// `--bind SITE=EXPR`: bind these `[[capacity]]` entries when writing.
    pub(crate) bind: Vec<(String, String)>,
    pub(crate) json: bool,
    pub(crate) colour: bool,
}

fn read(path: &Path) -> Result<String, String> {
    // Never blocks on a FIFO, never reads a device: `--log`, `--scrape-before/after` name files.
    crate::sys::fs::read_text(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))
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
            Ok(Err(found)) => file_problems(problems, &shown, found),
            Err(e) => problems.unlocated.push(e),
        }
    }
    boxes
}

fn file_problems(problems: &mut InputErrors, file: &str, found: Vec<Problem>) {
    if !found.is_empty() {
        problems.files.push(InputError {
            file: file.to_string(),
            problems: found,
        });
    }
}

/// Parse one scrape and check it could be right; every problem goes to `problems`.
fn parse_scrape(text: &str, shown: &str, problems: &mut InputErrors) -> Option<prom::Exposition> {
    let found = prom::parse(text).and_then(|e| match check::exposition(&e) {
        p if p.is_empty() => Ok(e),
        p => Err(p),
    });
    match found {
        Ok(e) => Some(e),
        Err(found) => {
            file_problems(problems, shown, found);
            None
        }
    }
}

/// The two scrapes' texts: (before, after, how the after scrape is cited, window seconds).
type Texts = (Option<String>, String, String, Option<f64>);

/// Scrape the endpoint twice; the first answer is checked at once, so a wrong URL fails
/// before the window is waited out.
fn live(url: &str, window: Duration) -> anyhow::Result<Texts> {
    let check = |first: &str| {
        let mut problems = InputErrors::default();
        parse_scrape(first, &format!("{url} (first scrape)"), &mut problems);
        problems.into_result()
    };
    let live = scrape::twice(url, window, check)?;
    Ok((
        Some(live.before),
        live.after,
        url.to_string(),
        Some(live.elapsed.as_secs_f64()),
    ))
}

fn scrape_texts(opts: &Options, problems: &mut InputErrors) -> anyhow::Result<Option<Texts>> {
    let window_s = opts.window.map(|w| w.as_secs_f64());
    if let Some(url) = &opts.scrape_url {
        return live(url, opts.window.unwrap_or_default()).map(Some);
    }
    let Some(after) = &opts.scrape_after else {
        return Ok(None);
    };
    let before = opts.scrape_before.as_deref().map(read).transpose();
    Ok(match (before, read(after)) {
        (Ok(b), Ok(a)) => Some((b, a, after.display().to_string(), window_s)),
        (b, a) => {
            problems.unlocated.extend(b.err());
            problems.unlocated.extend(a.err());
            None
        }
    })
}

/// What a `measure` run gives back to the command line, which prints it and decides the exit
/// code.
#[derive(Debug)]
pub(crate) struct Measured {
    /// The rendered report (text or JSON, as asked).
    pub(crate) report: String,
    /// The boxes whose logs show a failed start while others measured fine, each with its
    /// server's failure line: the report is out, and the run still fails.
    pub(crate) failed: Vec<(String, String)>,
}

/// Run `measure`: read, compute, render, and write the manifest when asked. `manifest_path`
/// is `--manifest-path`, for `--write` without a path. It never prints: the report comes back
/// rendered, and an error as an error (`report::error_json` renders it for `--format json`).
pub(crate) fn run(opts: Options, manifest_path: Option<&Path>) -> anyhow::Result<Measured> {
    measure(opts, manifest_path)
}

/// Every box's log shows a failed start: refused like bad input, each at its failure line.
fn all_failed(boxes: &[BoxInput]) -> Option<InputErrors> {
    let failed = |b: &BoxInput| b.facts.failed.clone();
    if boxes.is_empty() || !boxes.iter().all(|b| failed(b).is_some()) {
        return None;
    }
    let mut problems = InputErrors::default();
    for b in boxes {
        if let Some(f) = failed(b) {
            problems.files.push(InputError {
                file: b.path.clone(),
                problems: vec![Problem::new(
                    f.line,
                    f.column,
                    format!(
                        "expected a server that started, found a failed start: {} (box `{}`)",
                        f.reason, b.name
                    ),
                )],
            });
        }
    }
    Some(problems)
}

/// The seconds since the Unix epoch now, for a Prometheus window that ends now.
fn now_s() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Pair each Prometheus instance with the log box it names; the windows, in instance order,
/// and what did not pair.
fn pair_windows(
    fleet: &prometheus::Fleet,
    boxes: &[BoxInput],
    warnings: &mut Vec<String>,
) -> Vec<model::BoxWindow> {
    let mut windows = Vec::new();
    let mut paired = Vec::new();
    for i in &fleet.instances {
        let b = boxes.iter().find(|b| prometheus::pairs(&i.name, &b.name));
        let name = b.map_or_else(|| i.name.clone(), |b| b.name.clone());
        if let Some(b) = b {
            paired.push(b.name.clone());
            let logged: u64 = b.facts.engines.iter().map(|e| e.value).sum();
            if let Some(k) = &i.signals.kv_cache_tokens
                && !b.facts.engines.is_empty()
                && k.value != logged
            {
                warnings.push(format!(
                    "instance `{}` exports {} KV cache tokens ({}), the log of `{}` says {logged}",
                    i.name, k.value, k.name, b.name
                ));
            }
        } else if !boxes.is_empty() {
            warnings.push(format!(
                "instance `{}` pairs with no --log (name a log after the instance or its host for its capacity)",
                i.name
            ));
        }
        windows.push(i.window(&name));
    }
    for b in boxes.iter().filter(|b| !paired.contains(&b.name)) {
        warnings.push(format!(
            "box `{}` pairs with no Prometheus instance (its name is not an instance, nor an instance's host): its window is not read",
            b.name
        ));
    }
    windows
}

fn measure(mut opts: Options, manifest_path: Option<&Path>) -> anyhow::Result<Measured> {
    // The manifest `--write` would change is checked before any evidence is read: a FIFO or a
    // device there is refused now, not after a scrape window.
    let target = match &opts.write {
        Some(path) => {
            let target = write::target(path.as_deref(), manifest_path)?;
            crate::sys::fs::check_writable(&target.path)?;
            write::check_binds(&target.path, &opts.bind)?;
            Some(target)
        }
        None => None,
    };
    let mut problems = InputErrors::default();
    let boxes = read_logs(&opts.logs, &mut problems);
    let texts = scrape_texts(&opts, &mut problems)?;
    let mut expositions = None;
    let mut window_warnings = Vec::new();
    if let Some((before, after, shown, _)) = &texts {
        let before_shown = opts.scrape_before.as_ref().map_or_else(
            || format!("{shown} (first scrape)"),
            |p| p.display().to_string(),
        );
        let b = before
            .as_deref()
            .map(|t| parse_scrape(t, &before_shown, &mut problems));
        let a = parse_scrape(after, shown, &mut problems);
        if let (Some(Some(b)), Some(a)) = (&b, &a) {
            let (found, warnings) = check::window(b, a);
            file_problems(&mut problems, shown, found);
            window_warnings = warnings;
        }
        expositions = a.map(|a| (b.flatten(), a));
    }
    let evidence = !opts.logs.is_empty() || texts.is_some() || opts.prometheus.is_some();
    // `--bind` alone binds with the numbers the manifest already holds.
    if !evidence && opts.bind.is_empty() {
        problems.unlocated.push(
            "expected evidence: --log [NAME=]PATH, --scrape-after PATH, --scrape-url URL or --prometheus URL"
                .to_string(),
        );
    }
    problems.into_result()?;
    if let Some(failed) = all_failed(&boxes) {
        return Err(failed.into());
    }
    let fleet = match &opts.prometheus {
        Some(url) => Some(prometheus::window(
            url,
            opts.window.unwrap_or_default(),
            opts.match_selector.as_deref(),
            opts.at.unwrap_or_else(now_s),
        )?),
        None => None,
    };

    let mut window_s = texts.as_ref().and_then(|t| t.3);
    if window_s.is_none()
        && let Some((Some(b), a)) = &expositions
    {
        window_s = window::timestamp_span(b, a);
    }
    let mut signals = expositions.as_ref().map(|(b, a)| {
        let w = window::Window {
            before: b.as_ref(),
            after: a,
        };
        let mut s = signals::read(&w);
        // A count of events in the window from a counter that reset is the count since the
        // restart, not the window's: not reported, rather than a figure that looks measured.
        if let Some(p) = &s.preemptions
            && w.reset(p.name)
        {
            window_warnings.push(format!(
                "preemptions are not reported: `{}` reset between the scrapes (a restart), so the window's count is unknown",
                p.name
            ));
            s.preemptions = None;
        }
        s
    });
    let mut shown = texts.as_ref().map(|t| t.2.clone()).unwrap_or_default();
    let mut windows = Vec::new();
    if let Some(f) = &fleet {
        window_s = Some(f.window_s);
        shown = f.cited.clone();
        windows = pair_windows(f, &boxes, &mut window_warnings);
        signals = signals::merge(&f.instances.iter().map(|i| &i.signals).collect::<Vec<_>>());
    }
    opts.settings.window_s = window_s;
    let mut m = capacity::compute(
        &boxes,
        signals.as_ref().map(|s| (s, shown.as_str())),
        &opts.settings,
    );
    if !evidence {
        // Nothing was measured: the report is the bindings alone.
        m = model::Measurement::default();
    }
    m.warnings.extend(window_warnings);
    m.windows = windows;
    let written = match &target {
        Some(target) => {
            // The evidence files as given: the manifest cites them relative to the workspace.
            let mut inputs: Vec<PathBuf> = opts.logs.iter().map(|a| split_log_arg(a).1).collect();
            inputs.extend(opts.scrape_before.iter().cloned());
            inputs.extend(opts.scrape_after.iter().cloned());
            let plan = write::Plan {
                target,
                binds: &opts.bind,
                inputs: &inputs,
            };
            let w = write::update(&plan, &m, &opts.settings)?;
            m.warnings.extend(w.warnings);
            m.bindings = Some(w.bindings);
            Some(w.path)
        }
        None => None,
    };
    // Some boxes may have failed while others measured fine: their report goes out, and the
    // run still fails, naming the others (`cli` says so and exits 2).
    let failed = m
        .boxes
        .iter()
        .filter(|b| !m.failed_boxes.is_empty() && !b.started)
        .map(|b| {
            let why = b
                .failure
                .as_deref()
                .unwrap_or("its log shows a failed start");
            (b.name.clone(), why.to_string())
        })
        .collect();
    Ok(Measured {
        report: report::render(&m, written.as_deref(), opts.json, opts.colour),
        failed,
    })
}

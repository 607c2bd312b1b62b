//! `cargo capcheck measure`'s command line: the clap derive and the value parsers, which check
//! every number when the flags are parsed (a bad one exits 2 before anything is read).
//! [`MeasureArgs::into_options`] hands the engine plain [`Options`]; `measure` knows no clap.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::cli::{Format, FormatArgs};
use crate::measure::Options;
use crate::measure::model::{Settings, WhatIf};

#[derive(Debug, Args, Clone, Default)]
pub(crate) struct MeasureArgs {
    /// The workspace's Cargo.toml, for `--write` to find the manifest (default: the current
    /// folder's workspace).
    #[arg(long, value_name = "PATH")]
    pub(crate) manifest_path: Option<PathBuf>,
    /// A box's vLLM, SGLang or TGI startup log, once per box; NAME defaults to the file stem.
    #[arg(long = "log", value_name = "[NAME=]PATH")]
    pub(crate) logs: Vec<String>,
    /// A /metrics scrape taken at the start of the window (Prometheus text format).
    #[arg(long, value_name = "PATH", requires = "scrape_after")]
    pub(crate) scrape_before: Option<PathBuf>,
    /// A /metrics scrape taken at the end of the window; alone, the window is the server's life.
    #[arg(long, value_name = "PATH", conflicts_with = "scrape_url")]
    pub(crate) scrape_after: Option<PathBuf>,
    /// Scrape this /metrics endpoint twice, --window apart.
    #[arg(long, value_name = "URL", requires = "window")]
    pub(crate) scrape_url: Option<String>,
    /// Read the window from this Prometheus server's HTTP API, per instance (a box). Credentials
    /// from CAPCHECK_PROMETHEUS_TOKEN (bearer) or CAPCHECK_PROMETHEUS_USER and _PASSWORD.
    #[arg(
        long,
        value_name = "URL",
        requires = "window",
        conflicts_with_all = ["scrape_url", "scrape_after", "scrape_before"]
    )]
    pub(crate) prometheus: Option<String>,
    /// With --prometheus: the series selector every query carries, e.g. '{job="vllm"}'.
    #[arg(long = "match", value_name = "SELECTOR", requires = "prometheus")]
    pub(crate) match_selector: Option<String>,
    /// With --prometheus: the window's end, Unix seconds or RFC 3339 (default: now).
    #[arg(long, value_name = "TIME", requires = "prometheus", value_parser = parse_at)]
    pub(crate) at: Option<f64>,
    /// The window between two scrapes, e.g. 15m, 900s, 200ms (with files: their distance), or
    /// the window Prometheus is asked about.
    #[arg(long, value_name = "DURATION", value_parser = parse_window)]
    pub(crate) window: Option<Duration>,
    /// How many requests the workload can have in flight at once (its natural bound).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) roster: Option<u64>,
    /// The most end-to-end latency can gain if a phase shrinks, e.g. prefill=-50%.
    #[arg(long = "what-if", value_name = "PHASE=-N%", value_parser = parse_what_if)]
    pub(crate) what_if: Vec<WhatIf>,
    /// Use this p90 prompt length (tokens, > 0) instead of the scrapes' histogram.
    #[arg(long, value_name = "N", value_parser = parse_p90)]
    pub(crate) p90_prompt_tokens: Option<f64>,
    /// Create or update the capacity manifest (default: capacity.toml at the workspace root).
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    pub(crate) write: Option<Option<PathBuf>>,
    /// With --write: bind the `[[capacity]]` entry of SITE to EXPR, a formula over the
    /// manifest's quantities (e.g. per_box_capacity), with `method = "measured"`. Once per site;
    /// unmeasured entries that fit a measured quantity are bound without it.
    #[arg(long, value_name = "SITE=EXPR", requires = "write", value_parser = parse_bind)]
    pub(crate) bind: Vec<(String, String)>,
    #[command(flatten)]
    pub(crate) format: FormatArgs,
}

/// `15m`, `900s`, `200ms`, `1h`, or a bare number of seconds; never zero.
fn parse_window(s: &str) -> Result<Duration, String> {
    let d = crate::measure::scrape::parse_duration(s)?;
    if d.is_zero() {
        return Err(format!(
            "expected a window longer than zero, like 15m or 900s, found `{s}`"
        ));
    }
    Ok(d)
}

/// A prompt length: a finite number of tokens above zero (`0`, `nan`, `inf` and `-5` are not).
fn parse_p90(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if p.is_finite() && p > 0.0 => Ok(p),
        _ => Err(format!(
            "expected a prompt length in tokens, a finite number above 0, found `{s}`"
        )),
    }
}

/// `SITE=EXPR`: a site a manifest entry can name and an expression that parses.
fn parse_bind(s: &str) -> Result<(String, String), String> {
    let Some((site, expr)) = s.split_once('=') else {
        return Err(format!(
            "expected SITE=EXPR, e.g. my_crate::PER_BACKEND=per_box_capacity, found `{s}`"
        ));
    };
    let (site, expr) = (site.trim(), expr.trim());
    crate::site::check_pattern(site)?;
    crate::manifest::eval::parse(expr)
        .map_err(|e| format!("in `{expr}` at {}: {}", e.offset + 1, e.message))?;
    Ok((site.to_string(), expr.to_string()))
}

fn parse_at(s: &str) -> Result<f64, String> {
    crate::measure::prometheus::client::parse_time(s)
}

fn parse_what_if(s: &str) -> Result<WhatIf, String> {
    s.parse()
}

impl MeasureArgs {
    /// The engine's plain options; colour is decided here, from `--color` and the terminal.
    pub(crate) fn into_options(self) -> Options {
        Options {
            logs: self.logs,
            scrape_before: self.scrape_before,
            scrape_after: self.scrape_after,
            scrape_url: self.scrape_url,
            prometheus: self.prometheus,
            match_selector: self.match_selector,
            at: self.at,
            window: self.window,
            settings: Settings {
                roster: self.roster,
                what_if: self.what_if,
                p90_prompt_tokens: self.p90_prompt_tokens,
                window_s: None,
            },
            write: self.write,
            bind: self.bind,
            json: self.format.format == Format::Json,
            colour: crate::cli::use_color(self.format.color),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_checked_when_parsed() {
        for bad in ["0", "nan", "inf", "-5", "-inf", "x"] {
            assert!(parse_p90(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_p90("1500"), Ok(1500.0));
        assert!(parse_window("0s").is_err());
        assert!(parse_window("0").is_err());
        assert_eq!(parse_window("15m"), Ok(Duration::from_secs(900)));
        assert!(parse_what_if("prefill=+50%").is_err());
        assert_eq!(
            parse_bind("c::PER_BACKEND = per_box_capacity"),
            Ok(("c::PER_BACKEND".into(), "per_box_capacity".into()))
        );
        for bad in ["c::X", "PER_BACKEND=per_box_capacity", "c::X=min(", "c::X="] {
            assert!(parse_bind(bad).is_err(), "{bad}");
        }
    }
}

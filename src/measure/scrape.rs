//! Live scraping: read one /metrics endpoint over plain HTTP, and wait out the window between
//! two reads (`measure` checks the first answer before it waits).
//!
//! No `Accept` header is sent: prometheus_client then answers in text format 0.0.4. Asked for
//! OpenMetrics it renames vLLM's samples. Ctrl-C during the wait ends the process by the default
//! signal action; nothing has been written by then.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `15m`, `900s`, `200ms`, `1h`, or a bare number of seconds.
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("expected a duration like 15m, 900s or 200ms, found `{s}`"))?;
    let seconds = match unit {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("expected a unit of ms, s, m or h, found `{unit}`")),
    };
    Duration::try_from_secs_f64(seconds)
        .map_err(|_| format!("expected a duration like 15m, 900s or 200ms, found `{s}`"))
}

/// Two scrapes and the time between them.
pub(crate) struct Live {
    pub(crate) before: String,
    pub(crate) after: String,
    pub(crate) elapsed: Duration,
}

/// Scrape `url`, hand the answer to `check` (an error there ends the run before any wait),
/// wait `window`, scrape again.
pub(crate) fn twice(
    url: &str,
    window: Duration,
    check: impl FnOnce(&str) -> anyhow::Result<()>,
) -> anyhow::Result<Live> {
    let agent = agent(true);
    let before = fetch(&agent, url)?;
    check(&before)?;
    let start = Instant::now();
    wait(window);
    let after = fetch(&agent, url)?;
    Ok(Live {
        before,
        after,
        elapsed: start.elapsed(),
    })
}

/// How long one HTTP exchange of `measure` may take in all: a scrape, a Prometheus query.
pub(crate) const TIMEOUT: Duration = Duration::from_secs(30);
/// The largest response body `measure` reads: a scrape, a Prometheus answer.
pub(crate) const MAX_BODY: u64 = 10 * 1024 * 1024;

/// An HTTP agent that sends no `Accept` header and gives up after [`TIMEOUT`]. With
/// `statuses_as_errors` false, a 4xx or 5xx answer is returned to read its body (Prometheus
/// says what was wrong with a query there).
pub(super) fn agent(statuses_as_errors: bool) -> ureq::Agent {
    let config = ureq::Agent::config_builder()
        .accept(ureq::config::AutoHeaderValue::None)
        .timeout_global(Some(TIMEOUT))
        .http_status_as_error(statuses_as_errors)
        .build();
    ureq::Agent::new_with_config(config)
}

/// A response's body as text, at most [`MAX_BODY`] bytes.
pub(super) fn body(
    response: &mut ureq::http::Response<ureq::Body>,
    url: &str,
) -> anyhow::Result<String> {
    response
        .body_mut()
        .with_config()
        .limit(MAX_BODY)
        .read_to_string()
        .with_context(|| {
            format!(
                "{url}: cannot read the response (at most {} MiB are read)",
                MAX_BODY / 1024 / 1024
            )
        })
}

/// One scrape's body.
fn fetch(agent: &ureq::Agent, url: &str) -> anyhow::Result<String> {
    let mut response = agent
        .get(url)
        .call()
        .with_context(|| format!("{url}: cannot scrape"))?;
    body(&mut response, url)
}

/// Wait `window`, with a progress bar on a terminal's stderr.
fn wait(window: Duration) {
    let start = Instant::now();
    let bar = ProgressBar::with_draw_target(
        Some(window.as_millis().try_into().unwrap_or(u64::MAX)),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "waiting for the second scrape {wide_bar} {elapsed}/{duration}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    while start.elapsed() < window {
        let left = window.saturating_sub(start.elapsed());
        std::thread::sleep(left.min(Duration::from_millis(100)));
        bar.set_position(start.elapsed().as_millis().try_into().unwrap_or(u64::MAX));
    }
    bar.finish_and_clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("15m"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_duration("900s"), Ok(Duration::from_secs(900)));
        assert_eq!(parse_duration("200ms"), Ok(Duration::from_millis(200)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5d").is_err());
    }
}

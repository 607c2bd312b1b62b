//! Prometheus' HTTP API, the part `measure` uses: instant queries (`/api/v1/query`) at one
//! evaluation time, with a bearer token or basic auth from the environment, the scrape path's
//! timeout and size cap, and every failure said with the query that met it. A parse error that
//! falls inside `--match` is located in it, at its column.

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use serde_json::Value;

use crate::diag::{InputError, Problem};
use crate::measure::scrape;

/// `Authorization: Bearer ...` from this variable.
pub(crate) const TOKEN_ENV: &str = "CAPCHECK_PROMETHEUS_TOKEN";
/// Basic auth from these two.
pub(crate) const USER_ENV: &str = "CAPCHECK_PROMETHEUS_USER";
pub(crate) const PASSWORD_ENV: &str = "CAPCHECK_PROMETHEUS_PASSWORD";

/// `--match`: a series selector in braces; its matchers join every query's own.
#[derive(Debug, Clone)]
pub(crate) struct Selector {
    given: String,
    inner: String,
}

impl Selector {
    /// `{job="vllm"}` (or nothing: every series). Anything not in braces is refused at column 1.
    pub(crate) fn parse(given: Option<&str>) -> Result<Selector, InputError> {
        let given = given.unwrap_or("").trim().to_string();
        if given.is_empty() {
            return Ok(Selector {
                given,
                inner: String::new(),
            });
        }
        let Some(inner) = given.strip_prefix('{').and_then(|g| g.strip_suffix('}')) else {
            return Err(InputError {
                file: "--match".into(),
                problems: vec![Problem::new(
                    1,
                    1,
                    format!(
                        "expected a series selector in braces, like {{job=\"vllm\"}}, found `{given}`"
                    ),
                )],
            });
        };
        Ok(Selector {
            inner: inner.trim().to_string(),
            given: given.clone(),
        })
    }

    /// `{extra,MATCHERS}`: the selector with one more matcher (or none).
    pub(crate) fn with(&self, extra: &str) -> String {
        match (extra.is_empty(), self.inner.is_empty()) {
            (_, true) => format!("{{{extra}}}"),
            (true, false) => format!("{{{}}}", self.inner),
            (false, false) => format!("{{{extra},{}}}", self.inner),
        }
    }

    pub(crate) fn shown(&self) -> &str {
        if self.given.is_empty() {
            "{}"
        } else {
            &self.given
        }
    }
}

/// One series of an instant vector.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub(crate) labels: BTreeMap<String, String>,
    pub(crate) value: f64,
}

impl Sample {
    pub(crate) fn label(&self, name: &str) -> &str {
        self.labels.get(name).map_or("", String::as_str)
    }
}

/// A Prometheus server, queried at one time.
pub(crate) struct Client {
    agent: ureq::Agent,
    api: String,
    pub(crate) url: String,
    auth: Option<String>,
    /// The evaluation time, Unix seconds.
    pub(crate) at: f64,
    pub(crate) selector: Selector,
}

impl Client {
    pub(crate) fn new(url: &str, selector: Selector, at: f64) -> anyhow::Result<Client> {
        let base = url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            bail!(
                "--prometheus `{url}`: expected an http:// or https:// URL of a Prometheus server"
            );
        }
        Ok(Client {
            agent: scrape::agent(false),
            api: format!("{base}/api/v1/query"),
            url: url.to_string(),
            auth: auth_header()?,
            at,
            selector,
        })
    }

    /// An instant query's vector. A scalar answer is one sample without labels.
    pub(crate) fn query(&self, promql: &str) -> anyhow::Result<Vec<Sample>> {
        let at = format!("{:.3}", self.at);
        let mut request = self
            .agent
            .get(&self.api)
            .query("query", promql)
            .query("time", &at);
        if let Some(a) = &self.auth {
            request = request.header("Authorization", a);
        }
        let place = || format!("{}: query `{promql}` at {at}", self.url);
        let mut response = request.call().with_context(place)?;
        let status = response.status().as_u16();
        let text = scrape::body(&mut response, &self.url)?;
        let json: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(_) => bail!(
                "{}: expected Prometheus' JSON answer (HTTP {status}), found `{}`: is this a Prometheus server's URL?",
                place(),
                text.chars().take(60).collect::<String>().trim()
            ),
        };
        if json["status"] != "success" {
            let error = json["error"].as_str().unwrap_or("no error message");
            if let Some(located) = self.in_selector(promql, error) {
                return Err(located.into());
            }
            let hint = match status {
                401 | 403 => format!(
                    " (set {TOKEN_ENV}, or {USER_ENV} and {PASSWORD_ENV}, for a server that asks for credentials)"
                ),
                _ => String::new(),
            };
            bail!(
                "{}: HTTP {status}, {}: {error}{hint}",
                place(),
                json["errorType"].as_str().unwrap_or("error")
            );
        }
        samples(&json["data"]).with_context(place)
    }

    /// A parse error whose position falls inside `--match`, located there.
    fn in_selector(&self, promql: &str, error: &str) -> Option<InputError> {
        let inner = &self.selector.inner;
        if inner.is_empty() {
            return None;
        }
        let at = regex::Regex::new(r"(\d+):(\d+): parse error: (.*)").ok()?;
        let c = at.captures(error)?;
        let column: usize = c[2].parse().ok()?;
        let start = promql.find(inner.as_str())?;
        let offset = column.checked_sub(start + 1)?;
        if offset > inner.len() {
            return None;
        }
        let lead = self.selector.given.find(inner.as_str())?;
        Some(InputError {
            file: "--match".into(),
            problems: vec![Problem::new(
                1,
                lead + offset + 1,
                format!("{} (Prometheus, in the query `{promql}`)", &c[3]),
            )],
        })
    }
}

/// The samples of a `vector` or `scalar` result.
fn samples(data: &Value) -> anyhow::Result<Vec<Sample>> {
    let value = |v: &Value| -> anyhow::Result<f64> {
        let text = v
            .get(1)
            .and_then(Value::as_str)
            .context("expected a [time, \"value\"] pair")?;
        text.parse::<f64>()
            .with_context(|| format!("expected a number, found `{text}`"))
    };
    match data["resultType"].as_str() {
        Some("vector") => data["result"]
            .as_array()
            .context("expected a result list")?
            .iter()
            .map(|r| {
                let labels = r["metric"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(Sample {
                    labels,
                    value: value(&r["value"])?,
                })
            })
            .collect(),
        Some("scalar") => Ok(vec![Sample {
            labels: BTreeMap::new(),
            value: value(&data["result"])?,
        }]),
        other => bail!(
            "expected an instant vector, found a {}",
            other.unwrap_or("no")
        ),
    }
}

/// The `Authorization` header the environment asks for: a bearer token, or basic auth; both
/// at once is refused.
fn auth_header() -> anyhow::Result<Option<String>> {
    let get = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (get(TOKEN_ENV), get(USER_ENV), get(PASSWORD_ENV)) {
        (Some(_), Some(_), _) => bail!(
            "both {TOKEN_ENV} and {USER_ENV} are set: expected a bearer token or basic auth, not both"
        ),
        (Some(t), None, _) => Ok(Some(format!("Bearer {t}"))),
        (None, Some(u), p) => Ok(Some(format!(
            "Basic {}",
            base64(format!("{u}:{}", p.unwrap_or_default()).as_bytes())
        ))),
        (None, None, Some(_)) => bail!("{PASSWORD_ENV} is set without {USER_ENV}"),
        (None, None, None) => Ok(None),
    }
}

/// Standard base64 with padding (RFC 4648), for basic auth.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `--at`: Unix seconds (`1764500000`, `1764500000.5`) or RFC 3339
/// (`2026-11-30T12:00:00Z`, `2026-11-30T13:00:00.25+01:00`).
pub(crate) fn parse_time(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let expected = || {
        format!("expected a time as Unix seconds or RFC 3339 (2026-11-30T12:00:00Z), found `{s}`")
    };
    if let Ok(t) = s.parse::<f64>() {
        return (t.is_finite() && t >= 0.0)
            .then_some(t)
            .ok_or_else(expected);
    }
    let re = regex::Regex::new(
        r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$",
    )
    .map_err(|e| e.to_string())?;
    let c = re.captures(s).ok_or_else(expected)?;
    let n = |i: usize| c[i].parse::<i64>().unwrap_or(0);
    let (y, mo, d, h, mi, sec) = (n(1), n(2), n(3), n(4), n(5), n(6));
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return Err(expected());
    }
    let frac = c
        .get(7)
        .map_or(0.0, |m| m.as_str().parse::<f64>().unwrap_or(0.0));
    let zone = &c[8];
    let offset = if zone.eq_ignore_ascii_case("z") {
        0
    } else {
        let sign = if zone.starts_with('-') { -1 } else { 1 };
        let hh: i64 = zone[1..3].parse().unwrap_or(0);
        let mm: i64 = zone[4..6].parse().unwrap_or(0);
        sign * (hh * 3600 + mm * 60)
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Ok(secs as f64 + frac)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_both_spellings() {
        assert_eq!(parse_time("1764500000"), Ok(1_764_500_000.0));
        assert_eq!(parse_time("1970-01-01T00:00:00Z"), Ok(0.0));
        assert_eq!(parse_time("2026-11-30T12:00:00Z"), Ok(1_796_040_000.0));
        assert_eq!(
            parse_time("2026-11-30T13:00:00.5+01:00"),
            Ok(1_796_040_000.5)
        );
        for bad in ["soon", "2026-13-01T00:00:00Z", "-5", "2026-11-30"] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn base64_pads_as_rfc_4648_says() {
        assert_eq!(base64(b"user:pass"), "dXNlcjpwYXNz");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b""), "");
    }

    #[test]
    fn selectors_join_and_locate() {
        let s = Selector::parse(Some("{job=\"vllm\"}")).unwrap();
        assert_eq!(
            s.with("__name__=~\"vllm:.+\""),
            "{__name__=~\"vllm:.+\",job=\"vllm\"}"
        );
        assert_eq!(s.with(""), "{job=\"vllm\"}");
        assert_eq!(Selector::parse(None).unwrap().with(""), "{}");
        let e = Selector::parse(Some("job=\"vllm\"")).unwrap_err();
        assert_eq!((e.problems[0].line, e.problems[0].column), (1, 1));
    }
}

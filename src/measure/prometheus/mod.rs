//! `measure --prometheus URL --window W [--match SELECTOR] [--at TIME]`: a fleet's window
//! straight from Prometheus, per instance (a box). Each histogram is the increase of its
//! buckets, `_sum` and `_count` over the window (`sum by (instance, le) (increase(..[W]))`, as
//! `histogram_quantile` wants it), counters their increase, gauges their true peak
//! (`max_over_time`, every sample, not two readings). A counter reset in the window is refused,
//! as two scrapes from two server lives are: the window would mix two lives.

pub(crate) mod client;

use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::bail;

use super::logs::ServerKind;
use super::signals::{Located, Signals, names};
use super::window::Histogram;
use client::{Client, Sample};

/// One instance's window.
pub(crate) struct Instance {
    /// Its `instance` label.
    pub(crate) name: String,
    pub(crate) signals: Signals,
}

/// Every instance's window, and how the window was asked for.
pub(crate) struct Fleet {
    pub(crate) instances: Vec<Instance>,
    pub(crate) window_s: f64,
    /// How figures are cited: the server, the time and the window.
    pub(crate) cited: String,
}

/// The servers whose metrics are looked for, with their metric names' prefix (as a regex).
const KINDS: [(ServerKind, &str); 3] = [
    (ServerKind::Vllm, "vllm:.+"),
    (ServerKind::Sglang, "sglang:.+"),
    (ServerKind::Tgi, "tgi_.+"),
];

/// Per instance, the value of each query's answer.
type PerInstance<T> = BTreeMap<String, T>;

struct Reader<'a> {
    client: &'a Client,
    range: String,
}

impl Reader<'_> {
    fn selector(&self, name: &str) -> String {
        format!("{name}{}{}", self.client.selector.with(""), self.range)
    }

    fn by_instance(&self, promql: &str) -> anyhow::Result<PerInstance<f64>> {
        Ok(self
            .client
            .query(promql)?
            .into_iter()
            .map(|s| (s.label("instance").to_string(), s.value))
            .collect())
    }

    fn increase(&self, name: &str) -> anyhow::Result<PerInstance<f64>> {
        self.by_instance(&format!(
            "sum by (instance) (increase({}))",
            self.selector(name)
        ))
    }

    fn peak(&self, name: &str) -> anyhow::Result<PerInstance<f64>> {
        self.by_instance(&format!(
            "max by (instance) (max_over_time({}))",
            self.selector(name)
        ))
    }

    fn histogram(&self, name: &str) -> anyhow::Result<PerInstance<Histogram>> {
        let buckets: Vec<Sample> = self.client.query(&format!(
            "sum by (instance, le) (increase({}))",
            self.selector(&format!("{name}_bucket"))
        ))?;
        let sums = self.increase(&format!("{name}_sum"))?;
        let counts = self.increase(&format!("{name}_count"))?;
        let mut out: PerInstance<Histogram> = BTreeMap::new();
        let blank = || Histogram {
            buckets: Vec::new(),
            sum: None,
            count: None,
            lines: Vec::new(),
        };
        for s in buckets {
            let Ok(le) = s.label("le").parse::<f64>() else {
                continue;
            };
            let h = out
                .entry(s.label("instance").to_string())
                .or_insert_with(blank);
            h.buckets.push((le, s.value));
        }
        for (i, v) in sums {
            out.entry(i).or_insert_with(blank).sum = Some(v);
        }
        for (i, v) in counts {
            out.entry(i).or_insert_with(blank).count = Some(v);
        }
        Ok(out)
    }

    /// For each instance, the first of `names` with an answer.
    fn first<T: Clone>(
        &self,
        names: &'static [&'static str],
        instances: &[String],
        get: impl Fn(&str) -> anyhow::Result<PerInstance<T>>,
    ) -> anyhow::Result<PerInstance<Located<T>>> {
        let mut out: PerInstance<Located<T>> = BTreeMap::new();
        for &name in names {
            if instances.iter().all(|i| out.contains_key(i)) {
                break;
            }
            for (i, value) in get(name)? {
                if instances.contains(&i) && !out.contains_key(&i) {
                    out.insert(
                        i,
                        Located {
                            value,
                            name,
                            lines: Vec::new(),
                        },
                    );
                }
            }
        }
        Ok(out)
    }

    /// Refuse a window in which a counter went down on some instance: the box restarted.
    fn no_resets(&self, counters: &[&str], instances: &[String]) -> anyhow::Result<()> {
        let mut found = Vec::new();
        for name in counters {
            let promql = format!("sum by (instance) (resets({}))", self.selector(name));
            for (i, n) in self.by_instance(&promql)? {
                if n > 0.0 && instances.contains(&i) {
                    found.push(format!(
                        "instance `{i}`: `{name}` was reset {n} time{} (query `{promql}`)",
                        if n == 1.0 { "" } else { "s" }
                    ));
                }
            }
        }
        if !found.is_empty() {
            bail!(
                "{} at {:.3}: expected one server life per box in the window, found counter resets (a restart): {}; pick a window inside one life with --at and --window",
                self.client.url,
                self.client.at,
                found.join("; ")
            );
        }
        Ok(())
    }

    /// KV cache tokens the instances export: vLLM's `cache_config_info` labels, summed over
    /// engines; SGLang's `max_total_num_tokens` gauge.
    fn kv_tokens(&self, kind: ServerKind) -> anyhow::Result<PerInstance<Located<u64>>> {
        let mut out: PerInstance<Located<u64>> = BTreeMap::new();
        let (name, promql) = match kind {
            ServerKind::Vllm => (
                "vllm:cache_config_info",
                format!(
                    "last_over_time({})",
                    self.selector("vllm:cache_config_info")
                ),
            ),
            ServerKind::Sglang => (
                "sglang:max_total_num_tokens",
                format!(
                    "max by (instance) (last_over_time({}))",
                    self.selector("sglang:max_total_num_tokens")
                ),
            ),
            ServerKind::Tgi => return Ok(out),
        };
        for s in self.client.query(&promql)? {
            let n = |k: &str| s.label(k).parse::<u64>().ok();
            let tokens = if kind == ServerKind::Vllm {
                n("kv_cache_size_tokens")
                    .or_else(|| Some(n("num_gpu_blocks")?.saturating_mul(n("block_size")?)))
            } else {
                (s.value.is_finite() && s.value >= 0.0).then_some(s.value as u64)
            };
            if let Some(t) = tokens {
                let slot = out
                    .entry(s.label("instance").to_string())
                    .or_insert(Located {
                        value: 0,
                        name,
                        lines: Vec::new(),
                    });
                slot.value = slot.value.saturating_add(t);
            }
        }
        Ok(out)
    }
}

/// The instances whose series match, by server: one query per server at the window's end.
fn discover(r: &Reader) -> anyhow::Result<Vec<(String, ServerKind)>> {
    let mut found: Vec<(String, ServerKind)> = Vec::new();
    for (kind, pattern) in KINDS {
        // An instant selection (Prometheus' lookback before the window's end): a range
        // function would drop the metric names and leave series with equal labels.
        let promql = format!(
            "count by (instance) ({})",
            r.client.selector.with(&format!("__name__=~\"{pattern}\""))
        );
        for (i, _) in r.by_instance(&promql)? {
            if !found.iter().any(|(f, _)| *f == i) {
                found.push((i, kind));
            }
        }
    }
    Ok(found)
}

/// Read the window ending at `at` (Unix seconds) from the server at `url`.
pub(crate) fn window(
    url: &str,
    window: Duration,
    selector: Option<&str>,
    at: f64,
) -> anyhow::Result<Fleet> {
    let client = Client::new(url, client::Selector::parse(selector)?, at)?;
    let r = Reader {
        client: &client,
        range: format!("[{}ms]", window.as_millis()),
    };
    let found = discover(&r)?;
    if found.is_empty() {
        bail!(
            "{url}: no series named vllm:*, sglang:* or tgi_* match {} at {at:.3}: expected a server's metrics (check --match and --at)",
            client.selector.shown(),
        );
    }
    let mut instances = Vec::new();
    for (kind, _) in KINDS {
        let of_kind: Vec<String> = found
            .iter()
            .filter(|(_, k)| *k == kind)
            .map(|(i, _)| i.clone())
            .collect();
        if !of_kind.is_empty() {
            instances.extend(read_kind(&r, kind, &of_kind)?);
        }
    }
    Ok(Fleet {
        instances,
        window_s: window.as_secs_f64(),
        cited: format!("{url} at {at:.3}, window {} s", window.as_secs_f64()),
    })
}

/// Every signal of the instances of one server.
fn read_kind(r: &Reader, kind: ServerKind, of_kind: &[String]) -> anyhow::Result<Vec<Instance>> {
    let n = names(kind);
    let hist = |names| r.first(names, of_kind, |m| r.histogram(m));
    let counter = |names| r.first(names, of_kind, |m| r.increase(m));
    let peak = |names| r.first(names, of_kind, |m| r.peak(m));
    let mut queue = hist(n.queue)?;
    let mut prefill = hist(n.prefill)?;
    let mut decode = hist(n.decode)?;
    let mut e2e = hist(n.e2e)?;
    let mut prompt = hist(n.prompt)?;
    let mut preemptions = counter(n.preemptions)?;
    let mut hits = counter(n.prefix_hits)?;
    let mut queries = counter(n.prefix_queries)?;
    let mut prompt_tokens = counter(n.prompt_tokens)?;
    let mut requests = counter(n.requests)?;
    let mut kv_usage = peak(n.kv_usage)?;
    let mut waiting = peak(n.waiting)?;
    let mut kv_tokens = r.kv_tokens(kind)?;

    // Every counter read, once: a reset in any of them is a restart.
    let mut counters: Vec<String> = Vec::new();
    for h in [&queue, &prefill, &decode, &e2e, &prompt] {
        counters.extend(h.values().map(|l| format!("{}_count", l.name)));
    }
    for c in [&preemptions, &hits, &queries, &prompt_tokens, &requests] {
        counters.extend(c.values().map(|l| l.name.to_string()));
    }
    counters.sort();
    counters.dedup();
    r.no_resets(
        &counters.iter().map(String::as_str).collect::<Vec<_>>(),
        of_kind,
    )?;

    let mut out = Vec::new();
    for i in of_kind {
        let (h, q) = (hits.remove(i), queries.remove(i));
        let prefix_counts = h.as_ref().zip(q.as_ref()).map(|(h, q)| (h.value, q.value));
        let prefix_hit_rate = h.zip(q).and_then(|(h, q)| {
            (q.value > 0.0).then(|| Located {
                value: h.value / q.value,
                name: h.name,
                lines: Vec::new(),
            })
        });
        let prompt_totals = prompt_tokens
            .remove(i)
            .zip(requests.remove(i))
            .map(|(t, r)| Located {
                value: (t.value, r.value),
                name: t.name,
                lines: Vec::new(),
            });
        out.push(Instance {
            name: i.clone(),
            signals: Signals {
                kind,
                windowed: true,
                true_peak: true,
                queue: queue.remove(i),
                prefill: prefill.remove(i),
                decode: decode.remove(i),
                e2e: e2e.remove(i),
                prompt: prompt.remove(i),
                preemptions: preemptions.remove(i),
                kv_usage_peak: kv_usage.remove(i),
                waiting_peak: waiting.remove(i),
                prefix_hit_rate,
                prefix_counts,
                prompt_totals,
                kv_cache_tokens: kv_tokens.remove(i),
            },
        });
    }
    Ok(out)
}

impl Instance {
    /// This instance's window as a report: each histogram's quantiles and mean, the latency
    /// breakdown, the peaks and counts. `name` is the box it pairs with.
    pub(crate) fn window(&self, name: &str) -> super::model::BoxWindow {
        let s = &self.signals;
        let mut histograms = BTreeMap::new();
        for (key, h) in [
            ("queue", &s.queue),
            ("prefill", &s.prefill),
            ("decode", &s.decode),
            ("e2e", &s.e2e),
            ("prompt", &s.prompt),
        ] {
            if let Some(h) = h {
                let q = |p| h.value.quantile(p);
                histograms.insert(
                    key,
                    super::model::Quantiles {
                        p50: q(0.5).map(|q| q.value),
                        p90: q(0.9).map(|q| q.value),
                        p99: q(0.99).map(|q| q.value),
                        p90_is_lower_bound: q(0.9).is_some_and(|q| q.lower_bound),
                        mean: h.value.mean(),
                        observations: h.value.observations(),
                    },
                );
            }
        }
        let requests = [&s.e2e, &s.queue, &s.prompt]
            .into_iter()
            .flatten()
            .find_map(|h| h.value.observations());
        super::model::BoxWindow {
            instance: self.name.clone(),
            name: name.to_string(),
            server: s.kind,
            histograms,
            breakdown: super::capacity::breakdown(s),
            requests,
            preemptions: s.preemptions.as_ref().map(|p| p.value),
            kv_usage_peak: s.kv_usage_peak.as_ref().map(|p| p.value),
            waiting_peak: s.waiting_peak.as_ref().map(|p| p.value),
            prompt_mean_tokens: s.prompt_mean(),
            scrape_kv_cache_tokens: s.kv_cache_tokens.as_ref().map(|k| k.value),
        }
    }
}

/// The log box an instance pairs with: its name is the instance, the instance's host (without
/// the port), or the host's first label (`box-a` for `box-a.example.com:8000`).
pub(crate) fn pairs(instance: &str, name: &str) -> bool {
    let host = instance
        .rsplit_once(':')
        .filter(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
        .map_or(instance, |(h, _)| h);
    name == instance || name == host || host.split('.').next() == Some(name)
}

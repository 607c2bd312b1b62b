//! The signals `measure` reads from a window, under each server's own metric names: the phase
//! histograms, the prompt length (or, where a server exports no histogram of it, its mean),
//! preemptions, KV usage, the waiting queue and prefix-cache hits. Two scrapes fill them here
//! ([`read`]); Prometheus fills the same struct per instance (`prometheus`), and [`merge`]
//! adds instances up into a fleet.

use super::logs::ServerKind;
use super::prom::Exposition;
use super::window::{Histogram, Window};

/// Metric names of one server, newest first where versions renamed them.
pub(crate) struct Names {
    pub(crate) queue: &'static [&'static str],
    pub(crate) prefill: &'static [&'static str],
    pub(crate) decode: &'static [&'static str],
    pub(crate) e2e: &'static [&'static str],
    pub(crate) prompt: &'static [&'static str],
    pub(crate) preemptions: &'static [&'static str],
    pub(crate) kv_usage: &'static [&'static str],
    /// The waiting queue's length, a gauge.
    pub(crate) waiting: &'static [&'static str],
    pub(crate) prefix_hits: &'static [&'static str],
    pub(crate) prefix_queries: &'static [&'static str],
    /// A gauge already holding the hit rate, for servers without the two counters.
    pub(crate) prefix_hit_rate: &'static [&'static str],
    /// Prompt tokens and finished requests, counters: their ratio is the mean prompt, the
    /// estimate where no prompt histogram is exported (SGLang without its opt-in histogram).
    pub(crate) prompt_tokens: &'static [&'static str],
    pub(crate) requests: &'static [&'static str],
}

const VLLM: Names = Names {
    queue: &["vllm:request_queue_time_seconds"],
    prefill: &["vllm:request_prefill_time_seconds"],
    decode: &["vllm:request_decode_time_seconds"],
    e2e: &["vllm:e2e_request_latency_seconds"],
    prompt: &["vllm:request_prompt_tokens"],
    preemptions: &["vllm:num_preemptions_total", "vllm:num_preemption_total"],
    kv_usage: &["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
    waiting: &["vllm:num_requests_waiting"],
    prefix_hits: &[
        "vllm:prefix_cache_hits_total",
        "vllm:gpu_prefix_cache_hits_total",
    ],
    prefix_queries: &[
        "vllm:prefix_cache_queries_total",
        "vllm:gpu_prefix_cache_queries_total",
    ],
    prefix_hit_rate: &["vllm:gpu_prefix_cache_hit_rate"],
    prompt_tokens: &["vllm:prompt_tokens_total"],
    requests: &["vllm:request_success_total"],
};

const SGLANG: Names = Names {
    queue: &["sglang:queue_time_seconds"],
    prefill: &[],
    decode: &[],
    e2e: &["sglang:e2e_request_latency_seconds"],
    prompt: &["sglang:prompt_tokens_histogram"],
    preemptions: &["sglang:num_retracted_reqs_total"],
    kv_usage: &["sglang:token_usage"],
    waiting: &["sglang:num_queue_reqs"],
    prefix_hits: &[],
    prefix_queries: &[],
    prefix_hit_rate: &["sglang:cache_hit_rate"],
    prompt_tokens: &["sglang:prompt_tokens_total"],
    requests: &["sglang:num_requests_total"],
};

const TGI: Names = Names {
    queue: &["tgi_request_queue_duration"],
    prefill: &[],
    decode: &[],
    e2e: &["tgi_request_duration"],
    prompt: &["tgi_request_input_length"],
    preemptions: &[],
    kv_usage: &[],
    waiting: &["tgi_queue_size"],
    prefix_hits: &[],
    prefix_queries: &[],
    prefix_hit_rate: &[],
    prompt_tokens: &[],
    requests: &["tgi_request_success"],
};

/// A server's metric names.
pub(crate) fn names(kind: ServerKind) -> &'static Names {
    match kind {
        ServerKind::Vllm => &VLLM,
        ServerKind::Sglang => &SGLANG,
        ServerKind::Tgi => &TGI,
    }
}

/// A value and the scrape lines it came from.
#[derive(Debug, Clone)]
pub(crate) struct Located<T> {
    pub(crate) value: T,
    pub(crate) name: &'static str,
    pub(crate) lines: Vec<usize>,
}

/// What a window of scrapes says.
#[derive(Debug, Clone)]
pub(crate) struct Signals {
    pub(crate) kind: ServerKind,
    /// False when there was only the `after` scrape: totals since the server started.
    pub(crate) windowed: bool,
    /// True when the gauges' peaks are every sample's maximum (Prometheus' `max_over_time`),
    /// not the larger of two readings.
    pub(crate) true_peak: bool,
    pub(crate) queue: Option<Located<Histogram>>,
    pub(crate) prefill: Option<Located<Histogram>>,
    pub(crate) decode: Option<Located<Histogram>>,
    pub(crate) e2e: Option<Located<Histogram>>,
    pub(crate) prompt: Option<Located<Histogram>>,
    pub(crate) preemptions: Option<Located<f64>>,
    /// The larger KV usage gauge reading of the two scrapes (0..1).
    pub(crate) kv_usage_peak: Option<Located<f64>>,
    /// The waiting queue's peak, read as the KV usage's.
    pub(crate) waiting_peak: Option<Located<f64>>,
    pub(crate) prefix_hit_rate: Option<Located<f64>>,
    /// Prefix-cache hits and queries in the window, when counted (for a fleet's rate).
    pub(crate) prefix_counts: Option<(f64, f64)>,
    /// Prompt tokens and finished requests in the window: the mean prompt.
    pub(crate) prompt_totals: Option<Located<(f64, f64)>>,
    /// KV cache tokens the server exports, summed over engines.
    pub(crate) kv_cache_tokens: Option<Located<u64>>,
}

/// The server kind from the metric names' prefix; vLLM when nothing says otherwise.
pub(crate) fn detect(e: &Exposition) -> ServerKind {
    let has = |p: &str| e.samples.iter().any(|s| s.name.starts_with(p));
    if has("sglang:") {
        ServerKind::Sglang
    } else if has("tgi_") {
        ServerKind::Tgi
    } else {
        ServerKind::Vllm
    }
}

fn first<T>(
    names: &'static [&'static str],
    get: impl Fn(&str) -> Option<(T, Vec<usize>)>,
) -> Option<Located<T>> {
    names
        .iter()
        .find_map(|&name| get(name).map(|(value, lines)| Located { value, name, lines }))
}

pub(crate) fn read(w: &Window) -> Signals {
    let kind = detect(w.after);
    let n = names(kind);
    let hist = |names| first(names, |m| w.histogram(m).map(|h| (h.clone(), h.lines)));
    let counter = |names| first(names, |m| w.counter(m));
    let gauge = |names| first(names, |m| w.gauge_max(m).map(|(v, l)| (v, vec![l])));
    let counts = (counter(n.prefix_hits), counter(n.prefix_queries));
    let prefix_counts = match &counts {
        (Some(h), Some(q)) => Some((h.value, q.value)),
        _ => None,
    };
    let prefix_hit_rate = match counts {
        (Some(h), Some(q)) if q.value > 0.0 => Some(Located {
            value: h.value / q.value,
            name: h.name,
            lines: [h.lines, q.lines].concat(),
        }),
        _ => first(n.prefix_hit_rate, |m| {
            let s = w.after.samples.iter().find(|s| s.name == m)?;
            Some((s.value, vec![s.line]))
        }),
    };
    let prompt_totals = match (counter(n.prompt_tokens), counter(n.requests)) {
        (Some(t), Some(r)) => Some(Located {
            value: (t.value, r.value),
            name: t.name,
            lines: [t.lines, r.lines].concat(),
        }),
        _ => None,
    };
    Signals {
        kind,
        windowed: w.before.is_some(),
        true_peak: false,
        queue: hist(n.queue),
        prefill: hist(n.prefill),
        decode: hist(n.decode),
        e2e: hist(n.e2e),
        prompt: hist(n.prompt),
        preemptions: counter(n.preemptions),
        kv_usage_peak: gauge(n.kv_usage),
        waiting_peak: gauge(n.waiting),
        prefix_hit_rate,
        prefix_counts,
        prompt_totals,
        kv_cache_tokens: kv_cache_tokens(w.after),
    }
}

impl Signals {
    /// The mean prompt in tokens: prompt tokens over finished requests in the window.
    pub(crate) fn prompt_mean(&self) -> Option<f64> {
        self.prompt_totals
            .as_ref()
            .and_then(|t| (t.value.1 > 0.0).then(|| t.value.0 / t.value.1))
    }
}

/// Histograms added up by bucket bound (PromQL's `sum by (le)`), for a fleet.
fn merge_hist(parts: &[Option<&Located<Histogram>>]) -> Option<Located<Histogram>> {
    let present: Vec<&Located<Histogram>> = parts.iter().flatten().copied().collect();
    let first = present.first()?;
    let mut buckets: Vec<(f64, f64)> = Vec::new();
    let add = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    let (mut sum, mut count) = (None, None);
    for h in &present {
        for &(le, c) in &h.value.buckets {
            match buckets.iter_mut().find(|(u, _)| *u == le) {
                Some(b) => b.1 += c,
                None => buckets.push((le, c)),
            }
        }
        sum = add(sum, h.value.sum);
        count = add(count, h.value.count);
    }
    Some(Located {
        value: Histogram {
            buckets,
            sum,
            count,
            lines: Vec::new(),
        },
        name: first.name,
        lines: Vec::new(),
    })
}

fn merge_by<T: Copy>(parts: &[Option<&Located<T>>], fold: fn(T, T) -> T) -> Option<Located<T>> {
    let mut present = parts.iter().flatten();
    let first = present.next()?;
    let value = present.fold(first.value, |acc, p| fold(acc, p.value));
    Some(Located {
        value,
        name: first.name,
        lines: Vec::new(),
    })
}

/// A fleet's signals from its instances': histograms and counters added up, gauges' peaks the
/// largest, the prefix hit rate from the summed counts. `None` for no instance.
pub(crate) fn merge(parts: &[&Signals]) -> Option<Signals> {
    let first = parts.first()?;
    let hist = |get: fn(&Signals) -> &Option<Located<Histogram>>| {
        merge_hist(&parts.iter().map(|s| get(s).as_ref()).collect::<Vec<_>>())
    };
    let each = |get: fn(&Signals) -> &Option<Located<f64>>| {
        parts.iter().map(|s| get(s).as_ref()).collect::<Vec<_>>()
    };
    let counts = parts
        .iter()
        .map(|s| s.prefix_counts)
        .try_fold((0.0, 0.0), |acc, c| c.map(|c| (acc.0 + c.0, acc.1 + c.1)));
    let prefix_hit_rate = match counts {
        Some((h, q)) if q > 0.0 => Some(Located {
            value: h / q,
            name: first.prefix_hit_rate.as_ref().map_or("", |p| p.name),
            lines: Vec::new(),
        }),
        _ if parts.len() == 1 => first.prefix_hit_rate.clone(),
        _ => None,
    };
    Some(Signals {
        kind: first.kind,
        windowed: first.windowed,
        true_peak: parts.iter().all(|s| s.true_peak),
        queue: hist(|s| &s.queue),
        prefill: hist(|s| &s.prefill),
        decode: hist(|s| &s.decode),
        e2e: hist(|s| &s.e2e),
        prompt: hist(|s| &s.prompt),
        preemptions: merge_by(&each(|s| &s.preemptions), |a, b| a + b),
        kv_usage_peak: merge_by(&each(|s| &s.kv_usage_peak), f64::max),
        waiting_peak: merge_by(&each(|s| &s.waiting_peak), f64::max),
        prefix_hit_rate,
        prefix_counts: counts,
        prompt_totals: merge_by(
            &parts
                .iter()
                .map(|s| s.prompt_totals.as_ref())
                .collect::<Vec<_>>(),
            |a, b| (a.0 + b.0, a.1 + b.1),
        ),
        kv_cache_tokens: merge_by(
            &parts
                .iter()
                .map(|s| s.kv_cache_tokens.as_ref())
                .collect::<Vec<_>>(),
            |a, b| a + b,
        ),
    })
}

/// vLLM's `cache_config_info` labels (`kv_cache_size_tokens`, or `num_gpu_blocks` x
/// `block_size`) summed over engines; SGLang's `max_total_num_tokens` gauge.
fn kv_cache_tokens(e: &Exposition) -> Option<Located<u64>> {
    let mut total = None;
    let mut lines = Vec::new();
    let mut name = "vllm:cache_config_info";
    for s in &e.samples {
        let tokens = if s.name == "vllm:cache_config_info" {
            let n = |k| s.label(k).and_then(|v| v.parse::<u64>().ok());
            n("kv_cache_size_tokens")
                .or_else(|| Some(n("num_gpu_blocks")?.saturating_mul(n("block_size")?)))
        } else if s.name == "sglang:max_total_num_tokens"
            && s.label("tp_rank").is_none_or(|r| r == "0")
            && s.value.is_finite()
            && s.value >= 0.0
        {
            // Every tensor-parallel rank reports the same pool; count it once.
            name = "sglang:max_total_num_tokens";
            Some(s.value as u64)
        } else {
            None
        };
        if let Some(t) = tokens {
            *total.get_or_insert(0u64) += t;
            lines.push(s.line);
        }
    }
    total.map(|value| Located { value, name, lines })
}

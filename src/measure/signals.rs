//! The signals `measure` reads from a scrape window, under each server's own metric names:
//! the phase histograms, the prompt length, preemptions, KV usage and prefix-cache hits.

use super::logs::ServerKind;
use super::prom::Exposition;
use super::window::{Histogram, Window};

/// Metric names of one server, newest first where versions renamed them.
struct Names {
    queue: &'static [&'static str],
    prefill: &'static [&'static str],
    decode: &'static [&'static str],
    e2e: &'static [&'static str],
    prompt: &'static [&'static str],
    preemptions: &'static [&'static str],
    kv_usage: &'static [&'static str],
    prefix_hits: &'static [&'static str],
    prefix_queries: &'static [&'static str],
    /// A gauge already holding the hit rate, for servers without the two counters.
    prefix_hit_rate: &'static [&'static str],
}

const VLLM: Names = Names {
    queue: &["vllm:request_queue_time_seconds"],
    prefill: &["vllm:request_prefill_time_seconds"],
    decode: &["vllm:request_decode_time_seconds"],
    e2e: &["vllm:e2e_request_latency_seconds"],
    prompt: &["vllm:request_prompt_tokens"],
    preemptions: &["vllm:num_preemptions_total", "vllm:num_preemption_total"],
    kv_usage: &["vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc"],
    prefix_hits: &[
        "vllm:prefix_cache_hits_total",
        "vllm:gpu_prefix_cache_hits_total",
    ],
    prefix_queries: &[
        "vllm:prefix_cache_queries_total",
        "vllm:gpu_prefix_cache_queries_total",
    ],
    prefix_hit_rate: &["vllm:gpu_prefix_cache_hit_rate"],
};

const SGLANG: Names = Names {
    queue: &["sglang:queue_time_seconds"],
    prefill: &[],
    decode: &[],
    e2e: &["sglang:e2e_request_latency_seconds"],
    prompt: &["sglang:prompt_tokens_histogram"],
    preemptions: &["sglang:num_retracted_reqs_total"],
    kv_usage: &["sglang:token_usage"],
    prefix_hits: &[],
    prefix_queries: &[],
    prefix_hit_rate: &["sglang:cache_hit_rate"],
};

const TGI: Names = Names {
    queue: &["tgi_request_queue_duration"],
    prefill: &[],
    decode: &[],
    e2e: &["tgi_request_duration"],
    prompt: &["tgi_request_input_length"],
    preemptions: &[],
    kv_usage: &[],
    prefix_hits: &[],
    prefix_queries: &[],
    prefix_hit_rate: &[],
};

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
    /// False when there was only the `after` scrape: totals since the server started.
    pub(crate) windowed: bool,
    pub(crate) queue: Option<Located<Histogram>>,
    pub(crate) prefill: Option<Located<Histogram>>,
    pub(crate) decode: Option<Located<Histogram>>,
    pub(crate) e2e: Option<Located<Histogram>>,
    pub(crate) prompt: Option<Located<Histogram>>,
    pub(crate) preemptions: Option<Located<f64>>,
    /// The larger KV usage gauge reading of the two scrapes (0..1).
    pub(crate) kv_usage_peak: Option<Located<f64>>,
    pub(crate) prefix_hit_rate: Option<Located<f64>>,
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
    let n = match kind {
        ServerKind::Vllm => &VLLM,
        ServerKind::Sglang => &SGLANG,
        ServerKind::Tgi => &TGI,
    };
    let hist = |names| first(names, |m| w.histogram(m).map(|h| (h.clone(), h.lines)));
    let counter = |names| first(names, |m| w.counter(m));
    let gauge = |names| first(names, |m| w.gauge_max(m).map(|(v, l)| (v, vec![l])));
    let prefix_hit_rate = match (counter(n.prefix_hits), counter(n.prefix_queries)) {
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
    Signals {
        windowed: w.before.is_some(),
        queue: hist(n.queue),
        prefill: hist(n.prefill),
        decode: hist(n.decode),
        e2e: hist(n.e2e),
        prompt: hist(n.prompt),
        preemptions: counter(n.preemptions),
        kv_usage_peak: gauge(n.kv_usage),
        prefix_hit_rate,
        kv_cache_tokens: kv_cache_tokens(w.after),
    }
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

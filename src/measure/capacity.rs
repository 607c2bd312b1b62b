//! The arithmetic (seed article, sections 3 and 4) over the evidence, into a [`Measurement`]:
//! per engine = min(floor(KV tokens / p90 prompt), max_num_seqs), summed per box and fleet;
//! the pessimistic floor KV / max_model_len; the latency breakdown of means; waves; what-ifs.

use std::collections::BTreeMap;

use super::logs::{LogFacts, Read, ServerKind};
use super::model::{
    BoxReport, Breakdown, Measurement, Options, Phase, Roster, WhatIf, WhatIfReport,
};
use super::signals::{Located, Signals};
use super::window::Histogram;

/// vLLM's `max_num_seqs` when the user did not set it. Recent versions use 1024 for the API
/// server on H100/H200 and 256 elsewhere; the log does not say which GPU ran, so the smaller,
/// safer value is assumed and the report says it was not measured.
pub const VLLM_DEFAULT_MAX_NUM_SEQS: u64 = 256;
/// TGI's default `--max-concurrent-requests`.
pub const TGI_DEFAULT_MAX_CONCURRENT: u64 = 128;

/// One box: a name and the startup log that describes it.
pub struct BoxInput {
    pub name: String,
    pub path: String,
    pub facts: LogFacts,
}

/// `path:line`, or `path:first-last` for a value read from several lines.
pub fn locate(path: &str, lines: &[usize]) -> String {
    match (lines.iter().min(), lines.iter().max()) {
        (Some(a), Some(b)) if a != b => format!("{path}:{a}-{b}"),
        (Some(a), _) => format!("{path}:{a}"),
        _ => path.to_string(),
    }
}

fn mean(h: &Option<Located<Histogram>>) -> Option<f64> {
    h.as_ref().and_then(|h| h.value.mean())
}

/// Compute the measurement. `scrape` is the window's signals and the path they are cited by.
pub fn compute(
    boxes: &[BoxInput],
    scrape: Option<(&Signals, &str)>,
    opts: &Options,
) -> Measurement {
    let mut warnings = Vec::new();
    let mut sources = BTreeMap::new();
    let signals = scrape.map(|s| s.0);
    let cite = |lines: &[usize]| locate(scrape.map_or("", |s| s.1), lines);

    let (p90, lower_bound) = match (
        opts.p90_prompt_tokens,
        signals.and_then(|s| s.prompt.as_ref()),
    ) {
        (Some(p), _) => {
            sources.insert("p90_prompt_tokens".into(), "--p90-prompt-tokens".into());
            (Some(p), false)
        }
        (None, Some(h)) => match h.value.quantile(0.9) {
            Some(q) => {
                sources.insert("p90_prompt_tokens".into(), cite(&h.lines));
                (Some(q.value), q.lower_bound)
            }
            None => (None, false),
        },
        (None, None) => (None, false),
    };
    if p90.is_none() {
        warnings.push("no p90 prompt length (no prompt-token histogram with requests in the window, and no --p90-prompt-tokens): capacity is not computed".to_string());
    }
    if lower_bound {
        warnings.push(format!(
            "the p90 prompt length fell in the +Inf bucket: {} tokens is the highest finite bucket bound, a lower bound on the true p90, so the capacity is an upper bound",
            p90.unwrap_or_default()
        ));
    }

    let reports: Vec<BoxReport> = boxes
        .iter()
        .map(|b| box_report(b, p90, &mut warnings, &mut sources))
        .collect();
    let capacities: Option<Vec<u64>> = reports.iter().map(|b| b.capacity).collect();
    let floors: Option<Vec<u64>> = reports.iter().map(|b| b.pessimistic_floor).collect();
    let nonempty = |v: Option<Vec<u64>>| v.filter(|v| !v.is_empty());
    let capacities = nonempty(capacities);
    let floors = nonempty(floors);
    let fleet_capacity = capacities.as_ref().map(|c| c.iter().sum::<u64>());
    let per_box_capacity = capacities.as_ref().and_then(|c| c.iter().min().copied());
    // The smallest box decides the per-box value: it rests on a guess only when every box at
    // that minimum does. One guessed box is enough to make the fleet's sum a guess.
    let per_box_capacity_assumed = per_box_capacity.is_some_and(|min| {
        reports
            .iter()
            .filter(|b| b.capacity == Some(min))
            .all(|b| b.capacity_assumed)
    });
    let fleet_capacity_assumed =
        fleet_capacity.is_some() && reports.iter().any(|b| b.capacity_assumed);

    if let (Some(s), [only]) = (signals, reports.as_slice())
        && let Some(kv) = &s.kv_cache_tokens
        && kv.value != only.kv_cache_tokens
    {
        warnings.push(format!(
            "the scrape's {} says {} KV cache tokens, the log of `{}` says {}",
            kv.name, kv.value, only.name, only.kv_cache_tokens
        ));
    }

    let queue = signals.and_then(|s| s.queue.as_ref());
    let queue_p50 = queue.and_then(|q| q.value.quantile(0.5)).map(|q| q.value);
    let queue_p90 = queue.and_then(|q| q.value.quantile(0.9)).map(|q| q.value);
    if let (Some(p50), Some(p90)) = (queue_p50, queue_p90)
        && p90 > 0.0
        && p90 >= 10.0 * p50
    {
        warnings.push(format!(
            "queue time p90 ({p90:.3} s) is at least 10x its p50 ({p50:.3} s): bursts are being chopped into waves, look for a concurrency cap below the burst size"
        ));
    }
    if let Some(q) = queue {
        sources.insert("queue_p50_s".into(), cite(&q.lines));
    }

    if let Some(s) = signals {
        let located = [
            ("queue_p90_s", &s.queue),
            ("breakdown.queue_s", &s.queue),
            ("breakdown.prefill_s", &s.prefill),
            ("breakdown.decode_s", &s.decode),
            ("breakdown.e2e_s", &s.e2e),
        ];
        for (key, h) in located {
            if let Some(h) = h {
                sources.insert(key.into(), cite(&h.lines));
            }
        }
        for (key, v) in [
            ("preemptions", &s.preemptions),
            ("prefix_cache_hit_rate", &s.prefix_hit_rate),
        ] {
            if let Some(v) = v {
                sources.insert(key.into(), cite(&v.lines));
            }
        }
    }
    let breakdown = signals.and_then(breakdown);
    if signals.is_some() && breakdown.is_none() {
        warnings.push(
            "no queue/prefill/decode histograms with requests in the window: no latency breakdown"
                .to_string(),
        );
    }
    let what_if = breakdown
        .as_ref()
        .map_or_else(Vec::new, |b| what_ifs(b, &opts.what_if));
    if breakdown.is_none() && !opts.what_if.is_empty() {
        warnings.push(
            "--what-if needs the latency breakdown, which these scrapes cannot give".to_string(),
        );
    }

    let kv_usage_peak = signals.and_then(|s| s.kv_usage_peak.as_ref());
    if let Some(k) = kv_usage_peak {
        sources.insert("kv_usage_peak".into(), cite(&k.lines));
        warnings.push(if signals.is_some_and(|s| s.windowed) {
            "the KV usage peak is the larger of two gauge readings (one per scrape), not the true peak of the window".to_string()
        } else {
            "the KV usage is one gauge reading, not a peak".to_string()
        });
    }
    let roster = opts.roster.map(|size| Roster {
        size,
        waves: fleet_capacity.filter(|&c| c > 0).map(|c| size.div_ceil(c)),
        cap_never_reached: fleet_capacity.is_some_and(|c| c >= size),
    });
    let requests = signals.and_then(|s| {
        let h = [&s.e2e, &s.queue, &s.prompt]
            .into_iter()
            .flatten()
            .find(|h| h.value.observations().is_some())?;
        sources.insert("requests".into(), cite(&h.lines));
        h.value.observations()
    });
    let window_s = opts.window_s;
    match signals.map(|s| s.windowed) {
        Some(true) if window_s.is_none() => warnings.push(
            "the window's length is unknown: pass --window with the time between the two scrapes"
                .to_string(),
        ),
        Some(false) => warnings.push(
            "only one scrape: every number covers the server's whole life, not a window"
                .to_string(),
        ),
        _ => {}
    }

    Measurement {
        p90_prompt_tokens: p90,
        p90_prompt_is_lower_bound: lower_bound,
        per_box_capacity,
        per_box_capacity_assumed,
        fleet_capacity,
        fleet_capacity_assumed,
        pessimistic_floor: floors.as_ref().and_then(|f| f.iter().min().copied()),
        fleet_pessimistic_floor: floors.map(|f| f.iter().sum()),
        boxes: reports,
        breakdown,
        queue_p50_s: queue_p50,
        queue_p90_s: queue_p90,
        roster,
        kv_usage_peak: kv_usage_peak.map(|k| k.value),
        preemptions: signals
            .and_then(|s| s.preemptions.as_ref())
            .map(|p| p.value),
        prefix_cache_hit_rate: signals
            .and_then(|s| s.prefix_hit_rate.as_ref())
            .map(|p| p.value),
        what_if,
        window_s,
        requests,
        warnings,
        sources,
    }
}

fn box_report(
    b: &BoxInput,
    p90: Option<f64>,
    warnings: &mut Vec<String>,
    sources: &mut BTreeMap<String, String>,
) -> BoxReport {
    let f = &b.facts;
    let at = |r: &Read| format!("{}:{}", b.path, r.line);
    let default = match f.kind {
        ServerKind::Vllm => Some(VLLM_DEFAULT_MAX_NUM_SEQS),
        ServerKind::Tgi => Some(TGI_DEFAULT_MAX_CONCURRENT),
        ServerKind::Sglang => None,
    };
    let max_num_seqs = f.max_num_seqs.map(|r| r.value).or(default);
    match (f.max_num_seqs, default) {
        (Some(r), _) => {
            sources.insert(format!("boxes.{}.max_num_seqs", b.name), at(&r));
        }
        (None, Some(d)) => warnings.push(format!(
            "{}: the request limit (max_num_seqs) is not in the log; assumed the server's default {d}, not measured{}",
            b.path,
            if f.kind == ServerKind::Vllm { " (vLLM uses 1024 on H100/H200 for the API server)" } else { "" }
        )),
        (None, None) => warnings.push(format!("{}: the request limit is not in the log; capacity is bounded by the KV cache alone", b.path)),
    }
    for w in &f.warnings {
        warnings.push(format!("{}: {w}", b.path));
    }
    let lines: Vec<usize> = f.engines.iter().map(|e| e.line).collect();
    let source = locate(&b.path, &lines);
    sources.insert(format!("boxes.{}.kv_cache_tokens", b.name), source.clone());
    if let Some(r) = f.max_model_len {
        sources.insert(format!("boxes.{}.max_model_len", b.name), at(&r));
    }
    if let Some(r) = f.max_num_batched_tokens {
        sources.insert(format!("boxes.{}.max_num_batched_tokens", b.name), at(&r));
    }
    let by_kv = |kv: u64| -> Option<u64> {
        let p90 = p90.filter(|p| !p.is_nan())?;
        Some(if p90 > 0.0 {
            (kv as f64 / p90).floor() as u64
        } else {
            u64::MAX
        })
    };
    let per_engine = |kv: u64| by_kv(kv).map(|k| max_num_seqs.map_or(k, |m| k.min(m)));
    // The min() picked an assumed default for some engine: the KV cache allowed more, so the
    // box's capacity rests on a guess, not on the log.
    let capacity_assumed = f.max_num_seqs.is_none()
        && max_num_seqs.is_some_and(|m| {
            f.engines
                .iter()
                .any(|e| by_kv(e.value).is_some_and(|k| k > m))
        });
    BoxReport {
        name: b.name.clone(),
        server: f.kind,
        engines: f.engines.len(),
        kv_cache_tokens: f.engines.iter().map(|e| e.value).sum(),
        max_num_seqs,
        max_num_seqs_measured: f.max_num_seqs.is_some(),
        max_model_len: f.max_model_len.map(|r| r.value),
        max_num_batched_tokens: f.max_num_batched_tokens.map(|r| r.value),
        capacity: f.engines.iter().map(|e| per_engine(e.value)).sum(),
        capacity_assumed,
        pessimistic_floor: f
            .max_model_len
            .filter(|m| m.value > 0)
            .map(|m| f.engines.iter().map(|e| e.value / m.value).sum()),
        source,
    }
}

fn breakdown(s: &Signals) -> Option<Breakdown> {
    let (queue_s, prefill_s, decode_s) = (mean(&s.queue)?, mean(&s.prefill)?, mean(&s.decode)?);
    let sum_s = queue_s + prefill_s + decode_s;
    if sum_s <= 0.0 {
        return None;
    }
    let e2e_s = mean(&s.e2e);
    Some(Breakdown {
        queue_s,
        prefill_s,
        decode_s,
        sum_s,
        e2e_s,
        unattributed_s: e2e_s.map(|e| e - sum_s),
        queue_share: queue_s / sum_s,
        prefill_share: prefill_s / sum_s,
        decode_share: decode_s / sum_s,
    })
}

/// The most end-to-end latency can gain: the phase's share of the end-to-end mean (of the
/// phases' sum when there is no end-to-end histogram) times the fraction removed.
fn what_ifs(b: &Breakdown, asked: &[WhatIf]) -> Vec<WhatIfReport> {
    let total = b.e2e_s.filter(|e| *e > 0.0).unwrap_or(b.sum_s);
    asked
        .iter()
        .map(|w| {
            let phase_s = match w.phase {
                Phase::Queue => b.queue_s,
                Phase::Prefill => b.prefill_s,
                Phase::Decode => b.decode_s,
            };
            let share_of_e2e = phase_s / total;
            WhatIfReport {
                phase: w.phase,
                fraction_removed: w.fraction,
                share_of_e2e,
                max_e2e_gain: share_of_e2e * w.fraction,
                max_e2e_gain_s: phase_s * w.fraction,
            }
        })
        .collect()
}

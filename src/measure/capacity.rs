//! The arithmetic (seed article, sections 3 and 4) over the evidence, into a [`Measurement`]:
//! per engine = min(floor(KV tokens / p90 prompt), max_num_seqs), summed per box and fleet;
//! the pessimistic floor KV / max_model_len; the latency breakdown of means; waves; what-ifs.
//! Where the window has no prompt histogram but counts prompt tokens and requests (SGLang), the
//! mean prompt stands in for the p90, flagged as an estimate.

use std::collections::BTreeMap;

pub(crate) use super::boxes::BoxInput;
use super::boxes::{box_report, have, names};
use super::model::{
    BoxReport, Breakdown, Measurement, Phase, Roster, Settings, WhatIf, WhatIfReport,
};
use super::signals::{Located, Signals};
use super::window::Histogram;

/// `path:line`, or `path:first-last` for a value read from several lines.
pub(crate) fn locate(path: &str, lines: &[usize]) -> String {
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
pub(crate) fn compute(
    boxes: &[BoxInput],
    scrape: Option<(&Signals, &str)>,
    opts: &Settings,
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
    let mut estimate = false;
    let (p90, lower_bound) = match (p90, signals) {
        (None, Some(s)) if let Some(mean) = s.prompt_mean() => {
            estimate = true;
            if let Some(t) = &s.prompt_totals {
                sources.insert("p90_prompt_tokens".into(), cite(&t.lines));
            }
            warnings.push(format!(
                "no prompt-length histogram with requests in the window: the capacity uses the mean prompt, {mean:.1} tokens ({} over finished requests), as an estimate of the p90; a p90 is at or above the mean in most workloads, so the capacity is likely an overestimate",
                s.prompt_totals.as_ref().map_or("prompt tokens", |t| t.name)
            ));
            (Some(mean), false)
        }
        (p, _) => (p, lower_bound),
    };
    let p90 = match p90 {
        Some(p) if !(p.is_finite() && p > 0.0) => {
            warnings.push(format!("the p90 prompt length is {p} tokens, not a positive number: capacity is not computed"));
            None
        }
        p => p,
    };
    if p90.is_none() && warnings.is_empty() {
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
    let (capacities, boxes_without_capacity) = have(&reports, |b| b.capacity);
    let (floors, boxes_without_floor) = have(&reports, |b| b.pessimistic_floor);
    for (what, got, without) in [
        ("capacity", &capacities, &boxes_without_capacity),
        ("pessimistic floor", &floors, &boxes_without_floor),
    ] {
        if !got.is_empty() && !without.is_empty() {
            warnings.push(format!(
                "the fleet {what} covers {} of {} boxes: {} ha{} none",
                got.len(),
                reports.len(),
                names(without),
                if without.len() == 1 { "s" } else { "ve" }
            ));
        }
    }
    let fleet_capacity = (!capacities.is_empty()).then(|| capacities.iter().sum::<u64>());
    let per_box_capacity = capacities.iter().min().copied();
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
    // The narrowest box, named: the one whose figure the per-box value is.
    let narrowest = |get: fn(&BoxReport) -> Option<u64>| {
        reports
            .iter()
            .filter_map(|b| get(b).map(|v| (v, b.name.clone())))
            .min_by_key(|(v, _)| *v)
            .map(|(_, n)| n)
    };
    let failed_boxes: Vec<String> = reports
        .iter()
        .filter(|b| !b.started)
        .map(|b| b.name.clone())
        .collect();

    if let (Some(s), [only]) = (signals, reports.as_slice())
        && let Some(kv) = &s.kv_cache_tokens
        && let Some(logged) = only.kv_cache_tokens
        && kv.value != logged
    {
        warnings.push(format!(
            "the scrape's {} says {} KV cache tokens, the log of `{}` says {logged}",
            kv.name, kv.value, only.name
        ));
    }

    let scraped_kv = signals.and_then(|s| s.kv_cache_tokens.as_ref());
    if let Some(k) = scraped_kv {
        sources.insert("scrape_kv_cache_tokens".into(), cite(&k.lines));
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
    if let (Some(s), None) = (signals, &breakdown) {
        warnings.push(no_breakdown(s));
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
    let true_peak = signals.is_some_and(|s| s.true_peak);
    if let Some(k) = kv_usage_peak {
        sources.insert("kv_usage_peak".into(), cite(&k.lines));
        if !true_peak {
            warnings.push(if signals.is_some_and(|s| s.windowed) {
                "the KV usage peak is the larger of two gauge readings (one per scrape), not the true peak of the window".to_string()
            } else {
                "the KV usage is one gauge reading, not a peak".to_string()
            });
        }
    }
    let waiting_peak = signals.and_then(|s| s.waiting_peak.as_ref());
    if let Some(w) = waiting_peak {
        sources.insert("waiting_peak".into(), cite(&w.lines));
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
        bindings: None,
        p90_prompt_tokens: p90,
        p90_prompt_is_lower_bound: lower_bound,
        p90_prompt_is_estimate: estimate && p90.is_some(),
        per_box_capacity_box: narrowest(|b| b.capacity),
        pessimistic_floor_box: narrowest(|b| b.pessimistic_floor),
        failed_boxes,
        per_box_capacity,
        per_box_capacity_assumed,
        fleet_capacity,
        fleet_capacity_assumed,
        pessimistic_floor: floors.iter().min().copied(),
        fleet_pessimistic_floor: (!floors.is_empty()).then(|| floors.iter().sum()),
        boxes_without_capacity,
        boxes_without_floor,
        boxes: reports,
        breakdown,
        queue_p50_s: queue_p50,
        queue_p90_s: queue_p90,
        roster,
        kv_usage_peak: kv_usage_peak.map(|k| k.value),
        kv_usage_peak_is_true: kv_usage_peak.is_some() && true_peak,
        waiting_peak: waiting_peak.map(|w| w.value),
        scrape_kv_cache_tokens: scraped_kv.map(|k| k.value),
        preemptions: signals
            .and_then(|s| s.preemptions.as_ref())
            .map(|p| p.value),
        prefix_cache_hit_rate: signals
            .and_then(|s| s.prefix_hit_rate.as_ref())
            .map(|p| p.value),
        what_if,
        window_s,
        requests,
        windows: Vec::new(),
        warnings,
        sources,
    }
}

/// Why there is no breakdown, naming the phases the scrapes lack.
fn no_breakdown(s: &Signals) -> String {
    let missing: Vec<&str> = [
        ("queue", &s.queue),
        ("prefill", &s.prefill),
        ("decode", &s.decode),
    ]
    .into_iter()
    .filter(|(_, h)| mean(h).is_none())
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        "the queue, prefill and decode means sum to 0 s: no latency breakdown".to_string()
    } else {
        format!(
            "no latency breakdown: the scrapes have no {} histogram with requests in the window",
            missing.join(" or ")
        )
    }
}

pub(super) fn breakdown(s: &Signals) -> Option<Breakdown> {
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

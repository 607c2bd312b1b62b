//! One box's figures from its startup log: the request limit in the server's precedence (and
//! TGI's router admission limit, under its own name), the capacity per engine, the pessimistic
//! floor (vLLM's own maximum concurrency when printed, else KV / max_model_len), and no capacity
//! at all from a start that failed. Every figure is cited by its line in `sources`.

use std::collections::BTreeMap;

use super::capacity::locate;
use super::logs::{BlockSizeSource, LimitSource, LogFacts, ServerKind};
use super::model::BoxReport;

/// vLLM's `max_num_seqs` when the user did not set it. Recent versions use 1024 for the API
/// server on H100/H200 and 256 elsewhere; the log does not say which GPU ran, so the smaller,
/// safer value is assumed and the report says it was not measured.
pub(crate) const VLLM_DEFAULT_MAX_NUM_SEQS: u64 = 256;
/// TGI's default `--max-concurrent-requests`.
pub(crate) const TGI_DEFAULT_MAX_CONCURRENT: u64 = 128;

/// One box: a name and the startup log that describes it.
pub(crate) struct BoxInput {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) facts: LogFacts,
}

/// The values of `get` the boxes have, and the names of the boxes without one.
pub(super) fn have(
    reports: &[BoxReport],
    get: fn(&BoxReport) -> Option<u64>,
) -> (Vec<u64>, Vec<String>) {
    let mut values = Vec::new();
    let mut without = Vec::new();
    for b in reports {
        match get(b) {
            Some(v) => values.push(v),
            None => without.push(b.name.clone()),
        }
    }
    (values, without)
}

pub(super) fn names(boxes: &[String]) -> String {
    boxes
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The request limit in the server's precedence: what the log says, else the platform default.
/// TGI has none besides `max_batch_size`: its batch is bounded by its KV budget.
fn request_limit(b: &BoxInput, warnings: &mut Vec<String>) -> (Option<u64>, Option<LimitSource>) {
    let f = &b.facts;
    if let Some((r, source)) = f.max_num_seqs {
        return (Some(r.value), Some(source));
    }
    if f.failed.is_some() {
        return (None, None);
    }
    match f.kind {
        ServerKind::Vllm => {
            warnings.push(format!(
                "{}: the request limit (max_num_seqs) is not in the log; assumed the server's default {VLLM_DEFAULT_MAX_NUM_SEQS}, not measured (vLLM uses 1024 on H100/H200 for the API server)",
                b.path
            ));
            (Some(VLLM_DEFAULT_MAX_NUM_SEQS), Some(LimitSource::Default))
        }
        ServerKind::Tgi => (None, None),
        ServerKind::Sglang => {
            warnings.push(format!("{}: the request limit is not in the log; capacity is bounded by the KV cache alone", b.path));
            (None, None)
        }
    }
}

/// TGI's router admission limit: the launcher's `max_concurrent_requests`, else its default.
fn admission_limit(b: &BoxInput, warnings: &mut Vec<String>) -> (Option<u64>, Option<LimitSource>) {
    let f = &b.facts;
    if let Some((r, source)) = f.admission_limit {
        return (Some(r.value), Some(source));
    }
    if f.kind != ServerKind::Tgi || f.failed.is_some() {
        return (None, None);
    }
    warnings.push(format!(
        "{}: TGI's router admission limit (max_concurrent_requests) is not in the log; assumed its default {TGI_DEFAULT_MAX_CONCURRENT}, not measured",
        b.path
    ));
    (Some(TGI_DEFAULT_MAX_CONCURRENT), Some(LimitSource::Default))
}

/// The floor from vLLM's own `Maximum concurrency` lines (one per engine), which count what the
/// KV size line misses for hybrid models; a warning when the two disagree.
fn own_concurrency(b: &BoxInput, warnings: &mut Vec<String>) -> Option<u64> {
    let f = &b.facts;
    if f.max_concurrency.is_empty() || f.max_concurrency.len() != f.engines.len() {
        return None;
    }
    let len = f.max_model_len.filter(|m| m.value > 0)?;
    for (&(x, line), e) in f.max_concurrency.iter().zip(&f.engines) {
        let ratio = e.value as f64 / len.value as f64;
        // The line prints two decimals.
        if (ratio - x).abs() > 0.006 {
            warnings.push(format!(
                "{}:{line}: vLLM's own maximum concurrency {x}x for {} tokens is not its KV cache size / max_model_len ({ratio:.2}); the floor uses vLLM's figure (hybrid models: the size line misses part of the cache)",
                b.path, len.value
            ));
        }
    }
    Some(
        f.max_concurrency
            .iter()
            .map(|(x, _)| x.floor() as u64)
            .sum(),
    )
}

pub(super) fn box_report(
    b: &BoxInput,
    p90: Option<f64>,
    warnings: &mut Vec<String>,
    sources: &mut BTreeMap<String, String>,
) -> BoxReport {
    let f = &b.facts;
    let at = |line: usize| format!("{}:{line}", b.path);
    let (max_num_seqs, limit_source) = request_limit(b, warnings);
    let (admission, admission_source) = admission_limit(b, warnings);
    if let Some((r, _)) = f.max_num_seqs {
        sources.insert(format!("boxes.{}.max_num_seqs", b.name), at(r.line));
    }
    if let Some((r, _)) = f.admission_limit {
        sources.insert(
            format!("boxes.{}.max_concurrent_requests", b.name),
            at(r.line),
        );
    }
    if let Some(bs) = f
        .block_size
        .filter(|bs| bs.source != BlockSizeSource::Default)
    {
        sources.insert(format!("boxes.{}.block_size", b.name), at(bs.line));
    }
    if !f.foreign_lines.is_empty() {
        warnings.push(format!(
            "{}: not server output, not read: {} (a prompt or the command that started the server)",
            locate(&b.path, &f.foreign_lines),
            if f.foreign_lines.len() == 1 {
                "this line"
            } else {
                "these lines"
            }
        ));
    }
    for w in &f.warnings {
        warnings.push(format!("{}: {w}", b.path));
    }
    if let Some(fail) = &f.failed {
        sources.insert(format!("boxes.{}.failure", b.name), at(fail.line));
        warnings.push(format!(
            "{}: the server did not start ({}): no capacity and no floor from `{}`",
            at(fail.line),
            fail.reason,
            b.name
        ));
    }
    let started = f.failed.is_none();
    let lines: Vec<usize> = f.engines.iter().map(|e| e.line).collect();
    let source = locate(&b.path, &lines);
    if !lines.is_empty() {
        sources.insert(format!("boxes.{}.kv_cache_tokens", b.name), source.clone());
    }
    if let Some(r) = f.max_model_len {
        sources.insert(format!("boxes.{}.max_model_len", b.name), at(r.line));
    }
    if let Some(r) = f.max_num_batched_tokens {
        sources.insert(
            format!("boxes.{}.max_num_batched_tokens", b.name),
            at(r.line),
        );
    }
    let lines: Vec<usize> = f.max_concurrency.iter().map(|c| c.1).collect();
    if !lines.is_empty() {
        sources.insert(
            format!("boxes.{}.server_max_concurrency", b.name),
            locate(&b.path, &lines),
        );
    }
    let own = own_concurrency(b, warnings);
    let by_kv = |kv: u64| -> Option<u64> {
        let p90 = p90.filter(|p| p.is_finite() && *p > 0.0)?;
        Some((kv as f64 / p90).floor() as u64)
    };
    // The limits the min() takes besides the KV cache, each with whether it was assumed.
    let bounds: Vec<(u64, bool, &'static str)> = [
        (max_num_seqs, limit_source, "max_num_seqs"),
        (admission, admission_source, "max_concurrent_requests"),
    ]
    .into_iter()
    .filter_map(|(v, src, name)| Some((v?, src == Some(LimitSource::Default), name)))
    .collect();
    let tightest = bounds.iter().min_by_key(|b| b.0).copied();
    let per_engine = |kv: u64| by_kv(kv).map(|k| tightest.map_or(k, |t| k.min(t.0)));
    let measured = limit_source.is_some_and(|s| s != LimitSource::Default);
    // The min() picked an assumed default for some engine: the KV cache allowed more, so the
    // box's capacity rests on a guess, not on the log.
    let capacity_assumed = started
        && tightest.is_some_and(|(m, assumed, _)| {
            assumed
                && f.engines
                    .iter()
                    .any(|e| by_kv(e.value).is_some_and(|k| k > m))
        });
    let capacity_bound = tightest
        .filter(|(m, _, _)| {
            started
                && f.engines
                    .iter()
                    .any(|e| by_kv(e.value).is_some_and(|k| k > *m))
        })
        .map(|t| t.2)
        .or_else(|| (started && p90.is_some() && !f.engines.is_empty()).then_some("kv_cache"));
    let engines = || f.engines.iter().filter(|_| started);
    BoxReport {
        name: b.name.clone(),
        server: f.kind,
        engines: f.engines.len(),
        started,
        failure: f
            .failed
            .as_ref()
            .map(|x| format!("{}:{}: {}", at(x.line), x.column, x.reason)),
        kv_cache_tokens: (!f.engines.is_empty()).then(|| f.engines.iter().map(|e| e.value).sum()),
        max_num_seqs,
        max_num_seqs_measured: measured,
        max_num_seqs_source: limit_source,
        max_concurrent_requests: admission,
        max_concurrent_requests_source: admission_source,
        block_size: f.block_size.map(|bs| bs.tokens),
        block_size_source: f.block_size.map(|bs| bs.source),
        server_max_concurrency: (!f.max_concurrency.is_empty())
            .then(|| f.max_concurrency.iter().map(|c| c.0).sum()),
        max_model_len: f.max_model_len.map(|r| r.value),
        max_num_batched_tokens: f.max_num_batched_tokens.map(|r| r.value),
        capacity: if started && !f.engines.is_empty() {
            engines().map(|e| per_engine(e.value)).sum()
        } else {
            None
        },
        capacity_assumed,
        capacity_bound,
        pessimistic_floor: match own {
            Some(x) if started => Some(x),
            _ => f
                .max_model_len
                .filter(|m| m.value > 0 && started && !f.engines.is_empty())
                .map(|m| engines().map(|e| e.value / m.value).sum()),
        },
        source,
    }
}

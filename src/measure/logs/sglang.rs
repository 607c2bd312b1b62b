//! SGLang's startup lines, 0.1 to 2026: the scheduler's `max_total_num_tokens=N, ...,
//! max_running_requests=N, context_len=N` (the values in effect), the memory pool's
//! `KV Cache is allocated. #tokens: N`, and `ServerArgs(...)`. Every tensor-parallel rank prints
//! the same pool; data-parallel ranks (`[... DP1 TP0]`) each have their own.

use std::sync::LazyLock;

use regex::Regex;

use super::{Anchor, Clean, LimitSource, LogFacts, ServerKind, failure, per_engine, re};
use crate::diag::Problem;

/// `\b`: `profiled_max_total_num_tokens=` (a heuristic's input) is not the pool.
static TOTAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)max_total_num_tokens=([0-9]+)"));
static TOTAL_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)max_total_num_tokens="));
/// `KV Cache is allocated. #tokens: N`; 2026 builds put the dtype first (`.. allocated. dtype:
/// torch.float8_e4m3fn, #tokens: N`).
static ALLOC: LazyLock<Regex> =
    LazyLock::new(|| re(r"KV Cache is allocated\.(?: dtype: [^,\n]*,)? #tokens: ([0-9]+)"));
static ALLOC_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"KV Cache is allocated"));
static RUNNING: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)max_running_requests=([0-9]+)"));
static CONTEXT: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)context_len(?:gth)?=([0-9]+)"));
static CHUNK: LazyLock<Regex> = LazyLock::new(|| re(r"(?-u:\b)chunked_prefill_size=([0-9]+)"));
static DP: LazyLock<Regex> = LazyLock::new(|| re(r"^\[[^\]]*(?-u:\b)DP([0-9]+)"));
static NO_MEMORY: LazyLock<Regex> =
    LazyLock::new(|| re(r"Not enough memory\. Please try to increase --mem-fraction-static"));
/// A scheduler process died before or while serving (`launch_server` and the scheduler print these).
static DIED: LazyLock<Regex> =
    LazyLock::new(|| re(r"Received sigquit from a child process|Scheduler hit an exception"));
/// Printed once per start by `launch_server`.
static BANNER: LazyLock<Regex> = LazyLock::new(|| re(r"server_args=ServerArgs\("));
/// Printed once per rank at its start (keyed by data-parallel rank).
static INIT: LazyLock<Regex> = LazyLock::new(|| re(r"Init torch distributed begin"));

pub(super) const ANCHORS: [Anchor; 2] = [
    Anchor {
        anchor: &TOTAL_ANCHOR,
        pattern: &TOTAL,
        expected: "`max_total_num_tokens=N`",
    },
    Anchor {
        anchor: &ALLOC_ANCHOR,
        pattern: &ALLOC,
        expected: "`KV Cache is allocated. #tokens: N`",
    },
];

pub(super) fn detect(text: &str) -> bool {
    TOTAL.is_match(text) || ALLOC.is_match(text) || text.contains("ServerArgs(")
}

pub(super) fn read(clean: &mut Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let warnings = clean
        .last_life(
            &BANNER,
            Some(&INIT),
            &[&TOTAL, &ALLOC, &NO_MEMORY, &DIED],
            Some(&DP),
        )
        .into_iter()
        .collect();
    let mut kv = clean.numbers(&TOTAL, errors);
    if kv.is_empty() {
        kv = clean.numbers(&ALLOC, errors);
    }
    let engines = per_engine(clean, kv, Some(&DP));
    let max_num_seqs = clean.last(&RUNNING, errors).map(|r| {
        let source = if clean.line(r.line).contains("ServerArgs(") {
            LimitSource::Argument
        } else {
            LimitSource::Server
        };
        (r, source)
    });
    LogFacts {
        kind: ServerKind::Sglang,
        failed: failure(clean, &NO_MEMORY, "not enough memory for the KV cache pool")
            .or_else(|| failure(clean, &DIED, "a scheduler process died")),
        engines,
        max_num_seqs,
        max_model_len: clean.last(&CONTEXT, errors),
        max_num_batched_tokens: clean.last(&CHUNK, errors),
        max_concurrency: Vec::new(),
        block_size: None,
        admission_limit: None,
        warnings,
        foreign_lines: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Read, parse};
    use super::*;

    #[test]
    fn the_scheduler_line_is_in_effect_and_a_heuristics_input_is_not_the_pool() {
        let log = "[2025-12-18 TP0] req_to_token_pool: slots=4096 (profiled_max_total_num_tokens=16725761, context_len=163840)\n\
                   [2025-12-18 TP0] max_total_num_tokens=60000, chunked_prefill_size=8192, max_running_requests=33, context_len=163840\n";
        let f = parse(log).unwrap();
        assert_eq!(f.kind, ServerKind::Sglang);
        assert_eq!(
            f.engines,
            vec![Read {
                value: 60000,
                line: 2
            }]
        );
        assert_eq!(
            f.max_num_seqs,
            Some((Read { value: 33, line: 2 }, LimitSource::Server))
        );
        assert_eq!(f.max_num_batched_tokens.map(|r| r.value), Some(8192));
    }

    #[test]
    fn data_parallel_ranks_each_have_a_pool_and_tensor_ranks_share_one() {
        let log = "[t DP0 TP0] KV Cache is allocated. #tokens: 100, K size: 1 GB\n\
                   [t DP0 TP1] KV Cache is allocated. #tokens: 100, K size: 1 GB\n\
                   [t DP1 TP0] KV Cache is allocated. #tokens: 90, K size: 1 GB\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines.iter().map(|e| e.value).collect::<Vec<_>>(),
            vec![100, 90]
        );
    }

    #[test]
    fn a_dead_scheduler_is_a_failed_start_and_the_2026_pool_line_is_read() {
        let log = "[2026-09-12 00:22:48 TP0] KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 454112, K size: 3.46 GB, V size: 3.46 GB\n\
                   [2026-09-12 00:22:50] Received sigquit from a child process. It usually means the child failed.\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines.iter().map(|e| e.value).collect::<Vec<_>>(),
            vec![454112]
        );
        assert_eq!(f.failed.map(|x| (x.line, x.column)), Some((2, 23)));
    }
}

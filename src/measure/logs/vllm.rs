//! vLLM's startup lines, 0.2 to the newest: V0's `# GPU blocks: N` (0.7 spells it
//! `# CUDA blocks:`) times the block size, V1's `GPU KV cache size: N tokens` (one line per
//! worker in 0.8 to 0.9, reduced as `unify_kv_cache_configs` does), the engine config line's
//! `max_seq_len=`, `Using max model len`, `Maximum concurrency for N tokens per request: Xx`,
//! and `max_num_seqs` from the arguments or the usage-context default.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    Anchor, Clean, Failure, LimitSource, LogFacts, Read, ServerKind, failure, per_engine, re,
};
use crate::diag::Problem;

static KV: LazyLock<Regex> = LazyLock::new(|| re(r"GPU KV cache size: ([\d,]+) tokens"));
static KV_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"GPU KV cache size:"));
/// `# GPU blocks: 5225, # CPU blocks: 2048`; later V0 names the device (`# CUDA blocks:` in 0.7,
/// `# HPU`, `# TPU`, `# XPU`, `# NPU` on other platforms); pastes that lost the `#` too.
static BLOCKS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:#\s*)?\b(?i:gpu|cuda|hpu|tpu|xpu|npu|mlu) blocks: ?([\d,]+)"));
static BLOCKS_ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| re(r"#\s*(?i:gpu|cuda|hpu|tpu|xpu|npu|mlu) blocks:"));
static BLOCK_SIZE: LazyLock<Regex> =
    LazyLock::new(|| re(r"['\x22]?\bblock_size['\x22]?\s*[:=]\s*(\d+)"));
static SEQS_ARG: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:['\x22]max_num_seqs['\x22]\s*:\s*|\bmax_num_seqs=|--max-num-seqs[= ]+)(\d+)")
});
static SEQS_CONTEXT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:Setting|Defaulting) max_num_seqs to (\d+) for \S+ usage context"));
static MODEL_LEN: LazyLock<Regex> = LazyLock::new(|| re(r"Using max model len (\d+)"));
/// The engine config line: `Initializing an LLM engine (v0.6.3) with config: ..., max_seq_len=2048, ...`.
static MAX_SEQ_LEN: LazyLock<Regex> = LazyLock::new(|| re(r"\bmax_seq_len=(\d+)"));
static MODEL_LEN_ARG: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:['\x22]max_model_len['\x22]\s*:\s*|\bmax_model_len=|--max-model-len[= ]+)(\d+)")
});
static CONCURRENCY: LazyLock<Regex> =
    LazyLock::new(|| re(r"Maximum concurrency for ([\d,]+) tokens per request: ([\d.]+)x"));
static CONCURRENCY_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"Maximum concurrency for"));
static BATCHED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:['\x22]max_num_batched_tokens['\x22]\s*:\s*|\bmax_num_batched_tokens=)(\d+)")
});
/// V0: `The model's max seq len (29000) is larger than the maximum number of tokens that can be
/// stored in KV cache (23648).`
static TOO_LONG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV cache \((\d+)\)",
    )
});
/// V1: `To serve at least one request with the models's max seq len (N), (X GiB KV cache is
/// needed, which is larger than the available KV cache memory (Y GiB).`
static TOO_LONG_V1: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"max seq len \((\d+)\), \([\d.]+ GiB KV cache is needed, which is larger than the available KV cache memory",
    )
});
static NO_MEMORY: LazyLock<Regex> =
    LazyLock::new(|| re(r"No available memory for the cache blocks"));
static ENGINE_FAILED: LazyLock<Regex> =
    LazyLock::new(|| re(r"EngineCore failed to start|Engine core initialization failed"));
/// Lines printed once per server start; one after a KV line begins a new life.
static LIFE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"vLLM API server version|non-default args:|\] args: Namespace\(|Initializing an? (?:V0 )?LLM engine",
    )
});

pub(super) const ANCHORS: [Anchor; 3] = [
    Anchor {
        anchor: &KV_ANCHOR,
        pattern: &KV,
        expected: "`GPU KV cache size: N tokens`",
    },
    Anchor {
        anchor: &BLOCKS_ANCHOR,
        pattern: &BLOCKS,
        expected: "`# GPU blocks: N`",
    },
    Anchor {
        anchor: &CONCURRENCY_ANCHOR,
        pattern: &CONCURRENCY,
        expected: "`Maximum concurrency for N tokens per request: Xx`",
    },
];

/// vLLM's default block size on CUDA, used when the log does not print one.
const DEFAULT_BLOCK_SIZE: u64 = 16;

pub(super) fn read(clean: &mut Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let mut warnings: Vec<String> = clean
        .last_life(
            &LIFE,
            &[
                &KV,
                &BLOCKS,
                &TOO_LONG,
                &TOO_LONG_V1,
                &NO_MEMORY,
                &ENGINE_FAILED,
            ],
        )
        .into_iter()
        .collect();
    let mut kv = clean.numbers(&KV, errors);
    if kv.is_empty() {
        let blocks = clean.numbers(&BLOCKS, errors);
        let block_size = clean.last(&BLOCK_SIZE, errors);
        let size = block_size.map_or(DEFAULT_BLOCK_SIZE, |b| b.value);
        if !blocks.is_empty() && block_size.is_none() {
            warnings.push(format!("block size not in the log; assumed vLLM's default {DEFAULT_BLOCK_SIZE} tokens per block"));
        }
        kv = blocks
            .into_iter()
            .map(|b| Read {
                value: b.value.saturating_mul(size),
                line: b.line,
            })
            .collect();
    }
    // A model too long for the cache: V0 says how many tokens the cache holds, V1 does not.
    let n = |c: &regex::Captures, i| c.get(i).and_then(|m| m.as_str().parse::<u64>().ok());
    let too_long = clean
        .captures(&TOO_LONG)
        .map(|(line, c)| (line, n(&c, 1), n(&c, 2)))
        .chain(
            clean
                .captures(&TOO_LONG_V1)
                .map(|(line, c)| (line, n(&c, 1), None)),
        )
        .max_by_key(|t| t.0);
    let mut failed = None;
    if let Some((line, len, stored)) = too_long {
        let len = len.map_or_else(|| "?".to_string(), |l| l.to_string());
        failed = Some(Failure {
            line,
            reason: match stored {
                Some(s) => format!(
                    "the model's max seq len ({len}) is larger than the KV cache ({s} tokens)"
                ),
                None => format!(
                    "one request of the model's max seq len ({len}) does not fit in the KV cache"
                ),
            },
        });
        if kv.is_empty()
            && let Some(value) = stored
        {
            kv.push(Read { value, line });
        }
    }
    let engines = per_engine(clean, kv, None);
    failed = failed
        .or_else(|| failure(clean, &NO_MEMORY, "no memory was left for the KV cache"))
        .or_else(|| failure(clean, &ENGINE_FAILED, "the engine core failed to start"))
        .or_else(|| {
            engines.iter().find(|e| e.value == 0).map(|e| Failure {
                line: e.line,
                reason: "the engine has 0 KV cache blocks".to_string(),
            })
        });
    let from_failure = too_long.and_then(|(line, len, _)| Some(Read { value: len?, line }));
    let max_model_len = clean
        .last(&MODEL_LEN, errors)
        .or_else(|| clean.last(&MAX_SEQ_LEN, errors))
        .or_else(|| clean.last(&CONCURRENCY, errors))
        .or(from_failure)
        .or_else(|| clean.last(&MODEL_LEN_ARG, errors));
    let max_num_seqs = clean.limit(
        &[
            (&SEQS_ARG, LimitSource::Argument),
            (&SEQS_CONTEXT, LimitSource::UsageContext),
        ],
        errors,
    );
    LogFacts {
        kind: ServerKind::Vllm,
        engines,
        max_num_seqs,
        max_model_len,
        max_num_batched_tokens: clean.last(&BATCHED, errors),
        max_concurrency: concurrency(clean),
        failed,
        warnings,
    }
}

/// The server's own maximum concurrency of each engine: the smallest of its workers' figures.
fn concurrency(clean: &Clean) -> Vec<(f64, usize)> {
    let mut per: std::collections::BTreeMap<String, (f64, usize)> = Default::default();
    for (line, c) in clean.captures(&CONCURRENCY) {
        let Some(x) = c.get(2).and_then(|m| m.as_str().parse::<f64>().ok()) else {
            continue;
        };
        let slot = per.entry(clean.engine_key(line, None)).or_insert((x, line));
        if x < slot.0 {
            *slot = (x, line);
        }
    }
    per.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    fn values(f: &LogFacts) -> Vec<u64> {
        f.engines.iter().map(|e| e.value).collect()
    }

    #[test]
    fn data_parallel_engines_each_count_and_colours_are_stripped() {
        let log = "(APIServer pid=1) INFO non-default args: {'max_num_seqs': 7, 'data_parallel_size': 2}\n\
                   \x1b[1;36m(EngineCore_DP0 pid=410)\x1b[0m INFO [kv_cache_utils.py:1] GPU KV cache size: 1,000 tokens\n\
                   (EngineCore_DP1 pid=411) INFO GPU KV cache size: 2,000 tokens, Maximum concurrency for 500 tokens per request: 2.00x\n";
        let f = parse(log).unwrap();
        assert_eq!(values(&f), vec![1000, 2000]);
        assert_eq!(
            f.max_num_seqs,
            Some((Read { value: 7, line: 1 }, LimitSource::Argument))
        );
        assert_eq!(f.max_model_len.map(|r| r.value), Some(500));
    }

    #[test]
    fn v0_blocks_times_the_logged_block_size_in_either_spelling() {
        for blocks in [
            "# GPU blocks: 1,000",
            "# CUDA blocks: 1,000",
            "# cuda blocks: 1000",
            "# HPU blocks: 1000",
        ] {
            let log = format!(
                "INFO args: Namespace(block_size=32, max_num_seqs=64, max_model_len=4096)\n\
                       INFO [executor_base.py:1] {blocks}, # CPU blocks: 512\n"
            );
            let f = parse(&log).unwrap();
            assert_eq!(
                f.engines,
                vec![Read {
                    value: 32_000,
                    line: 2
                }],
                "{blocks}"
            );
            assert_eq!(f.max_num_seqs.map(|r| r.0.value), Some(64));
            assert_eq!(f.max_model_len.map(|r| r.value), Some(4096));
            assert!(f.warnings.is_empty());
        }
    }

    #[test]
    fn workers_of_one_engine_give_its_smallest_size() {
        let log = "(VllmWorker rank=0 pid=1) INFO GPU KV cache size: 1,200 tokens\n\
                   (VllmWorker rank=1 pid=2) INFO GPU KV cache size: 1,000 tokens\n\
                   INFO GPU KV cache size: 1,100 tokens\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines,
            vec![Read {
                value: 1000,
                line: 2
            }]
        );
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    }

    #[test]
    fn a_restart_reads_the_last_life() {
        let log = "INFO vLLM API server version 0.9.0\nINFO GPU KV cache size: 1,000 tokens\n\
                   INFO vLLM API server version 0.9.0\nINFO GPU KV cache size: 1,200 tokens\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines,
            vec![Read {
                value: 1200,
                line: 4
            }]
        );
        assert!(
            f.warnings[0].contains("2 server starts"),
            "{:?}",
            f.warnings
        );
    }

    #[test]
    fn a_start_that_failed_and_was_started_again_counts_the_second() {
        let log = "INFO vLLM API server version 0.9.0\n\
                   ERROR EngineCore failed to start.\n\
                   INFO vLLM API server version 0.9.0\n\
                   INFO GPU KV cache size: 1,200 tokens\n";
        let f = parse(log).unwrap();
        assert_eq!(f.failed, None);
        assert_eq!(
            f.engines,
            vec![Read {
                value: 1200,
                line: 4
            }]
        );
        let again =
            format!("{log}INFO vLLM API server version 0.9.0\nERROR EngineCore failed to start.\n");
        assert_eq!(parse(&again).unwrap().failed.map(|x| x.line), Some(6));
    }

    #[test]
    fn usage_context_default_and_engine_config_length() {
        let log = "DEBUG Setting max_num_seqs to 1024 for LLM_CLASS usage context.\n\
                   INFO Initializing an LLM engine (v0.6.3) with config: model='m', max_seq_len=2048, max_seq_len_to_capture=8192\n\
                   INFO # GPU blocks: 10, # CPU blocks: 2\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.max_num_seqs,
            Some((
                Read {
                    value: 1024,
                    line: 1
                },
                LimitSource::UsageContext
            ))
        );
        assert_eq!(
            f.max_model_len,
            Some(Read {
                value: 2048,
                line: 2
            })
        );
    }

    #[test]
    fn failed_starts_are_failures_not_zeros() {
        let f = parse("INFO # GPU blocks: 0, # CPU blocks: 2048\n").unwrap();
        assert!(f.failed.unwrap().reason.contains("0 KV cache blocks"));
        let f = parse("ValueError: The model's max seq len (131072) is larger than the maximum number of tokens that can be stored in KV cache (81536). Try\n").unwrap();
        assert_eq!(
            f.engines,
            vec![Read {
                value: 81536,
                line: 1
            }]
        );
        assert_eq!(f.max_model_len.map(|r| r.value), Some(131_072));
        assert!(f.failed.is_some());
    }
}

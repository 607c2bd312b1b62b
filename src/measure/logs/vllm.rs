//! vLLM's startup lines, 0.2 to the newest: V0's `# GPU blocks: N` (0.7 spells it
//! `# CUDA blocks:`, other platforms print their own device, `# neuron blocks:`, `# CPU blocks:`)
//! times the block size, V1's `GPU KV cache size: N tokens` (one line per worker in 0.8 to 0.9,
//! reduced as `unify_kv_cache_configs` does), the engine config line's `max_seq_len=`,
//! `Using max model len`, `Maximum concurrency for N tokens per request: Xx` (blocks x block
//! size / N, so it fixes a block size the log does not print), and `max_num_seqs` from the
//! arguments the server printed (`non-default args: {..}`, `args: Namespace(..)`) or the
//! usage-context default. A flag in a command line pasted above the log is not the server's.

use std::sync::LazyLock;

use regex::Regex;

use super::{
    Anchor, BlockSize, BlockSizeSource, Clean, Failure, LimitSource, LogFacts, Read, ServerKind,
    failure, failure_at, per_engine, re,
};
use crate::diag::Problem;

static KV: LazyLock<Regex> = LazyLock::new(|| re(r"GPU KV cache size: ([0-9,]+) tokens"));
static KV_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"GPU KV cache size:"));
/// `# GPU blocks: 5225, # CPU blocks: 2048`: the first `# <device> blocks:` of a line is the KV
/// cache (`# CPU blocks` after it is swap space); any device (`CUDA`, `HPU`, `neuron`, `CPU` on
/// the CPU backend); pastes that lost the `#` name a known device.
static BLOCKS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(#[ \t]*)?(?-u:\b)([A-Za-z][0-9A-Za-z_-]*) blocks: ?([0-9,]+)"));
static BLOCKS_ANCHOR: LazyLock<Regex> =
    LazyLock::new(|| re(r"#[ \t]*[A-Za-z][0-9A-Za-z_-]* blocks:"));
static BLOCKS_LINE: LazyLock<Regex> =
    LazyLock::new(|| re(r"#[ \t]*[A-Za-z][0-9A-Za-z_-]* blocks: ?[0-9,]+"));
/// Devices a block line may name without its `#`.
const DEVICES: [&str; 10] = [
    "gpu", "cuda", "hpu", "tpu", "xpu", "npu", "mlu", "cpu", "neuron", "xla",
];
/// The arguments as the server printed them: only what was set (`non-default args`), or every
/// value (`args: Namespace(..)`, older versions).
fn argument(name: &str) -> Regex {
    re(&format!(
        r"(?:non-default args: \{{.*?'{name}': |Namespace\(.*?(?-u:\b){name}=)([0-9]+)"
    ))
}
static BLOCK_SIZE: LazyLock<Regex> = LazyLock::new(|| argument("block_size"));
static SEQS_ARG: LazyLock<Regex> = LazyLock::new(|| argument("max_num_seqs"));
static SEQS_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:Setting|Defaulting) max_num_seqs to ([0-9]+) for [^ \t\n]+ usage context")
});
static MODEL_LEN: LazyLock<Regex> = LazyLock::new(|| re(r"Using max model len ([0-9]+)"));
/// The engine config line: `Initializing an LLM engine (v0.6.3) with config: ..., max_seq_len=2048, ...`.
static MAX_SEQ_LEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"with config: .*?(?-u:\b)max_seq_len=([0-9]+)"));
static MODEL_LEN_ARG: LazyLock<Regex> = LazyLock::new(|| argument("max_model_len"));
static CONCURRENCY: LazyLock<Regex> =
    LazyLock::new(|| re(r"Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x"));
static CONCURRENCY_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"Maximum concurrency for"));
static BATCHED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:non-default args: \{.*?'max_num_batched_tokens': |Namespace\(.*?(?-u:\b)max_num_batched_tokens=|Chunked prefill is enabled with max_num_batched_tokens=)([0-9]+)",
    )
});
/// V0: `The model's max seq len (29000) is larger than the maximum number of tokens that can be
/// stored in KV cache (23648).`
static TOO_LONG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"max seq len \(([0-9]+)\) is larger than the maximum number of tokens that can be stored in KV cache \(([0-9]+)\)",
    )
});
/// V1: `To serve at least one request with the models's max seq len (N), (X GiB KV cache is
/// needed, which is larger than the available KV cache memory (Y GiB).`
static TOO_LONG_V1: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"max seq len \(([0-9]+)\), \([0-9.]+ GiB KV cache is needed, which is larger than the available KV cache memory",
    )
});
/// The message, not the traceback's `raise ValueError("No available memory ..` above it.
static NO_MEMORY: LazyLock<Regex> =
    LazyLock::new(|| re(r"No available memory for the cache blocks\. Try"));
/// The engine core died: V1's `EngineCore failed to start`, `Engine core initialization
/// failed`, 0.8's `EngineCore hit an exception` (printed when the core's start or loop raised),
/// and V0's distributed workers failing a start-up method (`Error executing method
/// initialize_cache`).
static ENGINE_FAILED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"EngineCore failed to start|Engine core initialization failed|EngineCore hit an exception|Error executing method (?:initialize_cache|determine_num_available_blocks|init_device|load_model)",
    )
});
/// Printed once per start by the API server.
static BANNER: LazyLock<Regex> = LazyLock::new(|| re(r"vLLM API server version"));
/// Printed once per engine start (keyed by engine: data-parallel engines each print one).
static INIT: LazyLock<Regex> = LazyLock::new(|| re(r"Initializing an? (?:V[0-9] )?LLM engine"));

pub(super) const ANCHORS: [Anchor; 3] = [
    Anchor {
        anchor: &KV_ANCHOR,
        pattern: &KV,
        expected: "`GPU KV cache size: N tokens`",
    },
    Anchor {
        anchor: &BLOCKS_ANCHOR,
        pattern: &BLOCKS_LINE,
        expected: "`# GPU blocks: N`",
    },
    Anchor {
        anchor: &CONCURRENCY_ANCHOR,
        pattern: &CONCURRENCY,
        expected: "`Maximum concurrency for N tokens per request: Xx`",
    },
];

/// vLLM's default block size on CUDA, used when the log fixes none.
const DEFAULT_BLOCK_SIZE: u64 = 16;

/// The KV cache's block lines: the first `# <device> blocks: N` of each line.
fn blocks(clean: &Clean, errors: &mut Vec<Problem>) -> Vec<Read> {
    let mut out: Vec<Read> = Vec::new();
    for (line, c) in clean.captures(&BLOCKS) {
        let device = c.get(2).map_or("", |m| m.as_str());
        let hashed = c.get(1).is_some();
        if out.last().is_some_and(|r| r.line == line)
            || !(hashed || DEVICES.contains(&device.to_ascii_lowercase().as_str()))
        {
            continue;
        }
        if let Some(m) = c.get(3)
            && let Some(value) = super::parse_number(clean, line, m, errors)
        {
            out.push(Read { value, line });
        }
    }
    out
}

/// The block size that makes `blocks` x size / `len` print as `x` (two decimals, as vLLM
/// formats it): the one candidate, or, when several round the same, vLLM's default 16, then
/// `len` itself (platforms with one block per sequence, like Neuron), then a power of two, then
/// the nearest. `None` when no size fits.
pub(super) fn block_size_from(blocks: u64, len: u64, x: f64) -> Option<(u64, bool)> {
    if blocks == 0 || len == 0 || !(x.is_finite() && x > 0.0) {
        return None;
    }
    let (b, n) = (blocks as f64, len as f64);
    let lo = ((x - 0.005) * n / b).ceil().max(1.0);
    let hi = ((x + 0.005) * n / b).floor();
    if hi < lo || hi - lo > 100_000.0 {
        return None;
    }
    let fits = |size: u64| ((b * size as f64 / n) * 100.0).round() / 100.0 == x;
    let candidates: Vec<u64> = (lo as u64..=hi as u64).filter(|&s| fits(s)).collect();
    let unique = candidates.len() == 1;
    let exact = x * n / b;
    let pick = [DEFAULT_BLOCK_SIZE, len]
        .into_iter()
        .find(|s| candidates.contains(s))
        .or_else(|| candidates.iter().copied().find(|s| s.is_power_of_two()))
        .or_else(|| {
            candidates.iter().copied().min_by(|a, c| {
                (*a as f64 - exact)
                    .abs()
                    .total_cmp(&(*c as f64 - exact).abs())
            })
        })?;
    Some((pick, unique))
}

/// Tokens of KV cache from block lines: the block size the server printed, else the one its
/// own concurrency line fixes, else vLLM's default, with a warning for each guess.
fn tokens_from_blocks(
    clean: &Clean,
    blocks: Vec<Read>,
    concurrency: &[(f64, usize, u64)],
    warnings: &mut Vec<String>,
    errors: &mut Vec<Problem>,
) -> (Vec<Read>, Option<BlockSize>) {
    if blocks.is_empty() {
        return (blocks, None);
    }
    let printed = clean.last(&BLOCK_SIZE, errors).map(|r| BlockSize {
        tokens: r.value,
        source: BlockSizeSource::Log,
        line: r.line,
    });
    let engines = per_engine(clean, blocks.clone(), None);
    let derived = engines
        .iter()
        .zip(concurrency)
        .find_map(|(e, &(x, line, len))| {
            block_size_from(e.value, len, x).map(|(tokens, unique)| {
                (
                    BlockSize {
                        tokens,
                        source: BlockSizeSource::Concurrency,
                        line,
                    },
                    unique,
                )
            })
        });
    let size = match (printed, derived) {
        (Some(p), Some((d, _))) if p.tokens != d.tokens => {
            warnings.push(format!(
                "line {}: block_size {} disagrees with the server's own maximum concurrency (line {}), which gives {}; used the printed {}",
                p.line, p.tokens, d.line, d.tokens, p.tokens
            ));
            p
        }
        (Some(p), _) => p,
        (None, Some((d, unique))) => {
            if !unique {
                warnings.push(format!(
                    "line {}: several block sizes round to the server's own maximum concurrency; took {} tokens per block",
                    d.line, d.tokens
                ));
            }
            d
        }
        (None, None) => {
            warnings.push(format!(
                "block size not in the log; assumed vLLM's default {DEFAULT_BLOCK_SIZE} tokens per block"
            ));
            BlockSize {
                tokens: DEFAULT_BLOCK_SIZE,
                source: BlockSizeSource::Default,
                line: 0,
            }
        }
    };
    let tokens = blocks
        .into_iter()
        .map(|b| Read {
            value: b.value.saturating_mul(size.tokens),
            line: b.line,
        })
        .collect();
    (tokens, Some(size))
}

pub(super) fn read(clean: &mut Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let mut warnings: Vec<String> = clean
        .last_life(
            &BANNER,
            Some(&INIT),
            &[
                &KV,
                &BLOCKS,
                &TOO_LONG,
                &TOO_LONG_V1,
                &NO_MEMORY,
                &ENGINE_FAILED,
            ],
            None,
        )
        .into_iter()
        .collect();
    let concurrency = concurrency(clean);
    let mut kv = clean.numbers(&KV, errors);
    let mut block_size = None;
    if kv.is_empty() {
        let found = blocks(clean, errors);
        (kv, block_size) = tokens_from_blocks(clean, found, &concurrency, &mut warnings, errors);
    }
    // A model too long for the cache: V0 says how many tokens the cache holds, V1 does not.
    let n = |c: &regex::Captures, i| c.get(i).and_then(|m| m.as_str().parse::<u64>().ok());
    let too_long = clean
        .captures(&TOO_LONG)
        .map(|(line, c)| {
            (
                line,
                n(&c, 1),
                n(&c, 2),
                failure_at(clean, line, &c, String::new()),
            )
        })
        .chain(clean.captures(&TOO_LONG_V1).map(|(line, c)| {
            (
                line,
                n(&c, 1),
                None,
                failure_at(clean, line, &c, String::new()),
            )
        }))
        .max_by_key(|t| t.0);
    let mut failed = None;
    if let Some((line, len, stored, at)) = &too_long {
        let len = len.map_or_else(|| "?".to_string(), |l| l.to_string());
        failed = Some(Failure {
            reason: match stored {
                Some(s) => format!(
                    "the model's max seq len ({len}) is larger than the KV cache ({s} tokens)"
                ),
                None => format!(
                    "one request of the model's max seq len ({len}) does not fit in the KV cache"
                ),
            },
            ..at.clone()
        });
        if kv.is_empty()
            && let Some(value) = *stored
        {
            kv.push(Read { value, line: *line });
        }
    }
    let engines = per_engine(clean, kv, None);
    failed = failed
        .or_else(|| failure(clean, &NO_MEMORY, "no memory was left for the KV cache"))
        .or_else(|| failure(clean, &ENGINE_FAILED, "the engine failed to start"))
        .or_else(|| {
            engines.iter().find(|e| e.value == 0).map(|e| Failure {
                line: e.line,
                column: clean.column(e.line, "#", 0),
                reason: "the engine has 0 KV cache blocks".to_string(),
            })
        });
    let from_failure = too_long.and_then(|(line, len, _, _)| Some(Read { value: len?, line }));
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
        max_concurrency: concurrency.iter().map(|&(x, line, _)| (x, line)).collect(),
        block_size,
        admission_limit: None,
        failed,
        warnings,
        foreign_lines: Vec::new(),
    }
}

/// The server's own maximum concurrency of each engine, with its line and the tokens per
/// request it was computed for: the smallest of its workers' figures.
fn concurrency(clean: &Clean) -> Vec<(f64, usize, u64)> {
    let mut per: std::collections::BTreeMap<String, (f64, usize, u64)> = Default::default();
    for (line, c) in clean.captures(&CONCURRENCY) {
        let len = c
            .get(1)
            .and_then(|m| m.as_str().replace(',', "").parse::<u64>().ok());
        let Some((x, len)) = c
            .get(2)
            .and_then(|m| m.as_str().parse::<f64>().ok())
            .zip(len)
        else {
            continue;
        };
        let slot = per
            .entry(clean.engine_key(line, None))
            .or_insert((x, line, len));
        if x < slot.0 {
            *slot = (x, line, len);
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

    #[test]
    fn the_concurrency_line_fixes_the_block_size() {
        // Unique: 512 blocks of 1152 tokens for 1152-token requests print 512.00x.
        assert_eq!(block_size_from(512, 1152, 512.0), Some((1152, true)));
        assert_eq!(block_size_from(1381, 2048, 10.79), Some((16, true)));
        // Several sizes round alike: 16, then the request length, then a power of two.
        assert_eq!(block_size_from(4, 1024, 4.0), Some((1024, false)));
        assert_eq!(block_size_from(0, 1024, 4.0), None);
        assert_eq!(block_size_from(1000, 1024, 0.0), None);
        let log = "INFO [executor_base.py:1] # cpu blocks: 512\n\
                   INFO [executor_base.py:2] Maximum concurrency for 1152 tokens per request: 512.00x\n";
        let f = parse(log).unwrap();
        assert_eq!(values(&f), vec![512 * 1152]);
        assert_eq!(
            f.block_size.map(|b| (b.tokens, b.source, b.line)),
            Some((1152, BlockSizeSource::Concurrency, 2))
        );
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    }

    #[test]
    fn a_command_and_its_continuations_supply_no_figure() {
        let log = "$ vllm serve m \\\n  --max-num-seqs 32 \\\n  --max-model-len 4096\n\
                   INFO non-default args: {'model': 'm'}\n\
                   INFO GPU KV cache size: 1,000 tokens\n";
        let f = parse(log).unwrap();
        assert_eq!(f.max_num_seqs, None);
        assert_eq!(f.max_model_len, None);
        assert_eq!(f.foreign_lines, vec![1, 2, 3]);
        let code = "llm = LLM(model='m', max_num_seqs=32, max_model_len=4096)\n\
                    INFO GPU KV cache size: 1,000 tokens\n";
        let f = parse(code).unwrap();
        assert_eq!((f.max_num_seqs, f.max_model_len), (None, None));
    }

    #[test]
    fn arguments_pasted_below_the_kv_lines_are_the_same_life() {
        let log = "INFO GPU KV cache size: 1,000 tokens\n\
                   INFO non-default args: {'max_num_seqs': 8}\n\
                   INFO Initializing a V1 LLM engine (v0.11.0) with config: max_seq_len=4096\n";
        let f = parse(log).unwrap();
        assert_eq!(values(&f), vec![1000]);
        assert_eq!(f.max_num_seqs.map(|r| r.0.value), Some(8));
        assert_eq!(f.max_model_len.map(|r| r.value), Some(4096));
        assert!(f.warnings.is_empty(), "{:?}", f.warnings);
        // A second engine init after a KV line, with a KV line after it, is a restart.
        let again = "INFO Initializing a V1 LLM engine (v0.11.0) with config: max_seq_len=4096\n\
                     INFO GPU KV cache size: 1,000 tokens\n\
                     INFO Initializing a V1 LLM engine (v0.11.0) with config: max_seq_len=2048\n\
                     INFO GPU KV cache size: 2,000 tokens\n";
        let f = parse(again).unwrap();
        assert_eq!(values(&f), vec![2000]);
        assert_eq!(f.max_model_len.map(|r| r.value), Some(2048));
    }
}

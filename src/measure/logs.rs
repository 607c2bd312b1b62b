//! Startup logs of vLLM (V0 through the newest one-line format), SGLang and TGI: the KV cache
//! size of every engine and the limits the server was started with. Lines are cleaned of ANSI
//! colour codes and of process prefixes like `(EngineCore_DP0 pid=410)` before matching.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::diag::Problem;

/// Which server wrote the log, detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerKind {
    Vllm,
    Sglang,
    Tgi,
}

/// A number read from a log, with its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    pub value: u64,
    pub line: usize,
}

/// What one startup log says about its box.
#[derive(Debug, Clone, PartialEq)]
pub struct LogFacts {
    pub kind: ServerKind,
    /// KV cache tokens of each engine (data-parallel rank), in rank order.
    pub engines: Vec<Read>,
    pub max_num_seqs: Option<Read>,
    pub max_model_len: Option<Read>,
    pub max_num_batched_tokens: Option<Read>,
    pub warnings: Vec<String>,
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

static ANSI: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b\[[0-9;?]*[ -/]*[@-~]"));
static PREFIX: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*\(([A-Za-z0-9_.-]+) pid=\d+\)\s*"));
static DP_RANK: LazyLock<Regex> = LazyLock::new(|| re(r"DP_?(\d+)"));

/// A cleaned log: one string, with each line's start offset and engine key kept aside.
struct Clean {
    text: String,
    starts: Vec<usize>,
    engine: Vec<String>,
}

impl Clean {
    fn new(raw: &str) -> Clean {
        let mut clean = Clean {
            text: String::with_capacity(raw.len()),
            starts: Vec::new(),
            engine: Vec::new(),
        };
        for line in raw.lines() {
            let line = ANSI.replace_all(line.trim_end_matches('\r'), "");
            let (engine, body) = match PREFIX.captures(&line) {
                Some(c) => (
                    c[1].to_string(),
                    line[c.get(0).map_or(0, |m| m.end())..].to_string(),
                ),
                None => (String::new(), line.to_string()),
            };
            clean.starts.push(clean.text.len());
            clean.engine.push(engine);
            clean.text.push_str(&body);
            clean.text.push('\n');
        }
        clean
    }

    /// 1-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }

    /// Every match of `pattern` as (line, number parsed from group 1).
    fn numbers(&self, pattern: &Regex, errors: &mut Vec<Problem>) -> Vec<Read> {
        let mut out = Vec::new();
        for c in pattern.captures_iter(&self.text) {
            let (Some(whole), Some(m)) = (c.get(0), c.get(1)) else {
                continue;
            };
            let line = self.line_of(whole.start());
            match m.as_str().replace(',', "").parse::<u64>() {
                Ok(value) => out.push(Read { value, line }),
                Err(_) => errors.push(Problem::new(
                    line,
                    1,
                    format!("expected a whole number, found `{}`", m.as_str()),
                )),
            }
        }
        out
    }

    fn last(&self, pattern: &Regex, errors: &mut Vec<Problem>) -> Option<Read> {
        self.numbers(pattern, errors).pop()
    }

    /// The data-parallel rank a line belongs to, from its process prefix or an SGLang `DPn` tag.
    fn engine_key(&self, line: usize, body_tag: &Regex) -> String {
        let prefix = &self.engine[line - 1];
        let line_text = &self.text[self.starts[line - 1]..];
        let line_text = line_text.split('\n').next().unwrap_or("");
        let tagged = body_tag
            .captures(line_text)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string());
        match DP_RANK
            .captures(prefix)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string())
            .or(tagged)
        {
            Some(rank) => format!("dp{rank:0>6}"),
            None => prefix.clone(),
        }
    }
}

/// Anchors that say "this line should carry a number": when one is present but its pattern
/// does not match, the line is malformed.
struct Anchor {
    text: &'static str,
    pattern: &'static LazyLock<Regex>,
    expected: &'static str,
}

static V1_KV: LazyLock<Regex> = LazyLock::new(|| re(r"GPU KV cache size: ([\d,]+) tokens"));
static V0_BLOCKS: LazyLock<Regex> = LazyLock::new(|| re(r"# (?:cuda|GPU) blocks: ([\d,]+)"));
static BLOCK_SIZE: LazyLock<Regex> =
    LazyLock::new(|| re(r"['\x22]?block_size['\x22]?\s*[:=]\s*(\d+)"));
static SEQS: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:['\x22]?max_num_seqs['\x22]?\s*[:=]\s*|--max-num-seqs[= ]+)(\d+)"));
static MODEL_LEN: LazyLock<Regex> = LazyLock::new(|| re(r"Using max model len (\d+)"));
static MODEL_LEN_ARG: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:['\x22]?max_model_len['\x22]?\s*[:=]\s*|--max-model-len[= ]+)(\d+)"));
static MAX_CONCURRENCY: LazyLock<Regex> =
    LazyLock::new(|| re(r"Maximum concurrency for ([\d,]+) tokens per request"));
static BATCHED: LazyLock<Regex> =
    LazyLock::new(|| re(r"['\x22]?max_num_batched_tokens['\x22]?\s*[:=]\s*(\d+)"));
static SG_TOTAL: LazyLock<Regex> = LazyLock::new(|| re(r"max_total_num_tokens=(\d+)"));
static SG_ALLOC: LazyLock<Regex> = LazyLock::new(|| re(r"KV Cache is allocated\. #tokens: (\d+)"));
static SG_RUNNING: LazyLock<Regex> = LazyLock::new(|| re(r"max_running_requests=(\d+)"));
static SG_CONTEXT: LazyLock<Regex> = LazyLock::new(|| re(r"context_len(?:gth)?=(\d+)"));
static SG_CHUNK: LazyLock<Regex> = LazyLock::new(|| re(r"chunked_prefill_size=(\d+)"));
static SG_DP: LazyLock<Regex> = LazyLock::new(|| re(r"^\[[^\]]*\bDP(\d+)"));
static TGI_TOTAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"Setting max batch total tokens to (\d+)"));
static TGI_BATCH: LazyLock<Regex> = LazyLock::new(|| re(r"max_batch_size: (?:Some\(\s*)?(\d+)"));
static TGI_CONCURRENT: LazyLock<Regex> = LazyLock::new(|| re(r"max_concurrent_requests: (\d+)"));
static TGI_LEN: LazyLock<Regex> = LazyLock::new(|| re(r"max_total_tokens: (?:Some\(\s*)?(\d+)"));
static TGI_PREFILL: LazyLock<Regex> =
    LazyLock::new(|| re(r"max_batch_prefill_tokens: (?:Some\(\s*)?(\d+)"));
static NEVER: LazyLock<Regex> = LazyLock::new(|| re(r"$^"));

const ANCHORS: [Anchor; 5] = [
    Anchor {
        text: "GPU KV cache size:",
        pattern: &V1_KV,
        expected: "`GPU KV cache size: N tokens`",
    },
    Anchor {
        text: "# cuda blocks:",
        pattern: &V0_BLOCKS,
        expected: "`# cuda blocks: N`",
    },
    Anchor {
        text: "# GPU blocks:",
        pattern: &V0_BLOCKS,
        expected: "`# GPU blocks: N`",
    },
    Anchor {
        text: "KV Cache is allocated",
        pattern: &SG_ALLOC,
        expected: "`KV Cache is allocated. #tokens: N`",
    },
    Anchor {
        text: "Setting max batch total tokens to",
        pattern: &TGI_TOTAL,
        expected: "`Setting max batch total tokens to N`",
    },
];

/// vLLM's default block size on CUDA, used when the log does not print one.
const VLLM_DEFAULT_BLOCK_SIZE: u64 = 16;

/// Read a startup log. Every malformed line is reported, at the column of its anchor text in
/// the raw line (column 1 for a number that does not parse); a log without any KV cache size is
/// an error at 1:1, the whole file.
pub fn parse(raw: &str) -> Result<LogFacts, Vec<Problem>> {
    let clean = Clean::new(raw);
    let mut errors = Vec::new();
    for ((i, line), raw_line) in clean.text.lines().enumerate().zip(raw.lines()) {
        for a in &ANCHORS {
            if line.contains(a.text) && !a.pattern.is_match(line) {
                let column = raw_line
                    .find(a.text)
                    .map_or(1, |at| raw_line[..at].chars().count() + 1);
                errors.push(Problem::new(
                    i + 1,
                    column,
                    format!("expected {}", a.expected),
                ));
            }
        }
    }
    let kind = if SG_TOTAL.is_match(&clean.text)
        || SG_ALLOC.is_match(&clean.text)
        || clean.text.contains("ServerArgs(")
    {
        ServerKind::Sglang
    } else if clean.text.contains("text_generation_") {
        ServerKind::Tgi
    } else {
        ServerKind::Vllm
    };
    let facts = match kind {
        ServerKind::Vllm => vllm(&clean, &mut errors),
        ServerKind::Sglang => sglang(&clean, &mut errors),
        ServerKind::Tgi => tgi(&clean, &mut errors),
    };
    if facts.engines.is_empty() && errors.is_empty() {
        errors.push(Problem {
            line: 1,
            column: 1,
            message: "expected a KV cache size line (vLLM `GPU KV cache size: N tokens` or `# GPU blocks: N`, SGLang `max_total_num_tokens=N`, TGI `Setting max batch total tokens to N`)".to_string(),
        });
    }
    if errors.is_empty() {
        Ok(facts)
    } else {
        Err(errors)
    }
}

/// One value per engine: a later line of the same engine replaces an earlier one (a restart).
fn per_engine(
    clean: &Clean,
    reads: Vec<Read>,
    tag: &Regex,
    warnings: &mut Vec<String>,
) -> Vec<Read> {
    let mut engines: BTreeMap<String, Read> = BTreeMap::new();
    for r in reads {
        if let Some(old) = engines.insert(clean.engine_key(r.line, tag), r)
            && old.value != r.value
        {
            warnings.push(format!("line {}: KV cache size printed again for the same engine (line {}); using the later one", r.line, old.line));
        }
    }
    engines.into_values().collect()
}

fn vllm(clean: &Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let mut warnings = Vec::new();
    let mut kv = clean.numbers(&V1_KV, errors);
    if kv.is_empty() {
        let blocks = clean.numbers(&V0_BLOCKS, errors);
        let block_size = clean.last(&BLOCK_SIZE, errors);
        let size = block_size.map_or(VLLM_DEFAULT_BLOCK_SIZE, |b| b.value);
        if !blocks.is_empty() && block_size.is_none() {
            warnings.push(format!("block size not in the log; assumed vLLM's default {VLLM_DEFAULT_BLOCK_SIZE} tokens per block"));
        }
        kv = blocks
            .into_iter()
            .map(|b| Read {
                value: b.value.saturating_mul(size),
                line: b.line,
            })
            .collect();
    }
    let engines = per_engine(clean, kv, &NEVER, &mut warnings);
    let max_model_len = clean
        .last(&MODEL_LEN, errors)
        .or_else(|| clean.last(&MODEL_LEN_ARG, errors))
        .or_else(|| clean.last(&MAX_CONCURRENCY, errors));
    LogFacts {
        kind: ServerKind::Vllm,
        engines,
        max_num_seqs: clean.last(&SEQS, errors),
        max_model_len,
        max_num_batched_tokens: clean.last(&BATCHED, errors),
        warnings,
    }
}

fn sglang(clean: &Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let mut warnings = Vec::new();
    let mut kv = clean.numbers(&SG_TOTAL, errors);
    if kv.is_empty() {
        kv = clean.numbers(&SG_ALLOC, errors);
    }
    let engines = per_engine(clean, kv, &SG_DP, &mut warnings);
    LogFacts {
        kind: ServerKind::Sglang,
        engines,
        max_num_seqs: clean.last(&SG_RUNNING, errors),
        max_model_len: clean.last(&SG_CONTEXT, errors),
        max_num_batched_tokens: clean.last(&SG_CHUNK, errors),
        warnings,
    }
}

fn tgi(clean: &Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let mut warnings = Vec::new();
    let kv = clean.numbers(&TGI_TOTAL, errors);
    let engines = per_engine(clean, kv, &NEVER, &mut warnings);
    LogFacts {
        kind: ServerKind::Tgi,
        engines,
        max_num_seqs: clean
            .last(&TGI_BATCH, errors)
            .or_else(|| clean.last(&TGI_CONCURRENT, errors)),
        max_model_len: clean.last(&TGI_LEN, errors),
        max_num_batched_tokens: clean.last(&TGI_PREFILL, errors),
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn data_parallel_engines_each_count_and_colours_are_stripped() {
        let log = "\x1b[1;36m(EngineCore_DP0 pid=410)\x1b[0m INFO [kv_cache_utils.py:1] GPU KV cache size: 1,000 tokens\n\
                   (EngineCore_DP1 pid=411) INFO GPU KV cache size: 2,000 tokens, Maximum concurrency for 500 tokens per request: 2.00x\n\
                   (APIServer pid=1) INFO non-default args: {'max_num_seqs': 7, 'data_parallel_size': 2}\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines.iter().map(|e| e.value).collect::<Vec<_>>(),
            vec![1000, 2000]
        );
        assert_eq!(f.max_num_seqs, Some(Read { value: 7, line: 3 }));
        assert_eq!(f.max_model_len.map(|r| r.value), Some(500));
    }

    #[test]
    fn older_vllm_gpu_blocks_times_the_logged_block_size() {
        let log = "INFO args: Namespace(block_size=32, max_num_seqs=64, max_model_len=4096)\n\
                   INFO [executor_base.py:1] # GPU blocks: 1,000, # CPU blocks: 512\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines,
            vec![Read {
                value: 32_000,
                line: 2
            }]
        );
        assert_eq!(f.max_num_seqs.map(|r| r.value), Some(64));
        assert_eq!(f.max_model_len.map(|r| r.value), Some(4096));
        assert!(f.warnings.is_empty());
    }

    #[test]
    fn a_restarted_engine_counts_once() {
        let log = "INFO GPU KV cache size: 1,000 tokens\nINFO GPU KV cache size: 1,200 tokens\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines,
            vec![Read {
                value: 1200,
                line: 2
            }]
        );
        assert_eq!(f.warnings.len(), 1);
    }

    #[test]
    fn a_kv_line_without_a_number_is_located() {
        let errs = parse("ok\n\x1b[32mINFO\x1b[0m GPU KV cache size: lots tokens\n").unwrap_err();
        assert_eq!((errs[0].line, errs[0].column), (2, 15));
        assert!(errs[0].message.contains("GPU KV cache size: N tokens"));
        let whole = &parse("nothing here\n").unwrap_err()[0];
        assert_eq!((whole.line, whole.column), (1, 1));
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC*") {
            let _ = parse(&text);
        }

        #[test]
        fn never_panics_on_near_misses(text in "(GPU KV cache size: |# GPU blocks: |max_total_num_tokens=|\\(EngineCore_DP[0-9] pid=1\\) |[0-9,]{0,30}| tokens|\n){0,12}") {
            let _ = parse(&text);
        }

        #[test]
        fn reads_any_kv_size_back(n in 0u64..10_000_000_000, dp in 1usize..4) {
            let mut log = String::new();
            for rank in 0..dp {
                log.push_str(&format!("(EngineCore_DP{rank} pid={rank}) INFO GPU KV cache size: {n} tokens\n"));
            }
            let f = parse(&log).unwrap();
            prop_assert_eq!(f.engines.len(), dp);
            prop_assert!(f.engines.iter().all(|e| e.value == n));
        }
    }
}

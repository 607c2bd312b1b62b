//! Startup logs of vLLM (0.2 through the newest one-line format, V0 and V1), SGLang and TGI:
//! the KV cache size of every engine, the limits the server was started with, and whether it
//! started at all. Lines are cleaned of ANSI colour codes and of process prefixes like
//! `(EngineCore_DP0 pid=410)` or `(VllmWorker rank=1 pid=7)` before matching; each server's
//! lines live in its own module.

mod sglang;
mod tgi;
mod vllm;

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use crate::diag::Problem;

/// Which server wrote the log, detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ServerKind {
    Vllm,
    Sglang,
    Tgi,
}

/// Where the request limit came from, in the servers' own precedence: an explicit argument
/// beats the usage-context default, which beats the platform default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum LimitSource {
    /// The server's arguments as it printed them: vLLM's `non-default args` (only what was set)
    /// or `args: Namespace(..)` (older versions print every value there, defaults included),
    /// SGLang's `ServerArgs`, TGI's `max_batch_size`.
    Argument,
    /// vLLM's default for the usage context: `Setting max_num_seqs to N for LLM_CLASS usage context.`
    UsageContext,
    /// The value the server printed as in effect: SGLang's scheduler line, TGI launcher's `Args`.
    Server,
    /// Not in the log: the server's platform default, assumed.
    Default,
}

/// A number read from a log, with its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Read {
    pub(crate) value: u64,
    pub(crate) line: usize,
}

/// A start that did not finish: the engine never served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) line: usize,
    pub(crate) reason: String,
}

/// What one startup log says about its box.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LogFacts {
    pub(crate) kind: ServerKind,
    /// KV cache tokens of each engine (data-parallel rank), in rank order; within an engine the
    /// smallest of its workers' sizes, as vLLM's `unify_kv_cache_configs` does.
    pub(crate) engines: Vec<Read>,
    pub(crate) max_num_seqs: Option<(Read, LimitSource)>,
    pub(crate) max_model_len: Option<Read>,
    pub(crate) max_num_batched_tokens: Option<Read>,
    /// vLLM's own `Maximum concurrency for N tokens per request: Xx` of each engine, with its
    /// line, in the order of `engines` (empty when not printed).
    pub(crate) max_concurrency: Vec<(f64, usize)>,
    pub(crate) failed: Option<Failure>,
    pub(crate) warnings: Vec<String>,
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

static ANSI: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b\[[0-9;?]*[ -/]*[@-~]"));
static PREFIX: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\s*\(([A-Za-z][\w.-]*)(?: rank=\d+)? pid=\d+(?:, ip=[^)]*)?\)\s*"));
static DP_RANK: LazyLock<Regex> = LazyLock::new(|| re(r"(?:DP_?|EngineCore_)(\d+)"));

/// A cleaned log: one string, with each line's start offset, process prefix and raw text kept.
pub(crate) struct Clean<'a> {
    text: String,
    starts: Vec<usize>,
    prefix: Vec<String>,
    raw: Vec<&'a str>,
    /// The first line of the server life that is read (1-based): earlier lives are skipped.
    from: usize,
}

impl<'a> Clean<'a> {
    fn new(raw: &'a str) -> Clean<'a> {
        let mut clean = Clean {
            text: String::with_capacity(raw.len()),
            starts: Vec::new(),
            prefix: Vec::new(),
            raw: Vec::new(),
            from: 1,
        };
        for raw_line in raw.lines() {
            let line = ANSI.replace_all(raw_line.trim_end_matches('\r'), "");
            let (prefix, body) = match PREFIX.captures(&line) {
                Some(c) => (
                    c[1].to_string(),
                    line[c.get(0).map_or(0, |m| m.end())..].to_string(),
                ),
                None => (String::new(), line.to_string()),
            };
            clean.starts.push(clean.text.len());
            clean.prefix.push(prefix);
            clean.raw.push(raw_line);
            clean.text.push_str(&body);
            clean.text.push('\n');
        }
        clean
    }

    /// 1-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }

    /// The cleaned text of a 1-based line.
    fn line(&self, line: usize) -> &str {
        let start = self.starts[line - 1];
        let end = self.starts.get(line).map_or(self.text.len(), |&e| e - 1);
        &self.text[start..end]
    }

    /// 1-based column, in the raw line, of `found` (a piece of the cleaned line `line`).
    fn column(&self, line: usize, found: &str, clean_offset: usize) -> usize {
        let raw = self.raw[line - 1];
        match raw.find(found) {
            Some(at) => raw[..at].chars().count() + 1,
            None => self.line(line)[..clean_offset].chars().count() + 1,
        }
    }

    /// Every match of `pattern` in the life being read, as (line, number parsed from group 1).
    fn numbers(&self, pattern: &Regex, errors: &mut Vec<Problem>) -> Vec<Read> {
        self.captures(pattern)
            .filter_map(|(line, c)| {
                let m = c.get(1)?;
                parse_number(self, line, m, errors).map(|value| Read { value, line })
            })
            .collect()
    }

    /// Every match of `pattern` in the life being read, with the line of its group 1.
    fn captures<'s>(
        &'s self,
        pattern: &'s Regex,
    ) -> impl Iterator<Item = (usize, regex::Captures<'s>)> + 's {
        pattern.captures_iter(&self.text).filter_map(move |c| {
            let at = c.get(1).or_else(|| c.get(0))?.start();
            let line = self.line_of(at);
            (line >= self.from).then_some((line, c))
        })
    }

    fn last(&self, pattern: &Regex, errors: &mut Vec<Problem>) -> Option<Read> {
        self.numbers(pattern, errors).pop()
    }

    /// The request limit from the first of `sources` (in the server's precedence) the log states.
    fn limit(
        &self,
        sources: &[(&Regex, LimitSource)],
        errors: &mut Vec<Problem>,
    ) -> Option<(Read, LimitSource)> {
        sources
            .iter()
            .find_map(|(pattern, source)| self.last(pattern, errors).map(|r| (r, *source)))
    }

    /// The first line of the life being read matching `pattern`.
    fn first_line(&self, pattern: &Regex) -> Option<usize> {
        self.captures(pattern).map(|(line, _)| line).next()
    }

    /// The data-parallel rank a line belongs to, from its process prefix or an SGLang `DPn` tag;
    /// every other worker (tensor or pipeline parallel) belongs to the one engine.
    fn engine_key(&self, line: usize, body_tag: Option<&Regex>) -> String {
        let rank = |text: &str, re: &Regex| {
            re.captures(text)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_string())
        };
        rank(&self.prefix[line - 1], &DP_RANK)
            .or_else(|| body_tag.and_then(|t| rank(self.line(line), t)))
            .map_or_else(String::new, |r| format!("dp{r:0>6}"))
    }

    /// Start reading at the last server life: a `marker` line after an `outcome` line (a KV
    /// cache size, or a failed start) starts a new one. Returns a warning when the log holds
    /// more than one start.
    fn last_life(&mut self, marker: &Regex, outcome: &[&Regex]) -> Option<String> {
        let kv_lines: Vec<usize> = outcome
            .iter()
            .flat_map(|p| self.captures(p).map(|(l, _)| l).collect::<Vec<_>>())
            .collect();
        let mut starts = vec![1];
        let mut start = 1;
        for (line, _) in self.captures(marker).collect::<Vec<_>>() {
            if kv_lines.iter().any(|&k| k >= start && k < line) {
                starts.push(line);
            }
            start = line;
        }
        let lives = starts.len();
        self.from = *starts.last().unwrap_or(&1);
        (lives > 1).then(|| {
            format!(
                "the log holds {lives} server starts; read the last one, from line {}",
                self.from
            )
        })
    }
}

fn parse_number(
    clean: &Clean,
    line: usize,
    m: regex::Match,
    errors: &mut Vec<Problem>,
) -> Option<u64> {
    let parsed = m.as_str().replace(',', "").parse::<u64>();
    if parsed.is_err() {
        let offset = m.start() - clean.starts[line - 1];
        errors.push(Problem::new(
            line,
            clean.column(line, m.as_str(), offset),
            format!("expected a whole number, found `{}`", m.as_str()),
        ));
    }
    parsed.ok()
}

/// One value per engine: the smallest of the lines an engine printed (one per worker).
fn per_engine(clean: &Clean, reads: Vec<Read>, tag: Option<&Regex>) -> Vec<Read> {
    let mut engines: BTreeMap<String, Read> = BTreeMap::new();
    for r in reads {
        let slot = engines.entry(clean.engine_key(r.line, tag)).or_insert(r);
        if r.value < slot.value {
            *slot = r;
        }
    }
    engines.into_values().collect()
}

/// A line that says "this line should carry a number": when the anchor matches but its
/// pattern does not, the line is malformed.
pub(crate) struct Anchor {
    anchor: &'static LazyLock<Regex>,
    pattern: &'static LazyLock<Regex>,
    expected: &'static str,
}

/// A failed start: the first line matching `pattern`, described as `reason`.
fn failure(clean: &Clean, pattern: &Regex, reason: &str) -> Option<Failure> {
    clean.first_line(pattern).map(|line| Failure {
        line,
        reason: reason.to_string(),
    })
}

/// Read a startup log. Every malformed line is reported at the column of its anchor text in
/// the raw line; a log with neither a KV cache size nor a failed start is an error at 1:1, the
/// whole file.
pub(crate) fn parse(raw: &str) -> Result<LogFacts, Vec<Problem>> {
    let mut clean = Clean::new(raw);
    let mut errors = Vec::new();
    let anchors = vllm::ANCHORS
        .iter()
        .chain(sglang::ANCHORS.iter())
        .chain(tgi::ANCHORS.iter());
    for a in anchors {
        for m in a.anchor.find_iter(&clean.text) {
            let line = clean.line_of(m.start());
            if !a.pattern.is_match(clean.line(line)) {
                let offset = m.start() - clean.starts[line - 1];
                errors.push(Problem::new(
                    line,
                    clean.column(line, m.as_str().trim_start(), offset),
                    format!("expected {}", a.expected),
                ));
            }
        }
    }
    errors.sort_by_key(|p| (p.line, p.column));
    let kind = if sglang::detect(&clean.text) {
        ServerKind::Sglang
    } else if tgi::detect(&clean.text) {
        ServerKind::Tgi
    } else {
        ServerKind::Vllm
    };
    let facts = match kind {
        ServerKind::Vllm => vllm::read(&mut clean, &mut errors),
        ServerKind::Sglang => sglang::read(&mut clean, &mut errors),
        ServerKind::Tgi => tgi::read(&mut clean, &mut errors),
    };
    if facts.engines.is_empty() && facts.failed.is_none() && errors.is_empty() {
        errors.push(Problem::new(1, 1, "expected a KV cache size line (vLLM `GPU KV cache size: N tokens` or `# GPU blocks: N`, SGLang `max_total_num_tokens=N` or `KV Cache is allocated. #tokens: N`, TGI `Setting max batch total tokens to N`)"));
    }
    if errors.is_empty() {
        Ok(facts)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_kv_line_without_a_number_is_located() {
        let errs = parse("ok\n\x1b[32mINFO\x1b[0m GPU KV cache size: lots tokens\n").unwrap_err();
        assert_eq!((errs[0].line, errs[0].column), (2, 15));
        assert!(errs[0].message.contains("GPU KV cache size: N tokens"));
        let whole = &parse("nothing here\n").unwrap_err()[0];
        assert_eq!((whole.line, whole.column), (1, 1));
    }

    #[test]
    fn process_prefixes_of_every_vintage_are_stripped() {
        for prefix in [
            "(EngineCore_DP0 pid=410) ",
            "(VllmWorker rank=1 pid=7) ",
            "(VllmWorkerProcess pid=1786) ",
            "(RayWorkerWrapper pid=12, ip=10.0.0.2) ",
            "(Worker_PP1_TP0 pid=3) ",
        ] {
            let c = Clean::new(&format!("{prefix}INFO x\n")).text;
            assert_eq!(c, "INFO x\n", "{prefix}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC*") {
            let _ = parse(&text);
        }

        #[test]
        fn never_panics_on_near_misses(text in "(GPU KV cache size: |# GPU blocks: |# CUDA blocks: |max_total_num_tokens=|Setting max batch total tokens to |Maximum concurrency for |\\(EngineCore_DP[0-9] pid=1\\) |[0-9,]{0,30}| tokens|\n){0,12}") {
            let _ = parse(&text);
        }

        #[test]
        fn reads_any_kv_size_back(n in 1u64..10_000_000_000, dp in 1usize..4) {
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

//! Startup logs of vLLM (0.2 through the newest one-line format, V0 and V1), SGLang and TGI:
//! the KV cache size of every engine, the limits the server was started with, and whether it
//! started at all. Lines are cleaned of ANSI colour codes and of process prefixes like
//! `(EngineCore_DP0 pid=410)` or `(VllmWorker rank=1 pid=7)` before matching; each server's
//! lines live in its own module. Lines the server did not print (a shell prompt, the command
//! that started it, its continuation lines) never supply a figure, and sections pasted in any
//! order are read as one server life unless the log really restarted (see [`Clean::last_life`]).

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
    /// 1-based column, in the raw line, of the text that says so.
    pub(crate) column: usize,
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
    /// vLLM blocks' size in tokens, when the KV size was printed in blocks.
    pub(crate) block_size: Option<BlockSize>,
    /// TGI's router admission limit (`max_concurrent_requests`): requests past it are refused.
    pub(crate) admission_limit: Option<(Read, LimitSource)>,
    pub(crate) failed: Option<Failure>,
    pub(crate) warnings: Vec<String>,
    /// Lines read as not the server's (a shell command pasted above the log), 1-based.
    pub(crate) foreign_lines: Vec<usize>,
}

/// Where a vLLM block size came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BlockSizeSource {
    /// Printed in the server's arguments (`block_size=16`, `'block_size': 32`).
    Log,
    /// Fixed by the server's own `Maximum concurrency for N tokens per request: Xx`, which is
    /// blocks x block size / N.
    Concurrency,
    /// Not in the log: vLLM's default on CUDA, assumed.
    Default,
}

/// A block size, where it came from, and its line (0 when assumed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockSize {
    pub(crate) tokens: u64,
    pub(crate) source: BlockSizeSource,
    pub(crate) line: usize,
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static regex")
}

static ANSI: LazyLock<Regex> = LazyLock::new(|| re(r"\x1b\[[0-9;?]*[ -/]*[@-~]"));
static PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^[ \t]*\(([A-Za-z][0-9A-Za-z_.-]*)(?: rank=[0-9]+)? pid=[0-9]+(?:, ip=[^)]*)?\)[ \t]*")
});
static DP_RANK: LazyLock<Regex> = LazyLock::new(|| re(r"(?:DP_?|EngineCore_)([0-9]+)"));
/// A shell prompt (`user@host:~/dir$ `, `(venv) user@host:~$ `, `$ `, `>>> `).
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^[ \t]*(?:\([0-9A-Za-z_.-]+\)[ \t]+)?(?:[0-9A-Za-z_.-]+@[0-9A-Za-z_.-]+:[^ \t\n]*[ \t]?[$#]|\$|>>>)[ \t]",
    )
});
/// The command that starts a server, as a user types it (environment assignments first).
static COMMAND: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^[ \t]*(?:[A-Za-z_](?-u:\w)*=[^ \t\n]*[ \t]+)*(?:sudo[ \t]+)?(?:[^ \t\n]*/)?(?:vllm[ \t]+serve(?-u:\b)|python3?(?:\.[0-9]+)?[ \t]+(?:-m[ \t]+)?(?:vllm|sglang)(?-u:\b)|sglang[ \t]+serve(?-u:\b)|text-generation-launcher[ \t]|docker[ \t]+run(?-u:\b)|podman[ \t]+run(?-u:\b)|nohup[ \t]|(?:[A-Za-z_](?-u:\w)*=[^ \t\n]*[ \t]+)+\\$)",
    )
});

/// A cleaned log: one string, with each line's start offset, process prefix and raw text kept.
pub(crate) struct Clean<'a> {
    text: String,
    starts: Vec<usize>,
    prefix: Vec<String>,
    raw: Vec<&'a str>,
    /// Lines the server did not print: a prompt, a command, and the command's continuations.
    foreign: Vec<bool>,
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
            foreign: Vec::new(),
            from: 1,
        };
        let mut continued = false;
        for raw_line in raw.lines() {
            let line = ANSI.replace_all(raw_line.trim_end_matches('\r'), "");
            let (prefix, body) = match PREFIX.captures(&line) {
                Some(c) => (
                    c[1].to_string(),
                    line[c.get(0).map_or(0, |m| m.end())..].to_string(),
                ),
                None => (String::new(), line.to_string()),
            };
            let foreign = continued || PROMPT.is_match(&body) || COMMAND.is_match(&body);
            continued = foreign && body.trim_end().ends_with('\\');
            clean.foreign.push(foreign);
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
            (line >= self.from && !self.foreign[line - 1]).then_some((line, c))
        })
    }

    /// Every match in any life (restart detection looks at all of them), the server's lines only.
    fn all_lines(&self, pattern: &Regex) -> Vec<usize> {
        pattern
            .find_iter(&self.text)
            .map(|m| self.line_of(m.start()))
            .filter(|&l| !self.foreign[l - 1])
            .collect()
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

    /// Start reading at the last server life. A `banner` line (printed once per start: vLLM's
    /// `vLLM API server version`, SGLang's `ServerArgs(..)`, TGI's `Args {`) or an engine's
    /// `init` line begins a new life only when an outcome (a KV cache size, a failed start) came
    /// before it (for an init line, an outcome of the same engine) and another comes after it: a
    /// section pasted out of order (the arguments below the KV lines) is no restart, and an
    /// arguments line is never one. Returns a warning when the log holds more than one start.
    fn last_life(
        &mut self,
        banner: &Regex,
        init: Option<&Regex>,
        outcome: &[&Regex],
        tag: Option<&Regex>,
    ) -> Option<String> {
        let mut outcomes: Vec<(usize, String)> = outcome
            .iter()
            .flat_map(|p| self.all_lines(p))
            .map(|l| (l, self.engine_key(l, tag)))
            .collect();
        outcomes.sort();
        let mut markers: Vec<(usize, Option<String>)> = self
            .all_lines(banner)
            .into_iter()
            .map(|l| (l, None))
            .collect();
        if let Some(init) = init {
            markers.extend(
                self.all_lines(init)
                    .into_iter()
                    .map(|l| (l, Some(self.engine_key(l, tag)))),
            );
        }
        markers.sort();
        let mut starts = vec![1];
        for (line, key) in markers {
            let from = *starts.last().unwrap_or(&1);
            let before = outcomes
                .iter()
                .any(|(o, k)| *o >= from && *o < line && key.as_ref().is_none_or(|key| key == k));
            let after = outcomes.iter().any(|(o, _)| *o > line);
            if before && after {
                starts.push(line);
            }
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

    /// The lines read as not the server's, for the report.
    fn foreign_lines(&self) -> Vec<usize> {
        (1..=self.foreign.len())
            .filter(|&l| self.foreign[l - 1])
            .collect()
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

/// A failed start: the first line matching `pattern`, described as `reason`, located at the
/// column of the text that matched.
fn failure(clean: &Clean, pattern: &Regex, reason: &str) -> Option<Failure> {
    clean
        .captures(pattern)
        .next()
        .map(|(line, c)| failure_at(clean, line, &c, reason.to_string()))
}

/// A failure at `line`, at the column of the whole match `c`.
fn failure_at(clean: &Clean, line: usize, c: &regex::Captures, reason: String) -> Failure {
    let m = c.get(0).map_or("", |m| m.as_str());
    let offset = c.get(0).map_or(0, |m| m.start() - clean.starts[line - 1]);
    Failure {
        line,
        column: clean.column(line, m, offset),
        reason,
    }
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
            let offset = m.start() - clean.starts[line - 1];
            // The pattern must hold where its anchor stands: a good `# CPU blocks: 10` later on
            // the line does not excuse a bad `# GPU blocks: many`.
            let here = a
                .pattern
                .find_at(clean.line(line), offset)
                .is_some_and(|p| p.start() == offset);
            if !clean.foreign[line - 1] && !here {
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
    let mut facts = match kind {
        ServerKind::Vllm => vllm::read(&mut clean, &mut errors),
        ServerKind::Sglang => sglang::read(&mut clean, &mut errors),
        ServerKind::Tgi => tgi::read(&mut clean, &mut errors),
    };
    facts.foreign_lines = clean.foreign_lines();
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

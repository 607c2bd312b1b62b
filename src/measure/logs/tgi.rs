//! TGI's startup lines, 0.9 to 3.x: the router's `Setting max batch total tokens to N` (the KV
//! budget; older launchers only state `max_batch_total_tokens` in `Args`), the launcher's
//! `Args { .. }` (one line or pretty-printed, `Some(N)` or `N`), its `Default \`max_total_tokens\`
//! to N` (3.x: `Maximum total tokens defaulted to N`), and JSON output (`--json-output`), where
//! the same texts sit in `"message"`. `max_concurrent_requests` is the router's admission limit
//! (a semaphore: requests past it are refused), read under its own name; the batch's own limit is
//! `max_batch_size` when set, else the KV budget alone.

use std::sync::LazyLock;

use regex::Regex;

use super::{Anchor, Clean, LimitSource, LogFacts, ServerKind, failure, per_engine, re};
use crate::diag::Problem;

static TOTAL: LazyLock<Regex> = LazyLock::new(|| re(r"Setting max batch total tokens to ([0-9]+)"));
static TOTAL_ANCHOR: LazyLock<Regex> = LazyLock::new(|| re(r"Setting max batch total tokens to"));
static ARGS_TOTAL: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?-u:\b)max_batch_total_tokens: (?:Some\([ \t\n]*)?([0-9]+)"));
static BATCH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?-u:\b)max_batch_size: (?:Some\([ \t\n]*)?([0-9]+)"));
static CONCURRENT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?-u:\b)max_concurrent_requests: ([0-9]+)"));
static LEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?-u:\b)max_total_tokens: (?:Some\([ \t\n]*)?([0-9]+)"));
/// The launcher's default (2.x) and the v3 router's (3.x).
static DEFAULT_LEN: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?:Default `max_total_tokens` to|Maximum total tokens defaulted to) ([0-9]+)")
});
static PREFILL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?:(?-u:\b)max_batch_prefill_tokens: (?:Some\([ \t\n]*)?|Default `max_batch_prefill_tokens` to )([0-9]+)",
    )
});
/// The launcher's, the router's and a shard's own failure lines.
static FAILED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"Shard [0-9]+ failed to start|Error: (?:ShardCannotStart|ShardFailed|WebserverFailed)|Webserver Crashed|Not enough memory to handle|Error when initializing model",
    )
});
/// The launcher's first line, once per start.
static BANNER: LazyLock<Regex> =
    LazyLock::new(|| re(r"text_generation_launcher: Args \{|\x22Args \{"));

pub(super) const ANCHORS: [Anchor; 1] = [Anchor {
    anchor: &TOTAL_ANCHOR,
    pattern: &TOTAL,
    expected: "`Setting max batch total tokens to N`",
}];

pub(super) fn detect(text: &str) -> bool {
    text.contains("text_generation_")
}

pub(super) fn read(clean: &mut Clean, errors: &mut Vec<Problem>) -> LogFacts {
    let warnings = clean
        .last_life(&BANNER, None, &[&TOTAL, &FAILED], None)
        .into_iter()
        .collect();
    let mut kv = clean.numbers(&TOTAL, errors);
    if kv.is_empty() {
        kv = clean.numbers(&ARGS_TOTAL, errors);
    }
    let max_num_seqs = clean.limit(&[(&BATCH, LimitSource::Argument)], errors);
    let admission_limit = clean.limit(&[(&CONCURRENT, LimitSource::Server)], errors);
    LogFacts {
        kind: ServerKind::Tgi,
        engines: per_engine(clean, kv, None),
        max_num_seqs,
        max_model_len: clean
            .last(&LEN, errors)
            .or_else(|| clean.last(&DEFAULT_LEN, errors)),
        max_num_batched_tokens: clean.last(&PREFILL, errors),
        max_concurrency: Vec::new(),
        block_size: None,
        admission_limit,
        failed: failure(clean, &FAILED, "the launcher or router failed to start"),
        warnings,
        foreign_lines: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Read, parse};
    use super::*;

    #[test]
    fn launcher_defaults_and_one_line_args() {
        let log = "Z INFO text_generation_launcher: Default `max_total_tokens` to 4096\n\
                   Z INFO text_generation_router: Setting max batch total tokens to 801568\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.max_model_len,
            Some(Read {
                value: 4096,
                line: 1
            })
        );
        assert_eq!(f.max_num_seqs, None);
        let v3 = "Z INFO text_generation_router_v3: backends/v3/src/main.rs:174: Maximum total tokens defaulted to 131072\n\
                  Z INFO text_generation_router_v3: backends/v3/src/lib.rs:137: Setting max batch total tokens to 1490816\n";
        let f = parse(v3).unwrap();
        assert_eq!(f.max_model_len.map(|r| r.value), Some(131_072));
        let log = "Z INFO text_generation_launcher: Args { max_concurrent_requests: 64, max_total_tokens: 8192, max_batch_total_tokens: 16000, max_batch_size: None }\n";
        let f = parse(log).unwrap();
        assert_eq!(
            f.engines,
            vec![Read {
                value: 16000,
                line: 1
            }]
        );
        assert_eq!(
            f.max_num_seqs, None,
            "the router's admission limit is no batch limit"
        );
        assert_eq!(
            f.admission_limit,
            Some((Read { value: 64, line: 1 }, LimitSource::Server))
        );
        assert_eq!(f.max_model_len.map(|r| r.value), Some(8192));
    }
}

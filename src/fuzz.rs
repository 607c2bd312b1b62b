//! Fuzz targets, as property tests (unit tests of the library, so they reach its internals): the `.rs` front end (the signature scan, the depth bound, the
//! sparse parse, syn and the one walk with every collector), the Prometheus parser, the log readers, the manifest
//! reader and `expr` take any text without a panic. Each target runs `CAPCHECK_FUZZ_CASES` inputs
//! (300 by default, seconds in CI; `CAPCHECK_FUZZ_CASES=10000000 cargo test --release --lib
//! fuzz` for a long run). Inputs mix arbitrary text with fragments of each format, so
//! most reach past the first line.

use std::collections::BTreeMap;

use crate::syntax::{FileRole, depth, parse_file_with, scope::Scope, sparse, walk};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

fn cases() -> u32 {
    std::env::var("CAPCHECK_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Text built from `fragments` and arbitrary characters, joined by nothing or a space/newline.
fn text_of(fragments: &'static [&'static str]) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => proptest::sample::select(fragments).prop_map(str::to_string),
        // Compiled once: a `&str` strategy compiles its regex for every input it draws.
        1 => proptest::string::string_regex("\\PC{0,6}").expect("a valid regex"),
        1 => proptest::sample::select(&[" ", "\n", "\r\n", "\t", "\u{feff}", "é", "\0"][..])
            .prop_map(str::to_string),
    ];
    proptest::collection::vec(piece, 0..80).prop_map(|p| p.concat())
}

/// Run `target` on `cases()` inputs from `strategy`, on a thread with the stack every thread
/// that parses gets in the binary (`depth::STACK`).
fn fuzz<S: Strategy<Value = String> + Send + 'static>(
    name: &'static str,
    strategy: S,
    target: fn(&str),
) {
    fuzz_n(name, cases(), strategy, target);
}

fn fuzz_n<S: Strategy<Value = String> + Send + 'static>(
    name: &'static str,
    cases: u32,
    strategy: S,
    target: fn(&str),
) {
    std::thread::Builder::new()
        .name(name.into())
        .stack_size(depth::STACK)
        .spawn(move || {
            let mut runner = TestRunner::new(Config {
                cases,
                failure_persistence: None,
                ..Config::default()
            });
            let result = runner.run(&strategy, |text| {
                target(&text);
                Ok(())
            });
            if let Err(e) = result {
                panic!("{name}: {e}");
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

const RUST: &[&str] = &[
    "fn",
    "f",
    "g",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    ";",
    ":",
    "::",
    "=",
    "==",
    "=>",
    "->",
    "+",
    "-",
    "*",
    "/",
    "&",
    "&&",
    "|",
    "||",
    "!",
    "?",
    ".",
    "..",
    "..=",
    "#",
    "'a",
    "'x'",
    "\"s\"",
    "r#\"raw\"#",
    "b\"b\"",
    "1",
    "8",
    "0x10",
    "1_024",
    "1e3",
    "u64",
    "usize",
    "let",
    "mut",
    "const",
    "static",
    "pub",
    "struct",
    "enum",
    "impl",
    "trait",
    "mod",
    "use",
    "match",
    "if",
    "else",
    "for",
    "in",
    "while",
    "loop",
    "return",
    "as",
    "async",
    "await",
    "move",
    "unsafe",
    "where",
    "dyn",
    "Self",
    "self",
    "crate",
    "super",
    "#[cfg(test)]",
    "#[test]",
    "#![cfg(test)]",
    "#[derive(Debug)]",
    "mod tests",
    "MAX_CONCURRENCY",
    "POOL_SIZE",
    "max_in_flight",
    "batch_size",
    "Semaphore::new",
    "tokio::sync::mpsc::channel",
    "assert!",
    "assert_eq!",
    "vec!",
    "format!",
    "macro_rules!",
    "min",
    "max",
    "clamp",
    "saturating_mul",
    "with_capacity",
    "Some",
    "None",
    "Config",
    "Default::default()",
    "/*",
    "*/",
    "//",
    "///",
    "/** d */",
    "capcheck: allow",
];

/// Read `text` as the load does: the signature scan, the depth bound, the sparse parse
/// (production and test roles) and the full parse, each walked with every collector.
fn front_end(text: &str) {
    // One folder for the whole binary and one file per thread: a folder per input made the
    // file system, not the parser, the cost of a 10-million run.
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap());
    let path = dir
        .path()
        .join(format!("{:?}.rs", std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::write(&path, text).unwrap();
    // Built once, as the load builds them once per run.
    static TABLES: std::sync::OnceLock<crate::index::Tables> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(|| crate::index::Tables::new(&Default::default()));
    let triggers = crate::index::Triggers::new(tables, Vec::new());
    // The one lexing before the walk (capacity parameters and the depth bound), as the load
    // runs it; the streaming scan must read what the collected one reads.
    let pre = crate::index::params::prescan(text, Some(&tables.capacity_names), None);
    assert_eq!(
        pre.sigs,
        crate::index::params::sigs(text, &tables.capacity_names)
    );
    for (role, sparse_parse) in [
        (FileRole::Source, true),
        (FileRole::Test, true),
        (FileRole::Source, false),
    ] {
        let prepare = |t: &str| {
            sparse_parse
                .then(|| sparse::sparse(t, role == FileRole::Test, &mut triggers.classifier()))
                .flatten()
        };
        let Ok(mut parsed) =
            parse_file_with(&path, "src/lib.rs", Some((text, pre.too_deep)), prepare)
        else {
            continue;
        };
        let scope = Scope::file("fuzz", &[], role, &parsed.ast);
        let mut index = crate::index::extract::Extractor::new(tables, "src/lib.rs", role)
            .with_lexical(std::mem::take(&mut parsed.lexical));
        let mut fixtures = crate::fixture_model::collect::Collector::new("src/lib.rs");
        let mut code = crate::fixture_model::reads::CodeCollector::new("src/lib.rs");
        let mut sites = crate::operators::SiteCollector::new(tables, &[]);
        let mut collectors: Vec<&mut dyn walk::Collector> =
            vec![&mut index, &mut fixtures, &mut code, &mut sites];
        walk::Walk {
            format_macros: true,
        }
        .run(
            "src/lib.rs",
            &parsed.text,
            scope,
            &parsed.ast,
            &mut collectors,
        );
        drop(parsed.ast);
        proc_macro2::extra::invalidate_current_thread_spans();
    }
}

#[test]
fn the_rust_front_end_takes_any_text() {
    fuzz("rust", text_of(RUST), front_end);
}

#[test]
fn the_rust_front_end_takes_deep_and_long_nesting() {
    let open = proptest::sample::select(&["(", "[", "{", "-", "!", "&", "1 + ", "f()", "x."][..]);
    let strategy = (open, 0usize..4_000).prop_map(|(o, n)| {
        let close = match o {
            "(" => ")",
            "[" => "]",
            "{" => "}",
            _ => "",
        };
        format!("fn f() {{ {}1{} }}", o.repeat(n), close.repeat(n))
    });
    // Deep trees cost the walk's collectors time quadratic in the depth (syn's `Spanned` walks a
    // node's tokens); a tenth of the cases keeps the target to seconds.
    fuzz_n("deep", (cases() / 10).max(1), strategy, front_end);
}

const PROM: &[&str] = &[
    "# HELP ",
    "# TYPE ",
    " counter",
    " gauge",
    " histogram",
    " summary",
    " untyped",
    "vllm:",
    "num_requests_running",
    "_bucket",
    "_sum",
    "_count",
    "_total",
    "{",
    "}",
    "le=",
    "\"+Inf\"",
    "\"0.5\"",
    "model_name=\"m\"",
    ",",
    "=",
    "\"",
    "\\\"",
    "\\n",
    " 1",
    " 0",
    " -1",
    " NaN",
    " +Inf",
    " -Inf",
    " 1e300",
    " 1.5",
    " 1700000000000",
    "\n",
    "# EOF",
    ":",
    "_",
];

#[test]
fn the_prometheus_parser_takes_any_text() {
    fuzz("prom", text_of(PROM), |t| {
        let _ = crate::measure::prom::parse(t);
    });
}

const LOGS: &[&str] = &[
    "INFO ",
    "WARNING ",
    "DEBUG ",
    "ERROR ",
    "01-01 00:00:00 ",
    "[kv_cache_utils.py:1] ",
    "GPU KV cache size: ",
    "1,490,816",
    " tokens",
    "Maximum concurrency for ",
    "131,072",
    " tokens per request: ",
    "11.37x",
    "max_num_seqs=",
    "max_model_len=",
    "160",
    "Namespace(",
    ")",
    "non-default args: {",
    "'max_num_seqs': 256",
    "}",
    "(EngineCore_DP0 pid=1) ",
    "(APIServer pid=2) ",
    "[OPENAI_API_SERVER]",
    "max_total_num_tokens=",
    "max_running_requests=",
    "context_len=",
    "Maximum total tokens defaulted to ",
    "Setting max batch total tokens to ",
    "text_generation_router",
    "Starting",
    "vLLM API server version 0.10.0",
    "sglang",
    "tgi",
    "\u{1b}[0m",
    "\u{1b}[32m",
    "\r",
    "\n",
    "=",
    ":",
    ",",
];

#[test]
fn the_log_readers_take_any_text() {
    fuzz("logs", text_of(LOGS), |t| {
        let _ = crate::measure::logs::parse(t);
    });
}

const MANIFEST: &[&str] = &[
    "[[capacity]]",
    "[workload]",
    "[derived]",
    "capacity = [",
    "]",
    "{",
    "}",
    "site = ",
    "\"faults::MAX_CONCURRENCY\"",
    "\"Type::field\"",
    "\"a::b#2\"",
    "value = ",
    "expr = ",
    "role = ",
    "method = ",
    "\"cap\"",
    "\"measured\"",
    "\"derived\"",
    "\"unmeasured\"",
    "re_measure_after = ",
    "\"2026-02-31\"",
    "2027-01-01",
    "natural_bound = ",
    "per_box = ",
    "8",
    "-8",
    "nan",
    "inf",
    "1e300",
    "0.5",
    "99999999999999999999",
    "\"min(per_box, 2) * 3\"",
    "\"(1 + 2\"",
    "\"8 / (2 - 2)\"",
    "evidence = ",
    "\"",
    "'",
    "=",
    ",",
    "\n",
    "# capcheck: allow",
];

#[test]
fn the_manifest_reader_takes_any_text() {
    fuzz("manifest", text_of(MANIFEST), |t| {
        let _ = crate::manifest::parse::parse("capacity.toml", t);
    });
}

const EXPR: &[&str] = &[
    "(",
    ")",
    "+",
    "-",
    "*",
    "/",
    ",",
    "min(",
    "max(",
    "floor(",
    "ceil(",
    "avg(",
    "per_box",
    "big",
    "x.y",
    "1",
    "0",
    "0.1",
    "1_000",
    "99999999999999999999999999999999999999999",
    ".",
    "_",
    " ",
];

#[test]
fn expr_takes_any_text() {
    fuzz("expr", text_of(EXPR), |t| {
        use crate::manifest::eval::{Num, eval, parse};
        let vars = BTreeMap::from([
            ("per_box".to_string(), Num::int(14)),
            ("big".to_string(), Num::int(i64::MAX)),
            ("x.y".to_string(), Num::float(0.9)),
        ]);
        if let Ok(e) = parse(t) {
            let _ = eval(&e, &vars);
        }
    });
}

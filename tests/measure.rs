//! `cargo capcheck measure` on the sample evidence in fixtures/measure, through the real binary.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;

use serde_json::Value;

const V1_LOG: &str = "fixtures/measure/vllm/vllm_v1_startup_latest.log";
const V1_BOX: &str = "box-a=fixtures/measure/vllm/vllm_v1_startup_latest.log";
const T0: &str = "fixtures/measure/vllm/vllm_v1_metrics_t0.prom";
const T1: &str = "fixtures/measure/vllm/vllm_v1_metrics_t1.prom";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run `cargo-capcheck measure ARGS` in `dir`.
fn measure_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .arg("measure")
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("run cargo-capcheck")
}

fn measure(args: &[&str]) -> Output {
    measure_in(&root(), args)
}

/// Run with `--format json`, expect success, and return the report.
fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = measure(&all);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json on stdout")
}

fn num(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("no number at {pointer} in {v:#}"))
}

/// Equal within 1e-9 relative, or equal once rounded to the decimals the expected value shows
/// (EXPECTED_vllm_v1_window.json prints quantiles to 6 decimals and shares to 4).
fn assert_same(what: &str, actual: f64, expected: f64) {
    let decimals = format!("{expected}")
        .split_once('.')
        .map_or(0, |(_, d)| d.len()) as i32;
    let scale = 10f64.powi(decimals);
    let close = (actual - expected).abs() <= 1e-9 * expected.abs().max(f64::MIN_POSITIVE);
    let rounded =
        ((actual * scale).round() / scale - expected).abs() <= 1e-9 * expected.abs().max(1.0);
    assert!(
        close || rounded,
        "{what}: got {actual}, expected {expected}"
    );
}

fn v1_window_args() -> Vec<&'static str> {
    vec![
        "--log",
        V1_BOX,
        "--scrape-before",
        T0,
        "--scrape-after",
        T1,
        "--window",
        "900s",
    ]
}

#[test]
fn vllm_window_equals_the_independent_expected_result() {
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/measure/vllm/EXPECTED_vllm_v1_window.json"))
            .unwrap(),
    )
    .unwrap();
    // Two boxes running the same server, so a fleet value cannot pass for a per-box one.
    let mut args = v1_window_args();
    args.extend([
        "--log",
        "box-b=fixtures/measure/vllm/vllm_v1_startup_latest.log",
    ]);
    let got = json(&args);
    let boxes = 2.0;
    let e = |p: &str| num(&expected, p);
    let checks = [
        (
            "per box",
            num(&got, "/per_box_capacity"),
            e("/capacity/per_box"),
        ),
        (
            "box capacity",
            num(&got, "/boxes/0/capacity"),
            e("/capacity/per_box"),
        ),
        (
            "fleet",
            num(&got, "/fleet_capacity"),
            e("/capacity/per_box") * boxes,
        ),
        (
            "fleet floor",
            num(&got, "/fleet_pessimistic_floor"),
            e("/capacity/floor_kv_over_max_model_len") * boxes,
        ),
        (
            "floor",
            num(&got, "/pessimistic_floor"),
            e("/capacity/floor_kv_over_max_model_len"),
        ),
        (
            "kv tokens",
            num(&got, "/boxes/0/kv_cache_tokens"),
            e("/capacity/kv_tokens"),
        ),
        (
            "max_num_seqs",
            num(&got, "/boxes/0/max_num_seqs"),
            e("/capacity/max_num_seqs"),
        ),
        (
            "p90 prompt",
            num(&got, "/p90_prompt_tokens"),
            e("/capacity/p90_prompt_tokens"),
        ),
        (
            "queue mean",
            num(&got, "/breakdown/queue_s"),
            e("/latency_breakdown_of_means/queue_s"),
        ),
        (
            "prefill mean",
            num(&got, "/breakdown/prefill_s"),
            e("/latency_breakdown_of_means/prefill_s"),
        ),
        (
            "decode mean",
            num(&got, "/breakdown/decode_s"),
            e("/latency_breakdown_of_means/decode_s"),
        ),
        (
            "phase sum",
            num(&got, "/breakdown/sum_s"),
            e("/latency_breakdown_of_means/sum_s"),
        ),
        (
            "e2e mean",
            num(&got, "/breakdown/e2e_s"),
            e("/latency_breakdown_of_means/e2e_mean_s"),
        ),
        (
            "unattributed",
            num(&got, "/breakdown/unattributed_s"),
            e("/latency_breakdown_of_means/unattributed_s"),
        ),
        (
            "queue share",
            num(&got, "/breakdown/queue_share"),
            e("/latency_breakdown_of_means/queue_share"),
        ),
        (
            "prefill share",
            num(&got, "/breakdown/prefill_share"),
            e("/latency_breakdown_of_means/prefill_share"),
        ),
        (
            "decode share",
            num(&got, "/breakdown/decode_share"),
            e("/latency_breakdown_of_means/decode_share"),
        ),
        (
            "queue p50",
            num(&got, "/queue_p50_s"),
            e("/histograms/vllm:request_queue_time_seconds/p50"),
        ),
        (
            "queue p90",
            num(&got, "/queue_p90_s"),
            e("/histograms/vllm:request_queue_time_seconds/p90"),
        ),
        (
            "preemptions",
            num(&got, "/preemptions"),
            e("/counters_delta/num_preemptions"),
        ),
        (
            "prefix hit rate",
            num(&got, "/prefix_cache_hit_rate"),
            e("/counters_delta/prefix_cache_hit_rate"),
        ),
        (
            "kv usage peak",
            num(&got, "/kv_usage_peak"),
            e("/gauges_t1/kv_cache_usage_perc"),
        ),
        ("window", num(&got, "/window_s"), e("/window_seconds")),
        (
            "requests",
            num(&got, "/requests"),
            e("/histograms/vllm:e2e_request_latency_seconds/count_delta"),
        ),
    ];
    for (what, actual, expected) in checks {
        assert_same(what, actual, expected);
    }
    assert_eq!(got["p90_prompt_is_lower_bound"], Value::Bool(true));
    assert_eq!(got["boxes"][0]["max_num_seqs_measured"], Value::Bool(true));
}

#[test]
fn vllm_window_json_report() {
    let mut args = v1_window_args();
    args.extend([
        "--roster",
        "32",
        "--what-if",
        "prefill=-50%",
        "--what-if",
        "queue=-100%",
    ]);
    insta::assert_json_snapshot!("vllm_v1_window", json(&args));
}

#[test]
fn vllm_window_human_report() {
    let mut args = v1_window_args();
    args.extend([
        "--roster",
        "29",
        "--what-if",
        "prefill=-50%",
        "--color",
        "never",
    ]);
    let out = measure(&args);
    assert!(out.status.success());
    insta::assert_snapshot!("vllm_v1_window_human", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let mut args = v1_window_args();
    let plain = measure(&args);
    assert!(
        !String::from_utf8_lossy(&plain.stdout).contains('\x1b'),
        "a pipe gets no colour"
    );
    args.extend(["--color", "always"]);
    assert!(String::from_utf8_lossy(&measure(&args).stdout).contains("\x1b[33mwarning:"));
}

#[test]
fn a_roster_at_or_below_the_fleet_is_never_reached() {
    let mut args = v1_window_args();
    args.extend([
        "--log",
        "box-b=fixtures/measure/vllm/vllm_v1_startup_latest.log",
        "--roster",
        "28",
    ]);
    let got = json(&args);
    assert_eq!(got["fleet_capacity"], 28);
    assert_eq!(got["roster"]["waves"], 1);
    assert_eq!(got["roster"]["cap_never_reached"], true);
}

#[test]
fn data_parallel_engines_add_kv_and_each_has_its_own_max_num_seqs() {
    let got = json(&[
        "--log",
        "fixtures/measure/vllm_dp2.log",
        "--p90-prompt-tokens",
        "25000",
    ]);
    let b = &got["boxes"][0];
    assert_eq!(b["name"], "vllm_dp2");
    assert_eq!(b["engines"], 2);
    assert_eq!(b["kv_cache_tokens"], 700_000);
    // min(400000 / 25000, 12) + min(300000 / 25000, 12) = 12 + 12, not min(700000 / 25000, 12).
    assert_eq!(b["capacity"], 24);
    assert_eq!(b["pessimistic_floor"], 12 + 9);
    assert_eq!(
        got["sources"]["boxes.vllm_dp2.kv_cache_tokens"],
        "fixtures/measure/vllm_dp2.log:3-4"
    );
}

#[test]
fn vllm_v0_log_and_multiprocess_scrape() {
    let got = json(&[
        "--log",
        "fixtures/measure/vllm/vllm_v0_startup.log",
        "--scrape-after",
        "fixtures/measure/vllm/vllm_v0_metrics_multiproc_excerpt.prom",
        "--p90-prompt-tokens",
        "100000",
    ]);
    let b = &got["boxes"][0];
    assert_eq!(b["kv_cache_tokens"], 93_176 * 16);
    assert_eq!(b["max_num_seqs"], 160);
    assert_eq!(b["max_model_len"], 131_072);
    assert_eq!(got["per_box_capacity"], 14);
    assert_eq!(got["pessimistic_floor"], 11);
    assert_eq!(got["preemptions"], 31.0);
    assert_eq!(got["requests"], 15385.0);
    assert_same("kv usage", num(&got, "/kv_usage_peak"), 0.94117585);
    assert_eq!(got["prefix_cache_hit_rate"], 0.4127);
    // The log prints no block size; its own `Maximum concurrency` line fixes it at 16.
    assert_eq!(b["block_size"], 16);
    assert_eq!(b["block_size_source"], "concurrency");
    let warnings = got["warnings"].to_string();
    assert!(
        !warnings.contains("block size not in the log"),
        "{warnings}"
    );
    assert!(warnings.contains("only one scrape"), "{warnings}");
}

#[test]
fn vllm_default_max_num_seqs_is_flagged_unmeasured() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_vllm_log(dir.path());
    let got = json(&[
        "--log",
        log.to_str().unwrap(),
        "--p90-prompt-tokens",
        "1000",
    ]);
    assert_eq!(got["boxes"][0]["max_num_seqs"], 256);
    assert_eq!(got["boxes"][0]["max_num_seqs_measured"], false);
    assert_eq!(got["boxes"][0]["capacity"], 256);
    assert!(got["warnings"].to_string().contains("not measured"));
}

/// A plain vLLM log: 1,000,000 KV tokens, max_model_len 8192, no max_num_seqs.
fn plain_vllm_log(dir: &Path) -> PathBuf {
    let log = dir.join("plain.log");
    std::fs::write(&log, "INFO GPU KV cache size: 1,000,000 tokens, Maximum concurrency for 8,192 tokens per request: 122.07x\n").unwrap();
    log
}

#[test]
fn write_leaves_out_derived_values_an_assumed_default_decided() {
    let dir = tempfile::tempdir().unwrap();
    let log = plain_vllm_log(dir.path());
    let manifest = dir.path().join("capacity.toml");
    // An earlier run's value must not survive as if it were current.
    std::fs::write(&manifest, "[derived]\nper_box_capacity = 14\n").unwrap();
    let out = measure(&[
        "--log",
        log.to_str().unwrap(),
        "--p90-prompt-tokens",
        "1000",
        "--write",
        manifest.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    // 1,000,000 / 1000 = 1000 > 256: the min() picked the assumed default.
    assert_eq!(got["per_box_capacity"], 256);
    assert_eq!(got["per_box_capacity_assumed"], true);
    assert_eq!(got["fleet_capacity_assumed"], true);
    assert_eq!(got["boxes"][0]["capacity_assumed"], true);
    let warnings = got["warnings"].to_string();
    assert!(
        warnings.contains("[derived] per_box_capacity not written (its earlier value 14 removed): 256 is bound by max_num_seqs"),
        "{warnings}"
    );
    assert!(
        warnings.contains("[derived] fleet_capacity not written"),
        "{warnings}"
    );
    let written: toml::Table = std::fs::read_to_string(&manifest).unwrap().parse().unwrap();
    let derived = written["derived"].as_table().unwrap();
    assert!(!derived.contains_key("per_box_capacity"), "{derived:?}");
    assert!(!derived.contains_key("fleet_capacity"), "{derived:?}");
    assert_eq!(
        derived["pessimistic_floor"].as_integer(),
        Some(1_000_000 / 8192)
    );
    assert_eq!(
        written["backend"][0]["max_num_seqs_measured"].as_bool(),
        Some(false)
    );

    // When the KV cache binds below the assumed default, the default decided nothing.
    let out = measure(&[
        "--log",
        log.to_str().unwrap(),
        "--p90-prompt-tokens",
        "10000",
        "--write",
        manifest.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("not written"));
    let written: toml::Table = std::fs::read_to_string(&manifest).unwrap().parse().unwrap();
    assert_eq!(
        written["derived"]["per_box_capacity"].as_integer(),
        Some(100)
    );
    assert_eq!(written["derived"]["fleet_capacity"].as_integer(), Some(100));
}

#[test]
fn sglang_log_and_scrape() {
    let got = json(&[
        "--log",
        "fixtures/measure/sglang/sglang_startup_excerpt.log",
        "--scrape-after",
        "fixtures/measure/sglang/sglang_metrics_excerpt.prom",
        "--p90-prompt-tokens",
        "100000",
    ]);
    let b = &got["boxes"][0];
    assert_eq!(b["server"], "sglang");
    assert_eq!(
        b["engines"], 1,
        "TP ranks print the same pool: not multiplied"
    );
    assert_eq!(b["kv_cache_tokens"], 1_492_882);
    assert_eq!(b["max_num_seqs"], 160);
    assert_eq!(b["max_model_len"], 131_072);
    assert_eq!(b["max_num_batched_tokens"], 8192);
    assert_eq!(b["capacity"], 14);
    assert_eq!(got["kv_usage_peak"], 0.94);
    assert_eq!(got["prefix_cache_hit_rate"], 0.4139);
    assert_eq!(got["requests"], 15385.0);
}

#[test]
fn tgi_log_and_scrape() {
    let got = json(&[
        "--log",
        "fixtures/measure/tgi/tgi_startup_excerpt.log",
        "--scrape-after",
        "fixtures/measure/tgi/tgi_metrics_excerpt.prom",
    ]);
    let b = &got["boxes"][0];
    assert_eq!(b["server"], "tgi");
    assert_eq!(b["kv_cache_tokens"], 1_490_816);
    // `max_concurrent_requests` is the router's admission limit, reported under its own name.
    assert_eq!(b["max_num_seqs"], Value::Null);
    assert_eq!(b["max_concurrent_requests"], 128);
    assert_eq!(b["max_concurrent_requests_source"], "server");
    assert_eq!(b["max_model_len"], 131_072);
    assert_eq!(b["max_num_batched_tokens"], 8192);
    // tgi_request_input_length: rank 0.9 x 528 = 475.2 falls in (129760.29, 131071], 470 -> 528.
    let p90 = 129_760.29 + (131_071.0 - 129_760.29) * (475.2 - 470.0) / 58.0;
    assert_same("tgi p90 prompt", num(&got, "/p90_prompt_tokens"), p90);
    assert_eq!(got["p90_prompt_is_lower_bound"], false);
    assert_eq!(got["per_box_capacity"], 11);
}

#[test]
fn malformed_evidence_is_located_and_exits_2() {
    let out = measure(&[
        "--log",
        "fixtures/measure/malformed.log",
        "--scrape-after",
        "fixtures/measure/malformed.prom",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // One located error per file, each listing every problem at file:line:column.
    for at in [
        "fixtures/measure/malformed.log has 2 problems",
        "fixtures/measure/malformed.log:2:43: expected `GPU KV cache size: N tokens`",
        "fixtures/measure/malformed.log:3:42: expected `# GPU blocks: N`",
        "fixtures/measure/malformed.prom has 3 problems",
        "fixtures/measure/malformed.prom:3:34: expected a closing `\"`",
        "fixtures/measure/malformed.prom:4:15: expected one of counter",
        "fixtures/measure/malformed.prom:5:38: expected a number",
    ] {
        assert!(stderr.contains(at), "missing `{at}` in:\n{stderr}");
    }
    assert!(!stderr.contains("panicked"));
}

#[test]
fn bad_flags_and_missing_files_exit_2() {
    for args in [
        vec![
            "--log",
            "fixtures/measure/vllm_dp2.log",
            "--what-if",
            "prefill=+x",
        ],
        vec!["--log", "fixtures/measure/no-such.log"],
        vec!["--log", "fixtures/measure/vllm_dp2.log", "--roster", "0"],
        vec!["--scrape-url", "http://127.0.0.1:9/metrics"],
        vec![],
    ] {
        let out = measure(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn redact_timestamps(text: &str) -> String {
    text.lines()
        .map(|l| {
            if l.starts_with("measured_at") {
                "measured_at = \"[timestamp]\""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn write_keeps_comments_and_capacity_entries_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("capacity.toml");
    let original =
        std::fs::read_to_string(root().join("fixtures/measure/capacity_commented.toml")).unwrap();
    std::fs::write(&manifest, &original).unwrap();
    let mut args = v1_window_args();
    args.extend(["--roster", "32", "--write", manifest.to_str().unwrap()]);
    assert!(measure(&args).status.success());
    let first = std::fs::read_to_string(&manifest).unwrap();
    for kept in [
        "Keep this header.",
        "# roster: about thirty characters",
        "# The first box, racked in row 3.",
        "# stale, to be measured",
        "owner = \"infra\"",
    ] {
        assert!(first.contains(kept), "lost `{kept}`:\n{first}");
    }
    let capacity_entries = &original[original.find("[[capacity]]").unwrap()..];
    assert!(
        first.contains(capacity_entries),
        "[[capacity]] entries changed:\n{first}"
    );
    let parsed: toml::Table = first.parse().unwrap();
    assert_eq!(
        parsed["backend"][0]["kv_cache_tokens"].as_integer(),
        Some(1_490_816)
    );
    assert_eq!(parsed["derived"]["per_box_capacity"].as_integer(), Some(14));
    assert_eq!(parsed["workload"]["natural_bound"].as_integer(), Some(32));
    insta::assert_snapshot!("written_manifest", redact_timestamps(&first));

    assert!(measure(&args).status.success());
    let second = std::fs::read_to_string(&manifest).unwrap();
    assert_eq!(redact_timestamps(&second), redact_timestamps(&first));
}

#[test]
fn write_without_a_path_goes_to_the_workspace_root() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[workspace]\nmembers = [\"member\"]\n",
    )
    .unwrap();
    let member = dir.path().join("member");
    std::fs::create_dir(&member).unwrap();
    std::fs::write(member.join("Cargo.toml"), "[package]\nname = \"member\"\n").unwrap();
    std::fs::create_dir(member.join("src")).unwrap();
    std::fs::write(member.join("src/lib.rs"), "").unwrap();
    let log = root().join("fixtures/measure/vllm_dp2.log");
    let out = measure_in(&member, &["--log", log.to_str().unwrap(), "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("capacity.toml").is_file());
    assert!(!member.join("capacity.toml").exists());
}

#[test]
fn write_without_a_path_goes_where_the_root_package_config_says_as_init_does() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"single\"\nedition = \"2021\"\n\n\
         [package.metadata.capcheck]\nmanifest = \"ops/capacity.toml\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("ops")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub const MAX_CONCURRENT_REQUESTS: usize = 8;\n",
    )
    .unwrap();
    let init = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .arg("init")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let manifest = dir.path().join("ops/capacity.toml");
    assert!(manifest.is_file(), "init did not write ops/capacity.toml");

    let log = root().join("fixtures/measure/vllm_dp2.log");
    let out = measure_in(dir.path(), &["--log", log.to_str().unwrap(), "--write"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !dir.path().join("capacity.toml").exists(),
        "measure --write wrote a second manifest at the root"
    );
    let written = std::fs::read_to_string(&manifest).unwrap();
    assert!(written.contains("[[capacity]]"), "{written}");
    assert!(written.contains("[[backend]]"), "{written}");
}

#[test]
fn write_refuses_a_malformed_manifest_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("capacity.toml");
    std::fs::write(&manifest, "[workload]\nnatural_bound = \n").unwrap();
    let out = measure(&[
        "--log",
        "fixtures/measure/vllm_dp2.log",
        "--write",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("capacity.toml:2:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Serve `bodies` in order on a loopback port, one connection each; report each request's head.
pub(crate) fn serve(bodies: Vec<String>) -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/metrics", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for body in bodies {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            while reader.read_line(&mut head).is_ok_and(|n| n > 2) {}
            let _ = tx.send(head);
            let mut stream = stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, rx)
}

#[test]
fn live_scrape_over_loopback_sends_no_accept_header() {
    let bodies = [T0, T1]
        .map(|p| std::fs::read_to_string(root().join(p)).unwrap())
        .to_vec();
    let (url, heads) = serve(bodies);
    let got = json(&["--log", V1_LOG, "--scrape-url", &url, "--window", "200ms"]);
    for head in heads.try_iter() {
        assert!(head.starts_with("GET /metrics"), "{head}");
        assert!(
            !head.to_ascii_lowercase().contains("\naccept:"),
            "an Accept header was sent:\n{head}"
        );
    }
    assert_eq!(got["per_box_capacity"], 14);
    assert_eq!(got["requests"], 528.0);
    assert_same("queue p90", num(&got, "/queue_p90_s"), 11.933333);
    let window = num(&got, "/window_s");
    assert!((0.2..10.0).contains(&window), "window {window}");
}

/// A live scrape whose second answer comes from another server life: no
/// `process_start_time_seconds` any more, and the preemption counter back at 0. A restart is
/// warned of, and the preemptions are not reported (no "preemptions 0" as if measured).
#[test]
fn a_live_scrape_across_a_restart_warns_and_reports_no_preemptions() {
    let t0 = std::fs::read_to_string(root().join(T0)).unwrap();
    let t1: String = std::fs::read_to_string(root().join(T1))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("process_start_time_seconds"))
        .map(|l| match l.strip_prefix("vllm:num_preemptions_total{") {
            Some(rest) => format!(
                "vllm:num_preemptions_total{{{}}} 0.0\n",
                rest.split('}').next().unwrap()
            ),
            None => format!("{l}\n"),
        })
        .collect();
    assert!(t0.contains("vllm:num_preemptions_total{") && t1.contains("vllm:num_preemptions_total{engine=\"0\",model_name=\"meta-llama/Llama-3.3-70B-Instruct\"} 0.0"));
    let (url, _) = serve(vec![t0, t1]);
    let got = json(&["--log", V1_LOG, "--scrape-url", &url, "--window", "200ms"]);
    assert_eq!(got["preemptions"], Value::Null, "{got:#}");
    let warnings = got["warnings"].to_string();
    assert!(
        warnings.contains("the second scrape has no process_start_time_seconds")
            && warnings.contains("preemptions are not reported"),
        "{warnings}"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_during_the_wait_exits_without_writing() {
    let (url, heads) = serve(vec![std::fs::read_to_string(root().join(T0)).unwrap()]);
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("capacity.toml");
    let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-capcheck"))
        .args([
            "measure",
            "--log",
            V1_LOG,
            "--scrape-url",
            &url,
            "--window",
            "60s",
            "--write",
        ])
        .arg(&manifest)
        .current_dir(root())
        .spawn()
        .unwrap();
    heads
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("first scrape");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert!(!manifest.exists(), "a manifest was written after Ctrl-C");
}

#[test]
fn write_without_a_path_goes_to_the_workspace_manifest_path_names() {
    // Run from this repository; `--manifest-path` names another workspace, whose root gets the
    // manifest. This repository's own capacity.toml is left as it is.
    let ws = crate::support::scratch(&[
        (
            "Cargo.toml",
            "[package]\nname = \"w\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n",
        ),
        ("src/lib.rs", ""),
    ]);
    let log = plain_vllm_log(ws.path());
    let ours = std::fs::read(root().join("capacity.toml")).unwrap();
    let out = measure(&[
        "--log",
        log.to_str().unwrap(),
        "--p90-prompt-tokens",
        "1000",
        "--write",
        "--manifest-path",
        ws.path().join("Cargo.toml").to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::stderr(&out)
    );
    let written = std::fs::read_to_string(ws.path().join("capacity.toml")).unwrap();
    assert!(written.contains("[[backend]]"), "{written}");
    assert_eq!(std::fs::read(root().join("capacity.toml")).unwrap(), ours);
}

#[test]
fn sglang_without_a_prompt_histogram_estimates_from_the_mean_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("capacity.toml");
    let got = json(&[
        "--log",
        "fixtures/measure/sglang/sglang_startup_excerpt.log",
        "--scrape-after",
        "fixtures/measure/sglang/sglang_metrics_excerpt.prom",
        "--write",
        manifest.to_str().unwrap(),
    ]);
    // sglang:prompt_tokens_total / sglang:num_requests_total of the scrape.
    let mean = 6.32471733e8 / 15385.0;
    assert_same("mean prompt", num(&got, "/p90_prompt_tokens"), mean);
    assert_eq!(got["p90_prompt_is_estimate"], true);
    assert_eq!(
        got["boxes"][0]["capacity"],
        ((1_492_882.0 / mean).floor() as u64).min(160)
    );
    let warnings = got["warnings"].to_string();
    assert!(warnings.contains("as an estimate of the p90"), "{warnings}");
    assert!(
        warnings.contains("[derived] per_box_capacity not written"),
        "{warnings}"
    );
    let written: toml::Table = std::fs::read_to_string(&manifest).unwrap().parse().unwrap();
    assert_eq!(
        written["prompt"]["estimated_from_mean"].as_bool(),
        Some(true)
    );
    let derived = written["derived"].as_table().unwrap();
    assert!(!derived.contains_key("per_box_capacity"), "{derived:?}");
    assert_eq!(derived["pessimistic_floor"].as_integer(), Some(11));
}

//! `measure` on every startup-log shape the servers print, as the servers read it: per-worker
//! and per-engine KV lines, the request limit's precedence, the model length from every source,
//! failed starts, and a fleet whose boxes do not all have every figure. The logs here are
//! written for the tests (the real ones are in fixtures/measure/real, see measure_real.rs).

use serde_json::Value;

use crate::support::{capcheck, json_of, scratch};

/// `measure --format json` over logs written into a scratch directory, as `(name, text)`.
fn measure_logs(logs: &[(&str, &str)], extra: &[&str]) -> (i32, Value, String) {
    let dir = scratch(&logs.iter().map(|(n, t)| (*n, *t)).collect::<Vec<_>>());
    let mut args = vec!["measure".to_string()];
    for (name, _) in logs {
        args.push("--log".into());
        args.push(dir.path().join(name).display().to_string());
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--format".into(), "json".into()]);
    let out = capcheck(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let (code, v) = json_of(&out);
    (code, v, stderr)
}

#[test]
fn vllm_0_7_cuda_blocks_are_read_and_a_bad_one_is_located_at_its_column() {
    let (code, v, _) = measure_logs(
        &[(
            "v07.log",
            "INFO 02-10 06:02:28 [executor_base.py:111] # CUDA blocks: 5225, # CPU blocks: 2048\n",
        )],
        &[],
    );
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["boxes"][0]["kv_cache_tokens"], 5225 * 16);
    let (code, v, stderr) = measure_logs(
        &[(
            "bad.log",
            "INFO 02-10 06:02:28 [executor_base.py:111] # CUDA blocks: lots\n",
        )],
        &[],
    );
    assert_eq!(code, 2);
    let p = &v["error"]["problems"][0];
    assert_eq!(
        (p["line"].clone(), p["column"].clone()),
        (1.into(), 44.into()),
        "{v:#}"
    );
    assert!(
        stderr.contains("bad.log:1:44: expected `# GPU blocks: N`"),
        "{stderr}"
    );
}

#[test]
fn per_worker_lines_take_the_smallest_and_data_parallel_engines_add_up() {
    let tp = "(VllmWorker rank=0 pid=1) INFO GPU KV cache size: 1,000,000 tokens\n\
              (VllmWorker rank=1 pid=2) INFO GPU KV cache size: 946,000 tokens\n";
    let (_, v, _) = measure_logs(&[("tp.log", tp)], &[]);
    assert_eq!(v["boxes"][0]["kv_cache_tokens"], 946_000);
    assert_eq!(v["boxes"][0]["engines"], 1);
    assert!(
        !v["warnings"].to_string().contains("printed again"),
        "{v:#}"
    );
    let dp = "(EngineCore_DP0 pid=1) INFO GPU KV cache size: 500 tokens\n\
              (EngineCore_DP0 pid=1) INFO GPU KV cache size: 400 tokens\n\
              (EngineCore_DP1 pid=2) INFO GPU KV cache size: 300 tokens\n";
    let (_, v, _) = measure_logs(&[("dp.log", dp)], &[]);
    assert_eq!(v["boxes"][0]["kv_cache_tokens"], 400 + 300);
    assert_eq!(v["boxes"][0]["engines"], 2);
}

#[test]
fn the_request_limit_comes_from_the_servers_own_precedence() {
    // The first line is vLLM's own (DEBUG level), as pasted in
    // https://github.com/openshift-psap/auto-tuning-vllm/issues/106; the KV line is written here.
    let context = "(APIServer pid=62232) DEBUG 10-24 12:53:53 [engine/arg_utils.py:1681] Setting max_num_seqs to 1024 for OPENAI_API_SERVER usage context.\n\
                   INFO GPU KV cache size: 2,000,000 tokens\n";
    let (_, v, _) = measure_logs(&[("ctx.log", context)], &["--p90-prompt-tokens", "1000"]);
    let b = &v["boxes"][0];
    assert_eq!(b["max_num_seqs"], 1024);
    assert_eq!(b["max_num_seqs_source"], "usage_context");
    assert_eq!(b["max_num_seqs_measured"], true);
    assert_eq!(b["capacity"], 1024);
    let explicit = format!("INFO non-default args: {{'max_num_seqs': 64}}\n{context}");
    let (_, v, _) = measure_logs(&[("arg.log", &explicit)], &[]);
    assert_eq!(v["boxes"][0]["max_num_seqs"], 64);
    assert_eq!(v["boxes"][0]["max_num_seqs_source"], "argument");
    let (_, v, _) = measure_logs(&[("none.log", "INFO GPU KV cache size: 9 tokens\n")], &[]);
    assert_eq!(v["boxes"][0]["max_num_seqs"], 256);
    assert_eq!(v["boxes"][0]["max_num_seqs_source"], "default");
    assert_eq!(v["boxes"][0]["max_num_seqs_measured"], false);
}

#[test]
fn the_model_length_of_v0s_engine_line_and_tgis_launcher_give_a_floor() {
    let v0 = "INFO 02-10 17:12:31 llm_engine.py:234] Initializing a V0 LLM engine (v0.6.4) with config: model='m', dtype=torch.float16, max_seq_len=2048, download_dir=None\n\
              INFO 02-10 17:12:40 executor_base.py:110] # CUDA blocks: 1000, # CPU blocks: 512\n";
    let tgi = "2024-05-07T12:39:07Z  INFO text_generation_launcher: Default `max_total_tokens` to 4096\n\
               2024-05-07T12:39:22Z  INFO text_generation_router: router/src/main.rs:354: Setting max batch total tokens to 40960\n";
    let args = "2023-08-22T18:35:50Z  INFO text_generation_launcher: Args {\n    max_concurrent_requests: 32,\n    max_total_tokens: Some(\n        8192,\n    ),\n}\n\
                2023-08-22T18:36:50Z  INFO text_generation_router: Setting max batch total tokens to 81920\n";
    let (_, v, _) = measure_logs(&[("v0.log", v0), ("tgi.log", tgi), ("args.log", args)], &[]);
    let b = &v["boxes"];
    assert_eq!(b[0]["max_model_len"], 2048);
    assert_eq!(b[0]["pessimistic_floor"], 16_000 / 2048);
    assert_eq!(b[1]["max_model_len"], 4096);
    assert_eq!(b[1]["pessimistic_floor"], 10);
    assert_eq!(b[2]["max_num_seqs"], Value::Null);
    assert_eq!(b[2]["max_concurrent_requests"], 32);
    assert_eq!(b[2]["max_concurrent_requests_source"], "server");
    assert_eq!(b[2]["pessimistic_floor"], 10);
    assert_eq!(v["fleet_pessimistic_floor"], 7 + 10 + 10);
}

#[test]
fn a_failed_start_is_a_warning_and_no_capacity_never_a_zero() {
    let zero =
        "INFO 06-12 08:12:23 distributed_gpu_executor.py:45] # GPU blocks: 0, # CPU blocks: 2048\n";
    let ok = "INFO GPU KV cache size: 100,000 tokens, Maximum concurrency for 10,000 tokens per request: 10.00x\n";
    let (code, v, stderr) = measure_logs(
        &[("zero.log", zero), ("ok.log", ok)],
        &["--p90-prompt-tokens", "1000"],
    );
    // The box that started is measured and reported; the run still fails, naming the other.
    assert_eq!(code, 2);
    assert!(stderr.contains("box `zero` did not start"), "{stderr}");
    assert_eq!(v["failed_boxes"], serde_json::json!(["zero"]));
    let failed = &v["boxes"][0];
    assert_eq!(failed["started"], false);
    assert_eq!(failed["capacity"], Value::Null);
    assert_eq!(failed["pessimistic_floor"], Value::Null);
    assert!(
        failed["failure"]
            .as_str()
            .unwrap()
            .contains("0 KV cache blocks"),
        "{failed:#}"
    );
    let warnings = v["warnings"].to_string();
    assert!(
        warnings.contains("zero.log:1: the server did not start"),
        "{warnings}"
    );
    // The fleet is the box that started, and says which one it leaves out.
    assert_eq!(v["fleet_capacity"], 100);
    assert_eq!(v["fleet_pessimistic_floor"], 10);
    assert_eq!(v["boxes_without_capacity"], serde_json::json!(["zero"]));
    assert!(
        warnings.contains("the fleet capacity covers 1 of 2 boxes: `zero` has none"),
        "{warnings}"
    );
}

#[test]
fn write_leaves_out_a_box_that_did_not_start() {
    let zero = "INFO # GPU blocks: 0, # CPU blocks: 2048\n";
    let ok = "INFO GPU KV cache size: 100,000 tokens\n";
    let dir = scratch(&[("zero.log", zero), ("ok.log", ok)]);
    let manifest = dir.path().join("capacity.toml");
    let out = capcheck(&[
        "measure",
        "--log",
        dir.path().join("zero.log").to_str().unwrap(),
        "--log",
        dir.path().join("ok.log").to_str().unwrap(),
        "--write",
        manifest.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let (code, v) = json_of(&out);
    assert_eq!(code, 2, "{v:#}");
    assert!(
        v["warnings"]
            .to_string()
            .contains("[[backend]] `zero` not written: its log shows no started engine"),
        "{v:#}"
    );
    let written: toml::Table = std::fs::read_to_string(&manifest).unwrap().parse().unwrap();
    let names: Vec<&str> = written["backend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ok"]);
}

#[test]
fn one_box_without_a_floor_does_not_null_the_fleets() {
    let with = "INFO GPU KV cache size: 80,000 tokens, Maximum concurrency for 8,000 tokens per request: 10.00x\n";
    let without = "INFO GPU KV cache size: 50,000 tokens\n";
    let (_, v, _) = measure_logs(&[("a.log", with), ("b.log", without)], &[]);
    assert_eq!(v["pessimistic_floor"], 10);
    assert_eq!(v["fleet_pessimistic_floor"], 10);
    assert_eq!(v["boxes_without_floor"], serde_json::json!(["b"]));
    assert!(
        v["warnings"]
            .to_string()
            .contains("the fleet pessimistic floor covers 1 of 2 boxes: `b` has none"),
        "{v:#}"
    );
}

#[test]
fn when_every_box_failed_to_start_each_is_located_and_the_run_exits_2() {
    let zero =
        "INFO 06-12 08:12:23 distributed_gpu_executor.py:45] # GPU blocks: 0, # CPU blocks: 2048\n";
    let too_long = "INFO x\nValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be stored in KV cache (3664). Try\n";
    let (code, v, stderr) = measure_logs(&[("zero.log", zero), ("long.log", too_long)], &[]);
    assert_eq!(code, 2, "{v:#}");
    let at: Vec<(String, u64, u64)> = v["error"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let file = p["file"].as_str().unwrap();
            let name = file.rsplit('/').next().unwrap().to_string();
            (
                name,
                p["line"].as_u64().unwrap(),
                p["column"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(at, [("zero.log".into(), 1, 53), ("long.log".into(), 2, 25)]);
    assert!(
        stderr.contains("long.log:2:25: expected a server that started"),
        "{stderr}"
    );
}

//! `measure --prometheus` against a real Prometheus server (Debian's `prometheus`, which .ci/run
//! installs), started here on loopback with a temporary storage folder and a 1 s scrape
//! interval. It scrapes an exporter this test runs: vLLM's metric families as vLLM writes them
//! (names, labels, HELP/TYPE, vLLM's bucket bounds), for two boxes of different capacities whose
//! requests arrive scrape by scrape, plus a third box that restarts. The checks: every quantile
//! equals Prometheus' own `histogram_quantile` over `increase(..[window])`, queried here; the
//! latency breakdown equals the two-scrape method on the same series' first and last samples in
//! the window; the KV usage peak is the largest value the exporter served in the window, not an
//! end point; the narrowest box is named. Without `prometheus` the test fails when `CI` is set.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::support::{capcheck, capcheck_env, fixture, json_of, stderr};

/// vLLM's bucket bounds (the sample scrape's `le` labels).
const SECONDS_LE: [f64; 21] = [
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
    480.0, 960.0, 1920.0, 7680.0,
];
const TOKENS_LE: [f64; 16] = [
    1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0,
    50000.0, 100000.0,
];
const HISTOGRAMS: [(&str, &str, &str); 5] = [
    (
        "queue",
        "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.",
    ),
    (
        "prefill",
        "vllm:request_prefill_time_seconds",
        "Histogram of time spent in PREFILL phase for request.",
    ),
    (
        "decode",
        "vllm:request_decode_time_seconds",
        "Histogram of time spent in DECODE phase for request.",
    ),
    (
        "e2e",
        "vllm:e2e_request_latency_seconds",
        "Histogram of e2e request latency in seconds.",
    ),
    (
        "prompt",
        "vllm:request_prompt_tokens",
        "Number of prefill tokens processed.",
    ),
];
/// The scrape at which each box's KV usage peaks: inside the window, never at its ends.
const PEAK_STEP: usize = 6;
/// The third box restarts (its counters start again) at this scrape.
const RESTART_STEP: usize = 8;
const WINDOW: &str = "4s";
const LABELS: &str = "engine=\"0\",model_name=\"meta-llama/Llama-3.3-70B-Instruct\"";

struct Hist {
    le: &'static [f64],
    /// Observations per bucket, the last one past every bound.
    counts: Vec<u64>,
    sum: f64,
}

impl Hist {
    fn new(le: &'static [f64]) -> Hist {
        Hist {
            le,
            counts: vec![0; le.len() + 1],
            sum: 0.0,
        }
    }

    fn observe(&mut self, v: f64) {
        let i = self
            .le
            .iter()
            .position(|&u| v <= u)
            .unwrap_or(self.le.len());
        self.counts[i] += 1;
        self.sum += v;
    }

    fn render(&self, name: &str, help: &str, out: &mut String) {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} histogram\n"));
        let total: u64 = self.counts.iter().sum();
        out.push_str(&format!("{name}_sum{{{LABELS}}} {:?}\n", self.sum));
        let mut cumulative = 0;
        for (i, le) in self.le.iter().enumerate() {
            cumulative += self.counts[i];
            out.push_str(&format!(
                "{name}_bucket{{engine=\"0\",le=\"{le:?}\",model_name=\"meta-llama/Llama-3.3-70B-Instruct\"}} {:?}\n",
                cumulative as f64
            ));
        }
        out.push_str(&format!(
            "{name}_bucket{{engine=\"0\",le=\"+Inf\",model_name=\"meta-llama/Llama-3.3-70B-Instruct\"}} {:?}\n",
            total as f64
        ));
        out.push_str(&format!("{name}_count{{{LABELS}}} {:?}\n", total as f64));
    }
}

/// One simulated vLLM box: what it has counted so far, and every gauge value it served.
struct Sim {
    k: usize,
    kv_blocks: u64,
    step: usize,
    hists: Vec<Hist>,
    prompt_tokens: f64,
    success: f64,
    preemptions: f64,
    served: Vec<(f64, f64, f64)>,
}

impl Sim {
    fn new(k: usize, kv_blocks: u64) -> Sim {
        let mut sim = Sim {
            k,
            kv_blocks,
            step: 0,
            hists: Vec::new(),
            prompt_tokens: 0.0,
            success: 0.0,
            preemptions: 0.0,
            served: Vec::new(),
        };
        sim.reset();
        // The box has served a while before Prometheus first scrapes it.
        for j in 0..600 {
            sim.request(0, j);
        }
        sim
    }

    fn reset(&mut self) {
        self.hists = HISTOGRAMS
            .iter()
            .map(|(key, _, _)| {
                Hist::new(if *key == "prompt" {
                    &TOKENS_LE
                } else {
                    &SECONDS_LE
                })
            })
            .collect();
        self.prompt_tokens = 0.0;
        self.success = 0.0;
        self.preemptions = 0.0;
    }

    fn request(&mut self, s: usize, j: usize) {
        let k = self.k;
        let queue =
            [0.05, 0.2, 0.4, 0.7, 1.2, 3.0, 8.0][(s * 5 + j * 3 + k) % 7] * (1.0 + 0.5 * k as f64);
        let prefill = 0.1 + 0.05 * ((s + j) % 6) as f64 + 0.2 * k as f64;
        let decode = 2.0 + 0.5 * ((s * 2 + j) % 9) as f64;
        let prompt = (300 + 650 * ((s * 7 + j * 5 + k) % 11)) as f64;
        for (h, v) in self.hists.iter_mut().zip([
            queue,
            prefill,
            decode,
            queue + prefill + decode + 0.01,
            prompt,
        ]) {
            h.observe(v);
        }
        self.prompt_tokens += prompt;
        self.success += 1.0;
    }

    /// Advance one scrape and render it.
    fn scrape(&mut self) -> String {
        self.step += 1;
        let s = self.step;
        if self.k == 2 && s == RESTART_STEP {
            self.reset();
        }
        for j in 0..4 + s % 3 + 2 * self.k {
            self.request(s, j);
        }
        self.preemptions += ((s + self.k) % 2) as f64;
        let kv = if s == PEAK_STEP {
            [0.9375, 0.8125, 0.5][self.k]
        } else {
            0.25 + 0.03125 * (s % 5) as f64
        };
        let waiting = if s == PEAK_STEP { 17.0 } else { (s % 3) as f64 };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        self.served.push((now, kv, waiting));
        let mut out = String::new();
        for (name, kind, help, v) in [
            (
                "vllm:num_requests_waiting",
                "gauge",
                "Number of requests waiting to be processed.",
                waiting,
            ),
            (
                "vllm:kv_cache_usage_perc",
                "gauge",
                "KV-cache usage. 1 means 100 percent usage.",
                kv,
            ),
            (
                "vllm:num_preemptions_total",
                "counter",
                "Cumulative number of preemption from the engine.",
                self.preemptions,
            ),
            (
                "vllm:prompt_tokens_total",
                "counter",
                "Number of prefill tokens processed.",
                self.prompt_tokens,
            ),
        ] {
            out.push_str(&format!(
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name}{{{LABELS}}} {v:?}\n"
            ));
        }
        out.push_str(&format!(
            "# HELP vllm:request_success_total Count of successfully processed requests.\n# TYPE vllm:request_success_total counter\nvllm:request_success_total{{engine=\"0\",finished_reason=\"stop\",model_name=\"meta-llama/Llama-3.3-70B-Instruct\"}} {:?}\n",
            self.success
        ));
        for (h, (_, name, help)) in self.hists.iter().zip(HISTOGRAMS) {
            h.render(name, help, &mut out);
        }
        out.push_str(&format!(
            "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{{block_size=\"16\",cache_dtype=\"auto\",engine=\"0\",num_gpu_blocks=\"{}\"}} 1.0\n",
            self.kv_blocks
        ));
        out
    }
}

/// Serve each box's /metrics on its own loopback port; returns the ports.
fn exporter(sims: &[Arc<Mutex<Sim>>]) -> Vec<u16> {
    sims.iter()
        .map(|sim| {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let sim = Arc::clone(sim);
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    let Ok(stream) = stream else { return };
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                        line.clear();
                    }
                    let body = sim.lock().unwrap().scrape();
                    let mut stream = stream;
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                }
            });
            port
        })
        .collect()
}

/// The Prometheus server, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn prometheus_binary() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin"), PathBuf::from("/usr/sbin")])
        .map(|d| d.join("prometheus"))
        .find(|p| p.is_file())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start(binary: &Path, dir: &Path, ports: &[u16]) -> (Server, String) {
    let target = |port: u16, instance: &str| {
        format!(
            "      - targets: ['127.0.0.1:{port}']\n        labels:\n          instance: {instance}\n"
        )
    };
    let config = format!(
        "global:\n  scrape_interval: 500ms\n  scrape_timeout: 450ms\nscrape_configs:\n  - job_name: vllm\n    static_configs:\n{}{}  - job_name: vllm-restarted\n    static_configs:\n{}",
        target(ports[0], "box-a"),
        target(ports[1], "box-b"),
        target(ports[2], "box-c"),
    );
    std::fs::write(dir.join("prometheus.yml"), config).unwrap();
    let port = free_port();
    let child = Command::new(binary)
        .arg(format!(
            "--config.file={}",
            dir.join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.join("data").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg("--log.level=warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start prometheus");
    (Server(child), format!("http://127.0.0.1:{port}"))
}

/// Prometheus' own answer: `promql` at `at`, by instance (or `""` for a fleet).
fn promql(url: &str, promql: &str, at: f64) -> Vec<(String, f64)> {
    let mut response = ureq::get(&format!("{url}/api/v1/query"))
        .query("query", promql)
        .query("time", format!("{at:.3}"))
        .call()
        .unwrap_or_else(|e| panic!("{promql}: {e}"));
    let v: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(v["status"], "success", "{promql}: {v}");
    v["data"]["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["metric"]["instance"].as_str().unwrap_or("").to_string(),
                r["value"][1].as_str().unwrap().parse::<f64>().unwrap(),
            )
        })
        .collect()
}

fn close(what: &str, ours: f64, theirs: f64) {
    assert!(
        (ours - theirs).abs() <= 1e-9 * theirs.abs().max(1.0),
        "{what}: capcheck {ours}, Prometheus {theirs}"
    );
}

fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// The first and last raw sample of each of `instance`'s histogram series in the window, as two
/// expositions: the two scrapes the window's ends are.
fn ends(url: &str, instance: &str, at: f64) -> (String, String) {
    let names = HISTOGRAMS
        .map(|h| h.1.trim_start_matches("vllm:"))
        .join("|");
    let q = format!(
        "{{__name__=~\"vllm:({names})_(bucket|sum|count)\",job=\"vllm\",instance=\"{instance}\"}}[{WINDOW}]"
    );
    let mut response = ureq::get(&format!("{url}/api/v1/query"))
        .query("query", &q)
        .query("time", format!("{at:.3}"))
        .call()
        .unwrap();
    let v: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    let (mut first, mut last) = (String::new(), String::new());
    for series in v["data"]["result"].as_array().unwrap() {
        let m = series["metric"].as_object().unwrap();
        let labels: Vec<String> = m
            .iter()
            .filter(|(k, _)| *k != "__name__")
            .map(|(k, v)| format!("{k}=\"{}\"", v.as_str().unwrap()))
            .collect();
        let head = format!(
            "{}{{{}}}",
            m["__name__"].as_str().unwrap(),
            labels.join(",")
        );
        let values = series["values"].as_array().unwrap();
        let value = |i: usize| values[i][1].as_str().unwrap().to_string();
        first.push_str(&format!("{head} {}\n", value(0)));
        last.push_str(&format!("{head} {}\n", value(values.len() - 1)));
    }
    (first, last)
}

#[test]
fn a_fleet_window_from_a_real_prometheus() {
    let Some(binary) = prometheus_binary() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "prometheus is not installed (Debian: apt-get install prometheus); .ci/run installs it"
        );
        eprintln!("skipped: prometheus is not installed (apt-get install prometheus)");
        return;
    };
    let logs = [
        (
            "box-a",
            "measure/real/vllm/v1_enginecore_dp0.log",
            42_656 / 16,
        ),
        (
            "box-b",
            "measure/real/vllm/v1_fp8_kv_100k.log",
            230_528 / 16,
        ),
    ];
    let sims: Vec<Arc<Mutex<Sim>>> = [logs[0].2, logs[1].2, 1000]
        .iter()
        .enumerate()
        .map(|(k, &blocks)| Arc::new(Mutex::new(Sim::new(k, blocks))))
        .collect();
    let ports = exporter(&sims);
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = start(&binary, dir.path(), &ports);

    // Let every box be scraped past its peak and past the restart, with room on either side.
    let began = Instant::now();
    while sims.iter().any(|s| s.lock().unwrap().step < PEAK_STEP + 5) {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "Prometheus scraped too little"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let at = now_s() - 0.2;
    std::thread::sleep(Duration::from_millis(700));
    let at_s = format!("{at:.3}");
    let mut args = vec![
        "measure",
        "--prometheus",
        &url,
        "--window",
        WINDOW,
        "--at",
        &at_s,
        "--match",
        "{job=\"vllm\"}",
    ];
    let log_args: Vec<String> = logs
        .iter()
        .map(|(name, log, _)| format!("{name}={}", fixture(log).display()))
        .collect();
    for l in &log_args {
        args.extend(["--log", l.as_str()]);
    }
    args.extend(["--format", "json"]);
    let out = capcheck(&args);
    let (code, got) = json_of(&out);
    assert_eq!(code, 0, "{got:#}\n{}", stderr(&out));

    // Every box named, each with its own window.
    let windows = got["windows"].as_array().unwrap();
    let names: Vec<&str> = windows
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["box-a", "box-b"]);
    let range = |name: &str| format!("{name}{{job=\"vllm\"}}[{WINDOW}]");
    for (h, name, _) in HISTOGRAMS {
        for (q, key) in [(0.5, "p50"), (0.9, "p90"), (0.99, "p99")] {
            let theirs = promql(
                &url,
                &format!(
                    "histogram_quantile({q}, sum by (instance, le) (increase({})))",
                    range(&format!("{name}_bucket"))
                ),
                at,
            );
            assert_eq!(theirs.len(), 2, "{name}");
            for (instance, value) in theirs {
                let w = windows
                    .iter()
                    .find(|w| w["instance"] == instance.as_str())
                    .unwrap();
                let ours = w["histograms"][h][key]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{instance} {h} {key}: {w:#}"));
                close(&format!("{instance} {h} {key}"), ours, value);
            }
        }
    }
    // The fleet: the boxes' increases added by bucket, as `sum by (le)`.
    let fleet = |name: &str, q: f64| {
        promql(
            &url,
            &format!(
                "histogram_quantile({q}, sum by (le) (increase({})))",
                range(&format!("{name}_bucket"))
            ),
            at,
        )[0]
        .1
    };
    close(
        "fleet queue p50",
        got["queue_p50_s"].as_f64().unwrap(),
        fleet("vllm:request_queue_time_seconds", 0.5),
    );
    close(
        "fleet queue p90",
        got["queue_p90_s"].as_f64().unwrap(),
        fleet("vllm:request_queue_time_seconds", 0.9),
    );
    close(
        "fleet p90 prompt",
        got["p90_prompt_tokens"].as_f64().unwrap(),
        fleet("vllm:request_prompt_tokens", 0.9),
    );
    for (key, promql_name) in [
        ("requests", "vllm:e2e_request_latency_seconds_count"),
        ("preemptions", "vllm:num_preemptions_total"),
    ] {
        for (instance, value) in promql(
            &url,
            &format!("sum by (instance) (increase({}))", range(promql_name)),
            at,
        ) {
            let w = windows
                .iter()
                .find(|w| w["instance"] == instance.as_str())
                .unwrap();
            close(
                &format!("{instance} {key}"),
                w[key].as_f64().unwrap(),
                value,
            );
        }
    }

    // The breakdown equals the two-scrape method on the same series' ends in the window.
    for w in windows {
        let instance = w["instance"].as_str().unwrap();
        let (first, last) = ends(&url, instance, at);
        let scrapes = tempfile::tempdir().unwrap();
        let (b, a) = (
            scrapes.path().join("t0.prom"),
            scrapes.path().join("t1.prom"),
        );
        std::fs::write(&b, first).unwrap();
        std::fs::write(&a, last).unwrap();
        let out = capcheck(&[
            "measure",
            "--scrape-before",
            b.to_str().unwrap(),
            "--scrape-after",
            a.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let (code, two) = json_of(&out);
        assert_eq!(code, 0, "{two:#}");
        for key in ["queue_s", "prefill_s", "decode_s", "e2e_s", "sum_s"] {
            close(
                &format!("{instance} breakdown {key}"),
                w["breakdown"][key].as_f64().unwrap(),
                two["breakdown"][key].as_f64().unwrap(),
            );
        }
    }

    // The KV peak is the largest value served in the window, which is no end point.
    let mut fleet_peak: f64 = 0.0;
    for (k, w) in windows.iter().enumerate() {
        let served = sims[k].lock().unwrap().served.clone();
        let inside: Vec<&(f64, f64, f64)> = served
            .iter()
            .filter(|(t, _, _)| *t > at - 4.0 && *t <= at)
            .collect();
        let peak = inside.iter().map(|s| s.1).fold(f64::MIN, f64::max);
        let (first, last) = (inside[0].1, inside[inside.len() - 1].1);
        assert!(
            peak > first && peak > last,
            "the peak must be inside the window: {inside:?}"
        );
        assert_eq!(w["kv_usage_peak"].as_f64(), Some(peak), "{w:#}");
        assert_eq!(w["waiting_peak"].as_f64(), Some(17.0), "{w:#}");
        fleet_peak = fleet_peak.max(peak);
    }
    assert_eq!(got["kv_usage_peak"].as_f64(), Some(fleet_peak));
    assert_eq!(got["kv_usage_peak_is_true"], true);

    // Two boxes of different capacities: the per-box figures are the narrowest box's, named.
    let boxes = got["boxes"].as_array().unwrap();
    let capacity = |i: usize| boxes[i]["capacity"].as_u64().unwrap();
    assert!(capacity(0) < capacity(1), "{got:#}");
    assert_eq!(got["per_box_capacity"].as_u64(), Some(capacity(0)));
    assert_eq!(got["per_box_capacity_box"], "box-a");
    assert_eq!(
        got["fleet_capacity"].as_u64(),
        Some(capacity(0) + capacity(1))
    );
    assert_eq!(got["pessimistic_floor"], 1);
    assert_eq!(got["pessimistic_floor_box"], "box-a");
    assert_eq!(got["fleet_pessimistic_floor"], 1 + 2);
    let p90 = got["p90_prompt_tokens"].as_f64().unwrap();
    assert_eq!(capacity(0), (42_656.0 / p90).floor() as u64);

    // The human report names each box's window and says the peak is every sample's.
    let mut human = args.clone();
    human.truncate(human.len() - 2);
    human.extend(["--color", "never"]);
    let text = crate::support::stdout(&capcheck(&human));
    for want in [
        "Per box, over the window (Prometheus)",
        "box-a",
        "box-b",
        "every sample in the window",
    ] {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }

    // A box that restarted in the window: refused, with the query and the instance.
    let out = capcheck(&[
        "measure",
        "--prometheus",
        &url,
        "--window",
        WINDOW,
        "--at",
        &at_s,
        "--match",
        "{job=\"vllm-restarted\"}",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("instance `box-c`") && err.contains("was reset") && err.contains("resets("),
        "{err}"
    );
    // A selector Prometheus cannot parse: located in --match.
    let out = capcheck(&[
        "measure",
        "--prometheus",
        &url,
        "--window",
        WINDOW,
        "--at",
        &at_s,
        "--match",
        "{job=vllm}",
        "--format",
        "json",
    ]);
    let (code, v) = json_of(&out);
    assert_eq!(code, 2);
    let p = &v["error"]["problems"][0];
    assert_eq!(p["file"], "--match", "{v:#}");
    assert!(p["column"].as_u64().unwrap() > 1, "{v:#}");
    // Nothing matches: an error that says what was asked.
    let out = capcheck(&[
        "measure",
        "--prometheus",
        &url,
        "--window",
        WINDOW,
        "--at",
        &at_s,
        "--match",
        "{job=\"nothing\"}",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no series named vllm:*"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn credentials_come_from_the_environment() {
    for (env, header) in [
        (
            vec![("CAPCHECK_PROMETHEUS_TOKEN", "s3cret")],
            "authorization: bearer s3cret",
        ),
        (
            vec![
                ("CAPCHECK_PROMETHEUS_USER", "user"),
                ("CAPCHECK_PROMETHEUS_PASSWORD", "pass"),
            ],
            "authorization: basic dxnlcjpwyxnz",
        ),
    ] {
        let body =
            "{\"status\":\"error\",\"errorType\":\"unauthorized\",\"error\":\"no\"}".to_string();
        let (url, heads) = crate::measure::serve(vec![body]);
        let base = url.trim_end_matches("/metrics");
        let out = capcheck_env(
            Path::new(env!("CARGO_MANIFEST_DIR")),
            &env,
            &[
                "measure",
                "--prometheus",
                base,
                "--window",
                "15m",
                "--at",
                "1764500000",
            ],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(
            stderr(&out).contains("query `count by (instance)"),
            "{}",
            stderr(&out)
        );
        let head = heads
            .recv_timeout(Duration::from_secs(10))
            .unwrap()
            .to_ascii_lowercase();
        assert!(head.starts_with("get /api/v1/query?query="), "{head}");
        assert!(head.contains(header), "{head}");
    }
    let out = capcheck_env(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            ("CAPCHECK_PROMETHEUS_TOKEN", "t"),
            ("CAPCHECK_PROMETHEUS_USER", "u"),
        ],
        &[
            "measure",
            "--prometheus",
            "http://127.0.0.1:9",
            "--window",
            "15m",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("not both"), "{}", stderr(&out));
}

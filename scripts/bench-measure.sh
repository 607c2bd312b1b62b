#!/usr/bin/env bash
# Time `cargo capcheck measure` on the two 30 KB vLLM scrapes and two startup logs, release
# build, RUNS runs (default 200), and print the mean wall time per run. Target: under 20 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-200}
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/cargo-capcheck
f=fixtures/measure/vllm
args=(measure --log "box-a=$f/vllm_v1_startup_latest.log" --log "box-b=$f/vllm_v0_startup.log"
      --scrape-before "$f/vllm_v1_metrics_t0.prom" --scrape-after "$f/vllm_v1_metrics_t1.prom"
      --window 900s --roster 32 --format json)
"$bin" "${args[@]}" >/dev/null # warm the page cache
start=$(date +%s%N)
for _ in $(seq "$runs"); do "$bin" "${args[@]}" >/dev/null; done
end=$(date +%s%N)
awk -v ns=$((end - start)) -v n="$runs" 'BEGIN { printf "measure: %d runs, mean %.2f ms wall per run\n", n, ns / n / 1e6 }'

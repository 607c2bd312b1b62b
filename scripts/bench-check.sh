#!/usr/bin/env bash
# Benchmark `cargo capcheck check` against ast-grep's one-pattern scan of the same corpus.
#
# Usage: scripts/bench-check.sh [RUNS]
# The corpus is the published sources of well-known concurrency crates (tokio, tower, hyper,
# bb8, deadpool, ...), fetched with `cargo vendor` (crates.io) into $BENCH_DIR (default
# /tmp/capcheck-bench) and made into one Cargo workspace so `check --workspace` sees them all.
# ast-grep (npm i @ast-grep/cli) scans the same folder with one pattern. capcheck runs twice
# per round, as users run it (sparse parse) and with --full-parse (every item parsed); all three
# run RUNS times (default 5), alternating, and the median wall time, CPU time and peak RSS of
# each are reported, with the ratios to ast-grep from the same run.
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
bench=${BENCH_DIR:-/tmp/capcheck-bench}
crates=(tokio tokio-util tower hyper hyper-util h2 axum actix-web rayon rayon-core futures-util
        crossbeam-channel flume async-channel mio bytes reqwest tonic bb8 deadpool r2d2
        deadpool-postgres tokio-postgres)

mkdir -p "$bench"
if [ ! -f "$bench/ws/Cargo.toml" ]; then
  mkdir -p "$bench/fetch/src"
  cat > "$bench/fetch/Cargo.toml" <<'TOML'
[package]
name = "fetch"
version = "0.1.0"
edition = "2021"
[dependencies]
tokio = { version = "1", features = ["full"] }
tokio-util = "0.7"
tower = { version = "0.5", features = ["full"] }
hyper = { version = "1", features = ["full"] }
hyper-util = "0.1"
axum = "0.8"
actix-web = "4"
rayon = "1"
futures = "0.3"
crossbeam = "0.8"
flume = "0.11"
async-channel = "2"
reqwest = "0.12"
tonic = "0.12"
bb8 = "0.9"
deadpool = "0.12"
deadpool-postgres = "0.14"
r2d2 = "0.8"
TOML
  echo 'fn main() {}' > "$bench/fetch/src/main.rs"
  (cd "$bench/fetch" && cargo vendor -q "$bench/vendor" >/dev/null)
  mkdir -p "$bench/ws/crates"
  members=""
  for c in "${crates[@]}"; do
    cp -r "$bench/vendor/$c" "$bench/ws/crates/$c"
    members="$members\"crates/$c\", "
  done
  printf '[workspace]\nmembers = [%s]\nresolver = "2"\n' "$members" > "$bench/ws/Cargo.toml"
fi

(cd "$here" && cargo build --release --quiet)
capcheck="$here/target/release/cargo-capcheck"
astgrep=${AST_GREP:-$(command -v ast-grep || true)}
[ -n "$astgrep" ] || { echo "ast-grep not found: npm i @ast-grep/cli and set AST_GREP" >&2; exit 2; }

files=$(find "$bench/ws/crates" -name '*.rs' | wc -l)
lines=$(find "$bench/ws/crates" -name '*.rs' -print0 | xargs -0 cat | wc -l)

measure() { # prints "wall_s peak_kb cpu_s"
  /usr/bin/time -f "%e %M %U %S" -o "$bench/time.txt" "$@" >/dev/null 2>"$bench/stderr.txt" || true
  tail -n 1 "$bench/time.txt" | awk '{print $1, $2, $3 + $4}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

: > "$bench/cap.txt"; : > "$bench/full.txt"; : > "$bench/ast.txt"
for _ in $(seq "$runs"); do
  measure "$capcheck" check --workspace --format json --manifest-path "$bench/ws/Cargo.toml" >> "$bench/cap.txt"
  measure "$astgrep" run --lang rust --pattern 'const $N: $T = $V;' --json=compact "$bench/ws/crates" >> "$bench/ast.txt"
  measure "$capcheck" check --workspace --format json --full-parse --manifest-path "$bench/ws/Cargo.toml" >> "$bench/full.txt"
done
col() { cut -d' ' -f"$2" "$bench/$1.txt" | median; }
cap_wall=$(col cap 1); cap_mem=$(col cap 2); cap_cpu=$(col cap 3)
full_wall=$(col full 1); full_mem=$(col full 2); full_cpu=$(col full 3)
ast_wall=$(col ast 1); ast_mem=$(col ast 2); ast_cpu=$(col ast 3)
# check exits 1 when it finds errors; the count is what matters here.
"$capcheck" check --workspace --format json --manifest-path "$bench/ws/Cargo.toml" > "$bench/report.json" || true
"$capcheck" check --workspace --format json --full-parse --manifest-path "$bench/ws/Cargo.toml" > "$bench/report-full.json" || true
findings=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["findings"]))' "$bench/report.json")
same=$(python3 -c 'import json,sys; a,b=(json.load(open(p))["findings"] for p in sys.argv[1:]); print("identical" if a==b else "DIFFERENT")' "$bench/report.json" "$bench/report-full.json")

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "corpus: ${#crates[@]} crates, $files files, $lines lines ($bench/ws)"
echo "runs: $runs each, alternating; medians"
printf '%-28s %8s %8s %12s\n' tool wall_s cpu_s peak_MB
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
printf '%-28s %8s %8s %12s\n' "cargo-capcheck check" "$cap_wall" "$cap_cpu" "$(div "$cap_mem" 1024)"
printf '%-28s %8s %8s %12s\n' "  ... --full-parse" "$full_wall" "$full_cpu" "$(div "$full_mem" 1024)"
printf '%-28s %8s %8s %12s\n' "ast-grep $("$astgrep" --version | cut -d' ' -f2) (1 pattern)" "$ast_wall" "$ast_cpu" "$(div "$ast_mem" 1024)"
echo "ratio capcheck/ast-grep: wall $(div "$cap_wall" "$ast_wall"), cpu $(div "$cap_cpu" "$ast_cpu")"
echo "ratio capcheck --full-parse/ast-grep: wall $(div "$full_wall" "$ast_wall"), cpu $(div "$full_cpu" "$ast_cpu")"
echo "capcheck findings: $findings ($same to --full-parse)"

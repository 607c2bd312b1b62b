#!/usr/bin/env bash
# Compare two builds of cargo-capcheck side by side on the bench workspace of bench-check.sh.
#
# Usage: scripts/bench-ab.sh BIN_A BIN_B [RUNS]
# Runs `check --workspace --format json` with each binary RUNS times (default 9), alternating,
# and prints the median wall and CPU (user + system) seconds of each. Run scripts/bench-check.sh
# once first: it fetches the workspace into $BENCH_DIR (default /tmp/capcheck-bench). WS=DIR
# runs them on another workspace instead (a corpus tree: WS=/tmp/capcheck-corpus/repos/vector).
set -euo pipefail
a=$1; b=$2; runs=${3:-9}
ws=${WS:-${BENCH_DIR:-/tmp/capcheck-bench}/ws}
[ -f "$ws/Cargo.toml" ] || { echo "no bench workspace at $ws: run scripts/bench-check.sh first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$runs"); do
  for side in a b; do
    bin=$a; [ "$side" = b ] && bin=$b
    /usr/bin/time -f "%e %U %S" -a -o "$out/$side" "$bin" check --workspace --format json \
      --manifest-path "$ws/Cargo.toml" >/dev/null 2>&1 || true
  done
done
python3 - "$out" "$a" "$b" <<'PY'
import statistics, sys
out, names = sys.argv[1], {'a': sys.argv[2], 'b': sys.argv[3]}
for side in 'ab':
    rows = [l.split() for l in open(f'{out}/{side}') if l[:1].isdigit()]
    wall = statistics.median(float(r[0]) for r in rows)
    cpu = statistics.median(float(r[1]) + float(r[2]) for r in rows)
    print(f'{names[side]}: wall {wall:.2f} s, cpu {cpu:.2f} s (median of {len(rows)})')
PY

#!/usr/bin/env bash
# Mutants side by side, in one run: capcheck (compile-once `switch` engine), cargo-gamma and
# cargo-mutants on the same crates and the same source lines (the lines capcheck mutates; each
# peer mutates them its own way), each tool in a fresh copy whose dependencies are built first
# (for capcheck, in its build folder), so every wall below is the tool's own work: its build of
# the crate, baseline and mutants.
#
# Usage: scripts/bench-mutants.sh [-j N] CRATE_DIR[@FEATURES]...
#   @FEATURES: build and test with these cargo features and without doctests (for crates whose
#   doctests need every feature), for all three tools alike.
#   CAPCHECK=path/to/cargo-capcheck (default: target/release/cargo-capcheck)
#   COLD=1: no tool's dependencies are built beforehand: each wall includes the cold build
#   (what a user who clones the repository and runs the tool once gets)
#   peers: `cargo install cargo-gamma cargo-mutants` (cargo-gamma runs with --memory off)
# Prints one TSV row per crate and tool (mutants, wall, wall per mutant), then the ratios of
# capcheck's per-mutant wall to each peer's.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
jobs=2
if [[ "${1:-}" == "-j" ]]; then jobs="$2"; shift 2; fi
capcheck="${CAPCHECK:-$here/target/release/cargo-capcheck}"
work="${BENCH_DIR:-/tmp/capcheck-bench-mutants}"
rm -rf "$work"; mkdir -p "$work"
rows="$work/rows.tsv"
printf 'crate\ttool\tmutants\twall_s\tper_mutant_s\n' | tee "$rows"

fresh() { # fresh COPY_NAME SRC: a copy with its dependencies and tests built once
  local dst="$work/$1"
  rm -rf "$dst"; cp -r "$2" "$dst"; rm -rf "$dst/target"
  if [[ -z "${COLD:-}" ]]; then
    (cd "$dst" && cargo test --no-run -q "${build_extra[@]}" >/dev/null 2>&1 || true)
  fi
  echo "$dst"
}
now() { date +%s.%N; }
row() { # row CRATE TOOL MUTANTS START END
  local wall per=-
  wall=$(echo "$5-$4" | bc)
  if [[ "$3" -gt 0 ]]; then per=$(printf '%.2f' "$(echo "$wall/$3" | bc -l)"); fi
  printf '%s\t%s\t%s\t%.1f\t%s\n' "$1" "$2" "$3" "$wall" "$per" | tee -a "$rows"
}

for spec in "$@"; do
  src="${spec%%@*}"
  name="$(basename "$src")"
  cap_extra=(); gamma_extra=(); mutants_extra=(); build_extra=()
  if [[ "$spec" == *@* ]]; then
    features="${spec#*@}"
    cap_extra=(--features "$features" --no-doctests)
    gamma_extra=(--features "$features") # it runs no doctests
    mutants_extra=(--features "$features" --cargo-test-arg=--tests)
    build_extra=(--features "$features")
  fi
  # The lines capcheck mutates, as `file:line` and as a regex the peers match on.
  "$capcheck" capcheck mutants --list --format json --manifest-path "$src/Cargo.toml" \
    > "$work/$name.list.json"
  files=$(python3 -c 'import json,sys; print(" ".join(sorted({m["file"] for m in json.load(open(sys.argv[1]))})))' "$work/$name.list.json")
  lines_re=$(python3 -c 'import json,sys; ms=json.load(open(sys.argv[1])); print("|".join(sorted({"%s:%d:" % (m["file"], m["line"]) for m in ms})))' "$work/$name.list.json")
  file_args=(); for f in $files; do file_args+=(--file "$f"); done

  dir=$(fresh "capcheck-$name" "$src")
  # capcheck builds in its own build folder (kept warm between runs, never the user's target/):
  # warm it as the peers' target/ is warmed, with the dependencies built once.
  if [[ -z "${COLD:-}" ]]; then
    (cd "$dir" && CARGO_TARGET_DIR="$dir/target/capcheck-build/0" cargo test --no-run -q "${build_extra[@]}" >/dev/null 2>&1 || true)
  fi
  t0=$(now)
  (cd "$dir" && "$capcheck" capcheck mutants -j "$jobs" "${cap_extra[@]}" --format json --output "$work/out-capcheck-$name" \
     --build-dir "$dir/target/capcheck-build" > "$work/capcheck-$name.json" 2> "$work/capcheck-$name.err" || true)
  t1=$(now)
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["mutants"]))' "$work/capcheck-$name.json")
  row "$name" capcheck "$n" "$t0" "$t1"
  # What the wall went to: the build, the baseline, and the tests each mutant ran.
  python3 - "$work/capcheck-$name.json" <<'PY' | tee -a "$work/capcheck-detail.txt"
import json, sys
r = json.load(open(sys.argv[1]))
b = r["summary"]["baseline"]
ms = r["mutants"]
runs = [m.get("tests_run", 0) for m in ms]
walls = ", ".join("%.1f" % (m["duration_ms"] / 1000) for m in ms)
print("  capcheck detail: build %.1f s, baseline tests %.1f s (%d tests), switched %d of %d, "
      "tests run per mutant %.1f, mutant walls %s s"
      % (b["build_ms"] / 1000, b["test_ms"] / 1000, b["tests"], b.get("switched", 0), len(ms),
         sum(runs) / max(len(runs), 1), walls))
PY

  dir=$(fresh "gamma-$name" "$src")
  t0=$(now)
  (cd "$dir" && cargo gamma run --memory off -j "$jobs" --progress never "${gamma_extra[@]}" "${file_args[@]}" --re "$lines_re" \
     > "$work/gamma-$name.out" 2>&1 || true)
  t1=$(now)
  n=$(grep -oE 'Summary: [0-9]+ mutants' "$work/gamma-$name.out" | grep -oE '[0-9]+' || echo 0)
  row "$name" cargo-gamma "$n" "$t0" "$t1"

  dir=$(fresh "mutants-$name" "$src")
  t0=$(now)
  (cd "$dir" && cargo mutants -j "$jobs" --no-shuffle "${mutants_extra[@]}" "${file_args[@]}" --re "$lines_re" \
     > "$work/mutants-$name.out" 2>&1 || true)
  t1=$(now)
  n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["outcomes"]) - 1)' "$dir/mutants.out/outcomes.json" 2>/dev/null || echo 0)
  row "$name" cargo-mutants "$n" "$t0" "$t1"
done

echo
echo "capcheck per-mutant wall / peer per-mutant wall (same crate, same lines, this run):"
python3 - "$rows" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault(r["crate"], {})[r["tool"]] = float(r["per_mutant_s"]) if r["per_mutant_s"] != "-" else None
for crate, t in by.items():
    c = t.get("capcheck")
    out = [crate]
    for peer in ("cargo-gamma", "cargo-mutants"):
        p = t.get(peer)
        out.append(f"vs {peer}: {c / p:.2f}x" if c and p else f"vs {peer}: n/a")
    print("\t".join(out))
EOF

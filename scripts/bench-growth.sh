#!/usr/bin/env bash
# Growth benchmark: does 8x the input cost at most 10x the time? (issue 27)
#
# Usage: scripts/bench-growth.sh [N] [RUNS]
# For each dimension, generates a one-package crate at size N and 8N under $GROWTH_DIR (default
# /tmp/capcheck-growth), runs `cargo capcheck check --format FORMAT` on each RUNS times (default
# 3) with the binary $CAPCHECK (default target/release/cargo-capcheck), and prints the median
# wall time of each and their ratio. Dimensions (N = 3000 by default), format json unless said:
#   findings       N constants `pub const MAX_CONCURRENCY_<i>: u64 = <i+1>;`, one per line
#   one-line       the same N constants joined on one line (24,000 of them: a 1 MB line)
#   one-line:human, one-line:sarif   the same, rendered for people and as SARIF
#   suppressed     each constant followed by `// capcheck: allow(unmeasured-capacity, reason = "x")`
#   suppressed-above   that comment alone on the line above each constant
#   pinned         the N constants and one test holding `assert_eq!(max_concurrency, 4)`
#   pins           the N constants and N tests, each pinning one (`assert_eq!(max_concurrency, i+1)`)
#   asserts        one constant and N assertion literals `assert_eq!(MAX_CONCURRENCY_0 * <i>, ..)`
#   line-bytes     one line of N*300 bytes: a string constant, then a comment
# A run past $LIMIT seconds (default 600) is killed and counted as LIMIT. Exits 1 when a ratio
# is above 10.
set -euo pipefail
n=${1:-3000}
runs=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CAPCHECK:-$here/target/release/cargo-capcheck}
dir=${GROWTH_DIR:-/tmp/capcheck-growth}/$n
mkdir -p "$dir"

gen() { # gen DIMENSION SIZE FOLDER
  python3 - "$@" <<'PY'
import os, sys
dim, n, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(d + "/src", exist_ok=True)
open(d + "/Cargo.toml", "w").write(
    '[package]\nname = "growth"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n')
consts = ["pub const MAX_CONCURRENCY_%d: u64 = %d;" % (i, i + 1) for i in range(n)]
if dim == "findings":
    text = "\n".join(consts) + "\n"
elif dim == "one-line":
    text = " ".join(consts) + "\n"
elif dim == "suppressed-above":
    text = "\n".join('// capcheck: allow(unmeasured-capacity, reason = "x")\n' + c for c in consts) + "\n"
elif dim == "suppressed":
    text = "\n".join(c + ' // capcheck: allow(unmeasured-capacity, reason = "x")' for c in consts) + "\n"
elif dim == "pinned":
    text = "\n".join(consts) + "\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn four() {\n        let max_concurrency = super::MAX_CONCURRENCY_3;\n        assert_eq!(max_concurrency, 4);\n    }\n}\n"
elif dim == "pins":
    tests = "\n".join("    #[test]\n    fn t%d() {\n        let max_concurrency = super::MAX_CONCURRENCY_%d;\n        assert_eq!(max_concurrency, %d);\n    }" % (i, i, i + 1) for i in range(n))
    text = "\n".join(consts) + "\n\n#[cfg(test)]\nmod tests {\n" + tests + "\n}\n"
elif dim == "asserts":
    body = "\n".join("        assert_eq!(super::MAX_CONCURRENCY_0 * %d, %d);" % (i, i) for i in range(n))
    text = consts[0] + "\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn many() {\n" + body + "\n    }\n}\n"
elif dim == "line-bytes":
    text = 'pub const BANNER: &str = "%s"; // %s\n' % ("x" * (n * 150), "y" * (n * 150))
else:
    sys.exit("unknown dimension " + dim)
open(d + "/src/lib.rs", "w").write(text)
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

time_one() { # time_one FOLDER FORMAT -> median seconds
  for _ in $(seq "$runs"); do
    ( cd "$1" && s=$(date +%s.%N); timeout "${LIMIT:-600}" "$bin" check --format "$2" > /dev/null || true
      e=$(date +%s.%N); echo "$e - $s" | bc )
  done | median
}

echo "binary: $bin ($("$bin" --version 2>/dev/null || echo '?')); N = $n; runs = $runs; $(nproc) cores"
printf '%-18s %10s %10s %7s\n' dimension "N (s)" "8N (s)" ratio
worst=0
for case in ${DIMENSIONS:-findings one-line one-line:human one-line:sarif suppressed suppressed-above pinned pins asserts line-bytes}; do
  dim=${case%%:*}
  format=json
  [ "$case" != "$dim" ] && format=${case#*:}
  [ -d "$dir/$dim-1" ] || gen "$dim" "$n" "$dir/$dim-1"
  [ -d "$dir/$dim-8" ] || gen "$dim" $((8 * n)) "$dir/$dim-8"
  a=$(time_one "$dir/$dim-1" "$format")
  b=$(time_one "$dir/$dim-8" "$format")
  r=$(echo "scale=1; $b / $a" | bc)
  printf '%-18s %10.3f %10.3f %7.1f\n' "$case" "$a" "$b" "$r"
  if (( $(echo "$r > 10" | bc) )); then worst=1; fi
done
exit $worst

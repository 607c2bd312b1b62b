#!/usr/bin/env bash
# CI (.ci/run): the crate as crates.io would get it. `cargo package --list` holds what the binary
# needs and nothing of the repository's corpora, fixtures, tests or docs; `cargo publish
# --dry-run` packages it, builds the unpacked .crate (dev profile, in this target dir, so only the
# crate itself is compiled again) and uploads nothing; then the binary built from the unpacked
# .crate runs `check` on two fixtures and `explain` (its rule texts come from the packaged
# rules/*.toml). Needs crates.io's index (the dry run resolves the dependencies there). Outside CI
# (CI unset) uncommitted changes are packaged too (--allow-dirty).
set -euo pipefail
cd "$(dirname "$0")/.."
dirty=()
[ -n "${CI:-}" ] || dirty=(--allow-dirty)

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
list="$(cargo package --list --locked ${dirty[@]+"${dirty[@]}"})"
fail() { echo "ci-package: $*" >&2; exit 1; }
for f in Cargo.toml Cargo.lock README.md src/main.rs src/lib.rs; do
  grep -qx "$f" <<<"$list" || fail "the package lacks $f"
done
for f in rules/*.toml; do
  grep -qx "$f" <<<"$list" || fail "the package lacks $f"
done
if grep -E '^(corpus|fixtures|tests|docs|scripts|target|\.github|\.ci)/' <<<"$list"; then
  fail "the package holds the files above, which the binary does not need"
fi
echo "ci-package: $(wc -l <<<"$list") files in the package"

cargo publish --dry-run --locked ${dirty[@]+"${dirty[@]}"}

crate="target/package/cargo-capcheck-$version"
packaged() {
  CARGO_TARGET_DIR="$PWD/target" cargo run --quiet --locked --manifest-path "$crate/Cargo.toml" \
    -- capcheck "$@"
}
out="$(packaged check --manifest-path fixtures/seed-2-measured/Cargo.toml --format json)" ||
  fail "check on seed-2-measured exited $? (want 0)"
grep -q '"rule": "cap-below-natural-bound"' <<<"$out" || fail "seed-2-measured: $out"
code=0
out="$(packaged check --manifest-path fixtures/seed-1-typed-cap/Cargo.toml --format json)" || code=$?
[ "$code" = 1 ] || fail "check on seed-1-typed-cap exited $code (want 1)"
grep -q '"rule": "unmeasured-capacity"' <<<"$out" || fail "seed-1-typed-cap: $out"
packaged explain unmeasured-capacity | grep -q "unmeasured-capacity" || fail "explain"
echo "ci-package: the binary built from $crate.crate runs check and explain"

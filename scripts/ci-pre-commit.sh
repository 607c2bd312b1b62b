#!/usr/bin/env bash
# CI (.ci/run): the hooks of .pre-commit-hooks.yaml, run by the real pre-commit
# (`pre-commit try-repo` of this repository, uncommitted changes included) in git repositories
# made from copies of fixture crates: `cargo-capcheck` (pre-commit builds it with `cargo install
# --path`) passes on seed-2-measured and refuses seed-1-typed-cap for its unmeasured capacity;
# `cargo-capcheck-system` (the binary on PATH) refuses it too. The build is unoptimised and goes
# to target/pre-commit (CARGO_TARGET_DIR, CARGO_PROFILE_RELEASE_*), to keep CI short; the hook
# itself does not depend on that. PRE_COMMIT names pre-commit (default: on PATH).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
pre_commit="${PRE_COMMIT:-pre-commit}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache"
export CARGO_TARGET_DIR="$repo/target/pre-commit"
export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_DEBUG=false CARGO_INCREMENTAL=0
export GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@localhost GIT_COMMITTER_NAME=ci
export GIT_COMMITTER_EMAIL=ci@localhost

fixture() {
  cp -r "$repo/fixtures/$1" "$work/$1"
  git -C "$work/$1" init -q
  git -C "$work/$1" add -A
  git -C "$work/$1" commit -qm fixture
}
fixture seed-2-measured
fixture seed-1-typed-cap

# expect CODE NEEDLE FIXTURE HOOK: try-repo exits CODE and prints NEEDLE.
expect() {
  local want="$1" needle="$2" dir="$3" hook="$4" code=0
  (cd "$work/$dir" && "$pre_commit" try-repo "$repo" "$hook" --all-files) >"$work/log" 2>&1 ||
    code=$?
  if [ "$code" != "$want" ] || ! grep -q -- "$needle" "$work/log"; then
    cat "$work/log"
    echo "ci-pre-commit: $hook on $dir exited $code (want $want, printing '$needle')" >&2
    exit 1
  fi
  echo "ci-pre-commit: $hook on $dir: exit $code, as expected"
}
expect 0 "cargo capcheck check\.*Passed" seed-2-measured cargo-capcheck
expect 1 "unmeasured-capacity" seed-1-typed-cap cargo-capcheck
PATH="$CARGO_TARGET_DIR/release:$PATH" expect 1 "unmeasured-capacity" seed-1-typed-cap \
  cargo-capcheck-system

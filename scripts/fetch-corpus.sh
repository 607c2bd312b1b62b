#!/usr/bin/env bash
# Fetch the accuracy corpus: the exact published crate versions listed in corpus/crates.tsv,
# downloaded from crates.io (static.crates.io), checked against their sha256, unpacked into
# $CORPUS_DIR/ws/crates/NAME-VERSION and made into one Cargo workspace, so that
# `cargo capcheck check --workspace` sees them all; and the GitHub trees of corpus/repos.tsv at
# their commits (and those of corpus/pin-recall/repos.tsv, the pin-recall corpus) into $CORPUS_DIR/repos/NAME
# (each its own workspace), fetched from github.com
# or, with CAPCHECK_MIRROR=DIR, from bare mirrors DIR/OWNER+REPO/repo (this project's sandbox
# reaches no GitHub; its `fetch` tool leaves such mirrors). Trees are checked out, not archived:
# an archive leaves out what `.gitattributes` marks `export-ignore`, and a workspace may list
# such a folder as members (opendal's `core/examples`). A workspace whose members are git
# submodules gets those (corpus/submodules.tsv) at the commits its tree pins. A pinned toolchain
# file is removed, in any folder (cargo metadata would ask for that toolchain), and so is a
# nightly-only `cargo-features` line (commented out). Nothing is vendored into this repository.
#
# Usage: scripts/fetch-corpus.sh            (CORPUS_DIR defaults to /tmp/capcheck-corpus)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${CORPUS_DIR:-/tmp/capcheck-corpus}
mkdir -p "$dir/dl" "$dir/ws/crates"
members=""
while read -r name version sha _; do
  case "$name" in ''|\#*) continue ;; esac
  crate="$dir/dl/$name-$version.crate"
  if [ ! -f "$crate" ]; then
    curl -fsSL "https://static.crates.io/crates/$name/$name-$version.crate" -o "$crate.part"
    mv "$crate.part" "$crate"
  fi
  got=$(sha256sum "$crate" | cut -d' ' -f1)
  if [ "$sha" != "-" ] && [ "$got" != "$sha" ]; then
    echo "$name $version: sha256 $got, corpus/crates.tsv says $sha" >&2
    exit 2
  fi
  [ "$sha" = "-" ] && echo "$name $version sha256 $got (record it in corpus/crates.tsv)"
  if [ ! -d "$dir/ws/crates/$name-$version" ]; then
    tar -xzf "$crate" -C "$dir/ws/crates"
  fi
  members="$members\"crates/$name-$version\", "
done < "$here/corpus/crates.tsv"
printf '[workspace]\nmembers = [%s]\nresolver = "2"\n' "$members" > "$dir/ws/Cargo.toml"
echo "corpus: $dir/ws"
# git_of REPO COMMIT DIR: a git dir holding REPO's COMMIT: its mirror under $CAPCHECK_MIRROR, or
# DIR, made afresh and fetched from GitHub.
git_of() {
  if [ -n "${CAPCHECK_MIRROR:-}" ]; then
    echo "$CAPCHECK_MIRROR/${1/\//+}/repo"
  else
    rm -rf "$3"
    git init -q --bare "$3"
    git --git-dir="$3" fetch -q --depth 1 "https://github.com/$1" "$2"
    echo "$3"
  fi
}
mkdir -p "$dir/repos"
while IFS=$'\t' read -r name repo commit skip _; do
  case "$name" in ''|\#*) continue ;; esac
  into="$dir/repos/$name"
  [ -d "$into" ] && continue
  mkdir -p "$into.part"
  git_dir=$(git_of "$repo" "$commit" "$dir/git/$name")
  # Skipped paths (top-level or deeper) are excluded by pathspec.
  excludes=()
  if [ "$skip" != "-" ]; then
    IFS=, read -ra skipped <<< "$skip"
    for s in "${skipped[@]}"; do excludes+=(":(exclude)$s"); done
  fi
  # A scratch index, so that the mirror's own is never touched.
  GIT_INDEX_FILE="$into.part.index" git --git-dir="$git_dir" --work-tree="$into.part" \
    checkout "$commit" -- . "${excludes[@]}"
  rm -f "$into.part.index"
  # The git submodules a workspace needs (corpus/submodules.tsv), each at the commit the tree's
  # own gitlink pins; the others (a vendored C++ engine, a Python fork) are not checked out.
  while IFS=$'\t' read -r sname spath srepo _; do
    case "$sname" in ''|\#*) continue ;; esac
    [ "$sname" = "$name" ] || continue
    scommit=$(git --git-dir="$git_dir" ls-tree "$commit" -- "$spath" | awk '$2 == "commit" { print $3 }')
    if [ -z "$scommit" ]; then
      echo "$name: $spath is not a submodule at $commit (corpus/submodules.tsv)" >&2
      exit 2
    fi
    sgit=$(git_of "$srepo" "$scommit" "$dir/git/$name+${spath//\//+}")
    mkdir -p "$into.part/$spath"
    GIT_INDEX_FILE="$into.part.index" git --git-dir="$sgit" --work-tree="$into.part/$spath" \
      checkout "$scommit" -- .
    rm -f "$into.part.index"
  done < "$here/corpus/submodules.tsv"
  # Wherever the workspace folder is (pants keeps its Cargo workspace and its pin in src/rust).
  # A pin may be a link to another (xline's `rust-toolchain.toml -> ci/rust-toolchain.toml`).
  find "$into.part" \( -name rust-toolchain -o -name rust-toolchain.toml \) \( -type f -o -type l \) -delete
  # Stable cargo refuses a manifest that asks for a nightly-only cargo feature (risingwave's
  # `cargo-features = ["profile-rustflags"]`), which its removed toolchain pin allowed: the line
  # is commented out, as the pin is removed; no line of any Rust file moves.
  find "$into.part" -name Cargo.toml -type f -exec sed -i 's/^cargo-features/# cargo-features/' {} +
  mv "$into.part" "$into"
done < <(cat "$here/corpus/repos.tsv" "$here/corpus/pin-recall/repos.tsv")
echo "repos: $dir/repos"

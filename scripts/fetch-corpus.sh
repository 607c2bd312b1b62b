#!/usr/bin/env bash
# Fetch the accuracy corpus: the exact published crate versions listed in corpus/crates.tsv,
# downloaded from crates.io (static.crates.io), checked against their sha256, unpacked into
# $CORPUS_DIR/ws/crates/NAME-VERSION and made into one Cargo workspace, so that
# `cargo capcheck check --workspace` sees them all. Nothing is vendored into this repository.
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

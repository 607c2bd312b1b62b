#!/usr/bin/env bash
# Fetch the sources of the hand-classified pin sample (corpus/pins.toml): each `source` is
# "crates.io NAME VERSION" (downloaded from static.crates.io and unpacked, as fetch-corpus.sh
# does) or "github OWNER/REPO COMMIT" (cloned at that commit). Each lands in
# $PINS_DIR/<slug>, where scripts/score-pins.py runs `check` on it. Nothing is vendored.
#
# Usage: scripts/fetch-pins.sh            (PINS_DIR defaults to /tmp/capcheck-pins)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${PINS_DIR:-/tmp/capcheck-pins}
mkdir -p "$dir"
python3 - "$here/corpus/pins.toml" <<'PY' | sort -u | while read -r kind a b; do
import sys, tomllib
for p in tomllib.load(open(sys.argv[1], "rb"))["pin"]:
    print(p["source"])
PY
  case "$kind" in
    crates.io)
      slug="$a-$b"
      [ -d "$dir/$slug" ] && continue
      # Unpacked aside and moved in whole, so a cut download never passes for a crate.
      rm -rf "$dir/.part" && mkdir -p "$dir/.part"
      curl -fsSL "https://static.crates.io/crates/$a/$a-$b.crate" | tar -xz -C "$dir/.part"
      # A published crate is its own workspace root.
      grep -q '^\[workspace\]' "$dir/.part/$slug/Cargo.toml" ||
        printf '\n[workspace]\n' >> "$dir/.part/$slug/Cargo.toml"
      mv "$dir/.part/$slug" "$dir/$slug" && rmdir "$dir/.part"
      ;;
    github)
      slug="${a/\//+}"
      [ -d "$dir/$slug" ] && continue
      rm -rf "$dir/$slug.part"
      git init -q "$dir/$slug.part"
      if ! git -C "$dir/$slug.part" fetch -q --depth 1 "https://github.com/$a" "$b"; then
        echo "cannot fetch github.com/$a at $b: skipped (score-pins.py says so)" >&2
        rm -rf "$dir/$slug.part"
        continue
      fi
      git -C "$dir/$slug.part" checkout -q FETCH_HEAD
      mv "$dir/$slug.part" "$dir/$slug"
      ;;
  esac
  echo "fetched $kind $a $b"
done
echo "pin sources: $dir"

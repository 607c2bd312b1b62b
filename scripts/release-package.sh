#!/usr/bin/env bash
# Package one release binary as the release workflow uploads it and scripts/action-install.sh and
# `cargo binstall` (Cargo.toml's [package.metadata.binstall]) fetch it:
#   OUTDIR/cargo-capcheck-vVERSION-TARGET.tar.gz         holding cargo-capcheck-vVERSION-TARGET/
#                                                         cargo-capcheck, README.md
#   OUTDIR/cargo-capcheck-vVERSION-TARGET.tar.gz.sha256  `HASH  NAME`, as sha256sum writes it
# Usage: release-package.sh VERSION TARGET BINARY OUTDIR. tests/ci.rs builds its fake release
# with it.
set -euo pipefail
version="${1#v}" target="$2" binary="$3" out="$4"
name="cargo-capcheck-v$version-$target"
here="$(cd "$(dirname "$0")/.." && pwd)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name" "$out"
cp "$binary" "$stage/$name/cargo-capcheck"
cp "$here/README.md" "$stage/$name/"
tar -czf "$out/$name.tar.gz" -C "$stage" "$name"
(
  cd "$out"
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$name.tar.gz" >"$name.tar.gz.sha256"
  else
    shasum -a 256 "$name.tar.gz" >"$name.tar.gz.sha256"
  fi
)
echo "$out/$name.tar.gz"

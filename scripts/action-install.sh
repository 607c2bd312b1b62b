#!/usr/bin/env bash
# Install cargo-capcheck for the GitHub Action (action.yml), in this order:
#   1. the binary already in CAPCHECK_ROOT (restored by actions/cache), when it is CAPCHECK_VERSION;
#   2. the release asset for this runner: `cargo-capcheck-vVERSION-TARGET.tar.gz` from
#      CAPCHECK_RELEASES/vVERSION/, checked against its `.sha256` (a mismatch is an error, never
#      a reason to fall back);
#   3. when no asset fits the runner (an architecture without one, or none published for the
#      version): `cargo install --locked --version VERSION --root CAPCHECK_ROOT cargo-capcheck`.
# Windows is refused with a clear error: the sources are Unix-only (src/sys), so neither a
# release nor cargo install has a Windows binary.
# Then CAPCHECK_ROOT/bin goes on GITHUB_PATH, and `source` (cache|release|cargo-install),
# `target` and `bin` go to GITHUB_OUTPUT (each when set).
#
# Environment: CAPCHECK_VERSION (required), CAPCHECK_ROOT (default ~/.cache/cargo-capcheck/VERSION),
# CAPCHECK_RELEASES (default the repository's GitHub releases; tests give a file:// folder),
# RUNNER_OS (Linux|macOS|Windows) and RUNNER_ARCH (X64|ARM64|...), as GitHub sets them (default
# from uname). The asset names are those scripts/release-package.sh writes. tests/ci.rs runs this
# script against a local release folder.
set -euo pipefail

VERSION="${CAPCHECK_VERSION:?CAPCHECK_VERSION: the cargo-capcheck version to install, e.g. 0.1.0}"
VERSION="${VERSION#v}"
RELEASES="${CAPCHECK_RELEASES:-https://github.com/capcheck/cargo-capcheck/releases/download}"
ROOT="${CAPCHECK_ROOT:-$HOME/.cache/cargo-capcheck/$VERSION}"

os="${RUNNER_OS:-$(uname -s)}"
arch="${RUNNER_ARCH:-$(uname -m)}"
case "$os" in
  Linux) os=linux ;;
  macOS | Darwin) os=macos ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
esac
case "$arch" in
  X64 | x86_64 | amd64) arch=x86_64 ;;
  ARM64 | aarch64 | arm64) arch=aarch64 ;;
esac
target=""
case "$os/$arch" in
  linux/x86_64) target=x86_64-unknown-linux-musl ;;
  linux/aarch64) target=aarch64-unknown-linux-musl ;;
  macos/x86_64) target=x86_64-apple-darwin ;;
  macos/aarch64) target=aarch64-apple-darwin ;;
esac
if [ "$os" = windows ]; then
  echo "cargo-capcheck: Windows is not supported (its process control is Unix-only); run it on a Linux or macOS runner" >&2
  exit 1
fi
bin="$ROOT/bin/cargo-capcheck"

# The version a binary prints (`cargo-capcheck 0.1.0`), empty when it does not run.
version_of() { "$1" --version 2>/dev/null | awk '{print $2}' || true; }

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  else
    shasum -a 256 "$1" | awk '{print $1}'
  fi
}

# Download the release asset into $1; fails (returns 1) when it is not there.
fetch_release() {
  local dir="$1" asset="cargo-capcheck-v$VERSION-$target"
  local url="$RELEASES/v$VERSION/$asset.tar.gz"
  echo "cargo-capcheck: fetching $url"
  curl -fsSL --retry 3 -o "$dir/$asset.tar.gz" "$url" || return 1
  curl -fsSL --retry 3 -o "$dir/$asset.tar.gz.sha256" "$url.sha256" || {
    echo "cargo-capcheck: $asset.tar.gz has no .sha256 beside it; refusing an unchecked binary" >&2
    exit 1
  }
  local want got
  want="$(awk '{print $1; exit}' "$dir/$asset.tar.gz.sha256")"
  got="$(sha256 "$dir/$asset.tar.gz")"
  if [ "$want" != "$got" ]; then
    echo "cargo-capcheck: checksum mismatch for $asset.tar.gz: expected $want, got $got" >&2
    exit 1
  fi
  tar -xzf "$dir/$asset.tar.gz" -C "$dir"
  mkdir -p "$ROOT/bin"
  cp "$dir/$asset/cargo-capcheck" "$bin.tmp"
  chmod +x "$bin.tmp"
  mv "$bin.tmp" "$bin"
}

if [ -x "$bin" ] && [ "$(version_of "$bin")" = "$VERSION" ]; then
  source=cache
  echo "cargo-capcheck: $VERSION from the cache ($bin)"
else
  rm -f "$bin"
  source=""
  if [ -n "$target" ]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf "$tmp"' EXIT
    if fetch_release "$tmp"; then
      source=release
    else
      echo "cargo-capcheck: no release asset for $target in v$VERSION"
    fi
  else
    echo "cargo-capcheck: no release asset for this runner ($os $arch)"
  fi
  if [ -z "$source" ]; then
    echo "cargo-capcheck: building it with cargo install (cached for the next run)"
    cargo install --locked --version "$VERSION" --root "$ROOT" cargo-capcheck
    source=cargo-install
  fi
fi

got="$(version_of "$bin")"
if [ "$got" != "$VERSION" ]; then
  echo "cargo-capcheck: $bin does not run as version $VERSION (it printed '${got}')" >&2
  exit 1
fi
echo "cargo-capcheck: $VERSION installed ($source) at $bin"

if [ -n "${GITHUB_PATH:-}" ]; then echo "$ROOT/bin" >>"$GITHUB_PATH"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "source=$source"
    echo "target=$target"
    echo "bin=$bin"
  } >>"$GITHUB_OUTPUT"
fi

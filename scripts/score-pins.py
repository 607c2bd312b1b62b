#!/usr/bin/env python3
"""Score `pinned-capacity-assertion` against the hand classification in corpus/pins.toml.

Usage: scripts/score-pins.py [CAPCHECK_BIN]   (after scripts/fetch-pins.sh)

Each `[[pin]]` (`workspace`: the Cargo workspace's folder inside the source, when it is not the
root; `file` is relative to the source's root) is a finding classified by reading the test and the code it runs: `true` (raising
the named constant turns that assertion red, because the asserted value comes from it),
`coincidence` or `debatable`. The script runs `check` on every source, matches pin findings by
file and line, and prints per source the findings, how many of them were classified true or
not, and any finding nobody classified yet (to be read before it counts). It then prints the
true-pin rate of the sample (`in_sample`) and of every classified finding. A classified finding
the binary no longer reports is listed as gone."""
import json, os, subprocess, sys, tomllib
from collections import defaultdict

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
root = os.environ.get("PINS_DIR", "/tmp/capcheck-pins")
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "target/release/cargo-capcheck")
labels = tomllib.load(open(os.path.join(here, "corpus/pins.toml"), "rb"))["pin"]


def slug(source):
    kind, a, b = source.split()
    return f"{a}-{b}" if kind == "crates.io" else a.replace("/", "+")


by_source = defaultdict(dict)
workspace = {}
for p in labels:
    by_source[p["source"]][(p["file"], p["line"])] = p
    workspace[p["source"]] = p.get("workspace", "")
env = dict(os.environ, RUSTUP_TOOLCHAIN=os.environ.get("RUSTUP_TOOLCHAIN", "stable"))
reported, fetched = set(), set()
rows, fresh = [], []
for source, known in sorted(by_source.items()):
    sub = workspace[source]
    ws = os.path.join(root, slug(source), sub)
    if not os.path.isdir(ws):
        print(f"{source}: not fetched ({ws}), left out")
        continue
    fetched.add(source)
    out = subprocess.run([binary, "check", "--workspace", "--format", "json",
                          "--manifest-path", os.path.join(ws, "Cargo.toml")],
                         capture_output=True, text=True, env=env)
    if out.returncode not in (0, 1):
        sys.exit(f"{source}: capcheck failed ({out.returncode}): {out.stderr[-2000:]}")
    pins = [f for f in json.loads(out.stdout)["findings"]
            if f["rule"] == "pinned-capacity-assertion"]
    true = other = 0
    for f in pins:
        f["file"] = os.path.join(sub, f["file"]) if sub else f["file"]
        p = known.get((f["file"], f["line"]))
        if p is None:
            fresh.append(f"  unclassified  {source}  {f['file']}:{f['line']}  {f['message']}")
            continue
        reported.add((source, f["file"], f["line"]))
        if p["verdict"] == "true":
            true += 1
        else:
            other += 1
    rows.append((source, len(pins), true, other))

print(f"{'source':58} {'pins':>5} {'true':>5} {'not':>5}")
for source, n, t, o in rows:
    print(f"{source:58} {n:5} {t:5} {o:5}")
labels = [p for p in labels if p["source"] in fetched]
for name, group in [("sample", [p for p in labels if p.get("in_sample")]), ("all", labels)]:
    now = [p for p in group if (p["source"], p["file"], p["line"]) in reported]
    t = sum(p["verdict"] == "true" for p in now)
    pct = f"{100 * t / len(now):.0f}%" if now else "-"
    print(f"{name}: {len(now)} reported of {len(group)} classified, {t} true ({pct})")
gone = [p for p in labels if (p["source"], p["file"], p["line"]) not in reported]
print(f"classified but not reported: {len(gone)} "
      f"({sum(p['verdict'] == 'true' for p in gone)} of them true pins, listed)")
for p in gone:
    if p["verdict"] == "true":
        print(f"  gone  true  {p['source']}  {p['file']}:{p['line']}  {p['item']}")
print("\n".join(fresh))

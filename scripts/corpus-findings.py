#!/usr/bin/env python3
"""Every finding of a build on every corpus workspace, to compare two builds (findings-diff.py).

Usage: scripts/corpus-findings.py BIN OUTDIR [LABELS_DIR CORPUS_DIR]   (after fetch-corpus.sh)

Runs `BIN check --workspace --format json` in each workspace the label files name (defaults:
corpus/labels, /tmp/capcheck-corpus), two at a time, and writes OUTDIR/<workspace, `/` as
`__`>.json: each finding's file, line, rule and message, sorted. A change's effect on the
findings outside the labels is `scripts/findings-diff.py OLD_OUTDIR NEW_OUTDIR`."""
import json, os, subprocess, sys, tomllib
from concurrent.futures import ThreadPoolExecutor
if len(sys.argv) < 3:
    sys.exit(__doc__)
binary, out = sys.argv[1], sys.argv[2]
labels_dir = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus/labels")
corpus = sys.argv[4] if len(sys.argv) > 4 else "/tmp/capcheck-corpus"
os.makedirs(out, exist_ok=True)
wss = set()
for name in sorted(os.listdir(labels_dir)):
    l = tomllib.load(open(os.path.join(labels_dir, name), "rb"))
    if l.get("source", "crates.io").startswith("github"):
        wss.add(os.path.normpath(f"repos/{l['crate']}/" + l.get("workspace", "")))
    else:
        wss.add("ws")
def run(ws):
    r = subprocess.run([binary, "check", "--workspace", "--format", "json", "--manifest-path",
                        os.path.join(corpus, ws, "Cargo.toml")], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return f"{ws}: rc {r.returncode} {r.stderr[:300]}"
    fs = json.loads(r.stdout)["findings"]
    slim = sorted((f["file"], f["line"], f["rule"], f["message"]) for f in fs)
    json.dump(slim, open(os.path.join(out, ws.replace("/", "__") + ".json"), "w"), indent=0)
    return None
with ThreadPoolExecutor(2) as ex:
    for err in ex.map(run, sorted(wss)):
        if err: print(err)
print(len(wss), "workspaces")

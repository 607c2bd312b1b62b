#!/usr/bin/env python3
"""Score `cargo capcheck check` against the hand labels in corpus/labels/*.toml.

Usage: scripts/score-corpus.py [CAPCHECK_BIN] [--sealed DATE]   (after scripts/fetch-corpus.sh)

Published crates (corpus/crates.tsv) are checked together, as one workspace; each GitHub tree
(corpus/repos.tsv, a label file with `source = "github .."`) as its own workspace. A label file
with `sealed = "DATE"` belongs to the sealed split of that date: `--sealed DATE` scores only those
(the score recorded once, before any tuning on them, is in docs/benchmarks.md).

Each label file names the files it labels exhaustively: every capacity literal in them is a
`[[capacity]]` label, and `[[not_capacity]]` labels are literals a reader could mistake for one.
A capacity is found when an `unmeasured-capacity` or `per-unit-cap` finding sits on its file and
line. A finding of those rules on any other line of a labelled file is a false alarm (the files
are labelled exhaustively), and is listed. Pin findings (`pinned-capacity-assertion`) are counted
per crate, for classification by hand. Prints one row per crate and the totals.

Bounds of 0 and 1 follow one policy, in the tool and in the labels alike (`explain
unmeasured-capacity`): a 0 is never a capacity ("no limit", "automatic"); a 1 is one where it
sets a named capacity (`workers: 1`, `.max_size(1)`), and not where it is a lock, a hand-off or
a floor (`Semaphore::new(1)`, `channel(1)`, `n.max(1)`, the CPU count's `unwrap_or(1)`). Labels
changed to follow it say so in a comment. Recall is also given over the labels whose line holds
an integer literal of 2 or more (`recall>=2`)."""
import json, os, re, subprocess, sys, tomllib
from collections import defaultdict

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.environ.get("CORPUS_DIR", "/tmp/capcheck-corpus")
# LABELS_DIR: score label files kept elsewhere (a sealed split before it joins corpus/labels).
labels_dir = os.environ.get("LABELS_DIR", os.path.join(here, "corpus/labels"))
FOUND_BY = {"unmeasured-capacity", "per-unit-cap"}

extra = os.environ.get("CAPCHECK_ARGS", "").split()  # e.g. CAPCHECK_ARGS=--full-parse
args = sys.argv[1:]
sealed = None
if "--sealed" in args:
    at = args.index("--sealed")
    sealed = args[at + 1]
    del args[at:at + 2]
binary = args[0] if args else os.path.join(here, "target/release/cargo-capcheck")

_runs = {}


def check(ws):
    """The findings of `check --workspace` in the workspace folder `ws` (relative to the corpus
    folder), with file paths relative to the corpus folder."""
    if ws not in _runs:
        out = subprocess.run(
            [binary, "check", "--workspace", "--format", "json",
             "--manifest-path", os.path.join(corpus, ws, "Cargo.toml")] + extra,
            capture_output=True, text=True)
        if out.returncode not in (0, 1):
            sys.exit(f"capcheck failed in {ws} ({out.returncode}): {out.stderr}")
        found = json.loads(out.stdout)["findings"]
        for f in found:
            f["file"] = os.path.normpath(os.path.join(ws, f["file"]))
        _runs[ws] = found
    return _runs[ws]

def big(root, c):
    """Whether the labelled line holds an integer literal of 2 or more (comments left out)."""
    path = os.path.join(corpus, root, c["file"])
    line = open(path, encoding="utf-8").read().split("\n")[c["line"] - 1].split("//")[0]
    ints = [int(x.replace("_", "")) for x in re.findall(r"(?<![\w.])\d[\d_]*(?![\w.])", line)]
    return any(i >= 2 for i in ints)


rows, totals = [], defaultdict(int)
alarms = []
for name in sorted(os.listdir(labels_dir)):
    labels = tomllib.load(open(os.path.join(labels_dir, name), "rb"))
    if sealed and labels.get("sealed") != sealed:
        continue
    if labels.get("source", "crates.io").startswith("github"):
        root = f"repos/{labels['crate']}/"
        ws = os.path.normpath(root + labels.get("workspace", ""))
    else:
        root = f"ws/crates/{labels['crate']}-{labels['version']}/"
        ws = "ws"
    findings = check(ws)
    by_place = defaultdict(list)
    for f in findings:
        by_place[(f["file"], f["line"])].append(f)
    caps = labels.get("capacity", [])
    nots = labels.get("not_capacity", [])
    cap_lines = {(os.path.normpath(root + c["file"]), c["line"]) for c in caps}
    not_lines = {(os.path.normpath(root + c["file"]), c["line"]) for c in nots}
    found = [c for c in caps
             if any(f["rule"] in FOUND_BY
                   for f in by_place[(os.path.normpath(root + c["file"]), c["line"])])]
    missed = [c for c in caps if c not in found]
    labelled_files = {os.path.normpath(root + f) for f in labels["files"]}
    fa = [f for f in findings
          if f["rule"] in FOUND_BY and f["file"] in labelled_files
          and (f["file"], f["line"]) not in cap_lines]
    pins = [f for f in findings
            if f["rule"] == "pinned-capacity-assertion" and f["file"].startswith(root)]
    on_decoys = sum(1 for f in fa if (f["file"], f["line"]) in not_lines)
    caps2 = [c for c in caps if big(root, c)]
    found2 = [c for c in found if big(root, c)]
    rows.append((labels["crate"], labels["version"], len(caps), len(found), len(nots),
                 len(fa), on_decoys, len(pins), len(caps2), len(found2)))
    for k, v in zip(["caps", "found", "nots", "fa", "decoys", "pins", "caps2", "found2"],
                    rows[-1][2:]):
        totals[k] += v
    for c in missed:
        alarms.append(f"  missed  {root}{c['file']}:{c['line']}  {c['what']}")
    for f in fa:
        alarms.append(f"  alarm   {f['file']}:{f['line']}  {f['message']}")

pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "-"
print(f"{'crate':28} {'caps':>5} {'found':>6} {'recall':>7} {'caps>=2':>8} {'recall>=2':>9} "
      f"{'non-caps':>8} {'alarms':>7} {'per10':>6} {'pins':>5}")
for c, v, caps, found, nots, fa, dec, pins, caps2, found2 in rows:
    per10 = f"{10 * fa / nots:.1f}" if nots else "-"
    print(f"{c + ' ' + v:28} {caps:5} {found:6} {pct(found, caps):>7} {caps2:8} "
          f"{pct(found2, caps2):>9} {nots:8} {fa:7} {per10:>6} {pins:5}")
t = totals
per10 = f"{10 * t['fa'] / t['nots']:.2f}" if t["nots"] else "-"
print(f"{'TOTAL':28} {t['caps']:5} {t['found']:6} {pct(t['found'], t['caps']):>7} "
      f"{t['caps2']:8} {pct(t['found2'], t['caps2']):>9} {t['nots']:8} {t['fa']:7} {per10:>6} "
      f"{t['pins']:5}")
print("\n".join(alarms))

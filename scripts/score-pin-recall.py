#!/usr/bin/env python3
"""Score the recall of `pinned-capacity-assertion` against the pin-recall corpus (corpus/pin-recall/*.toml).

Usage: scripts/score-pin-recall.py BINARY     (CORPUS_DIR defaults to /tmp/capcheck-corpus; fetch it
                                         first with scripts/fetch-corpus.sh)

Each labelled entry is a test assertion (file, line of its literal) that pins a production
capacity (verdict "pin") or only shares its number (verdict "coincidence"). BINARY runs
`check --workspace --format json` once per code base (CORPUS_DIR/repos/NAME). Reported per code
base and in total: labelled pins found (a pin finding on that line), labelled coincidences
claimed as pins, the labelled pins whose capacity line `check` reports at all (a pin cannot be
found before its capacity is), and every pin finding on the code base (labelled or not). Each
missed pin is listed with its capacity and whether that capacity was found.
"""
import glob, json, os, subprocess, sys, tomllib
from collections import defaultdict

binary = sys.argv[1]
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.environ.get("CORPUS_DIR", "/tmp/capcheck-corpus")
entries = []
for path in sorted(glob.glob(os.path.join(here, "corpus/pin-recall/*.toml"))):
    entries.extend(tomllib.load(open(path, "rb"))["pin"])
findings = {}
for crate in sorted({e["crate"] for e in entries}):
    out = subprocess.run([binary, "check", "--workspace", "--format", "json", "--manifest-path",
                          os.path.join(corpus, "repos", crate, "Cargo.toml")],
                         capture_output=True, text=True)
    findings[crate] = json.loads(out.stdout)["findings"]
rows = defaultdict(lambda: defaultdict(int))
missed = []
for e in entries:
    f = findings[e["crate"]]
    pin = any(x["rule"] == "pinned-capacity-assertion" and x["file"] == e["file"]
              and x["line"] == e["line"] for x in f)
    cap = any(x["rule"] != "pinned-capacity-assertion" and x["file"] == e["capacity_file"]
              and x["line"] == e["capacity_line"] for x in f)
    r = rows[e["crate"]]
    r[e["verdict"]] += 1
    r[e["verdict"] + "_claimed"] += pin
    if e["verdict"] == "pin":
        r["cap_found"] += cap
        if not pin:
            missed.append(f'  missed  {e["crate"]}:{e["file"]}:{e["line"]} ({e["value"]})  '
                          f'capacity {e["capacity_file"]}:{e["capacity_line"]} '
                          f'{"found" if cap else "not found"}')
print(f'{"code base":20} {"pins":>5} {"found":>6} {"cap found":>10} {"coinc":>6} {"claimed":>8} {"all pin findings":>17}')
total = defaultdict(int)
for crate, r in sorted(rows.items()):
    alln = sum(1 for x in findings[crate] if x["rule"] == "pinned-capacity-assertion")
    vals = [r["pin"], r["pin_claimed"], r["cap_found"], r["coincidence"], r["coincidence_claimed"], alln]
    for k, v in zip(["pin", "found", "cap", "co", "cl", "all"], vals):
        total[k] += v
    print(f'{crate:20} {vals[0]:5} {vals[1]:6} {vals[2]:10} {vals[3]:6} {vals[4]:8} {vals[5]:17}')
print(f'{"TOTAL":20} {total["pin"]:5} {total["found"]:6} {total["cap"]:10} {total["co"]:6} {total["cl"]:8} {total["all"]:17}')
print("\n".join(missed))

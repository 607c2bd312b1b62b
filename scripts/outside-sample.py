#!/usr/bin/env python3
"""A random sample of a sealed split's findings outside its labels, for a blind judge.

Usage: scripts/outside-sample.py BIN LABELS_DIR CORPUS_DIR SEED N TITLE [RULES] > sample.md 2> key.txt

Runs BIN on the workspace of each label file in LABELS_DIR (GitHub trees under
CORPUS_DIR/repos/NAME), keeps the findings of RULES (comma-separated; default
unmeasured-capacity,per-unit-cap) on files no label file lists, shuffles them with SEED and
prints N as markdown: each marked line with 6 lines either side and the number it claims, none
of the tool's messages (corpus/notes/outside-labels-*-sample.md). The key (the messages, in the
same order) goes to stderr. With RULES=pinned-capacity-assertion every file counts: a sample of
pins."""
import json, os, random, re, subprocess, sys, tomllib
if len(sys.argv) < 7:
    sys.exit(__doc__)
binary, labels_dir, corpus, seed, n, title = sys.argv[1:7]
rules = set((sys.argv[7] if len(sys.argv) > 7 else "unmeasured-capacity,per-unit-cap").split(","))
pins = "pinned-capacity-assertion" in rules
found = []
for name in sorted(os.listdir(labels_dir)):
    l = tomllib.load(open(os.path.join(labels_dir, name), "rb"))
    root = f"repos/{l['crate']}"
    ws = os.path.normpath(os.path.join(root, l.get("workspace", "")))
    r = subprocess.run([binary, "check", "--workspace", "--format", "json", "--manifest-path",
                        os.path.join(corpus, ws, "Cargo.toml")], capture_output=True, text=True)
    labelled = {os.path.normpath(f) for f in l["files"]}
    for f in json.loads(r.stdout)["findings"]:
        if f["rule"] not in rules:
            continue
        rel = os.path.relpath(os.path.normpath(os.path.join(ws, f["file"])), root)
        if not pins and rel in labelled:
            continue
        found.append((l["crate"], rel, f["line"], f.get("value"), f["message"]))
found.sort()
rng = random.Random(int(seed))
sample = found[:] ; rng.shuffle(sample); sample = sample[:int(n)]
print(f"# {title}\n")
print(f"{len(sample)} of {len(found)} findings of `check` ({os.path.basename(binary)}, rules "
      f"{', '.join(sorted(rules))}) {'' if pins else 'on files no label file lists '}in random order "
      f"(seed {seed}); shown to a blind judge without the tool's messages, with the number each claims.\n")
for i, (crate, rel, line, value, msg) in enumerate(sample, 1):
    src = open(os.path.join(corpus, "repos", crate, rel), encoding="utf-8", errors="replace").read().split("\n")
    lo, hi = max(1, line - 6), min(len(src), line + 6)
    num = value if value is not None else "?"
    print(f"## {i}. {crate}: {rel}:{line} (the number: {num})\n```rust")
    for k in range(lo, hi + 1):
        print(f"{k:5}{'>' if k == line else ' '} {src[k-1]}")
    print("```\n")
sys.stderr.write("\n".join(f"{i}. {c} {r}:{l} {m}" for i, (c, r, l, v, m) in enumerate(sample, 1)) + "\n")

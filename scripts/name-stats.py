#!/usr/bin/env python3
"""How the corpus's labels bear on a name pattern, before it joins a rule's table.

Usage: scripts/name-stats.py SCORE_OUTPUT PATTERN... [-v]

SCORE_OUTPUT is what `scripts/score-corpus.py BIN` printed (its `missed` lines say which labelled
capacities that build misses). Each PATTERN is written as the rule's `names` are, words joined by
`_` (`parallel_size`, `fanout_limit`). For each, counts the labelled capacities (found and missed
by that build) and the labelled decoys whose line holds an identifier with the pattern's words in
a row (`MAX_LOAD_FANOUT_CAPACITY` holds `fanout_capacity`); `-v` lists the lines. A pattern whose
hits are missed capacities in several code bases and few decoys is worth trying; its effect is
then measured with score-corpus.py and on every corpus workspace's findings (docs/benchmarks.md).
"""
import collections, os, re, sys, tomllib

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
corpus = os.environ.get("CORPUS_DIR", "/tmp/capcheck-corpus")
labels = os.environ.get("LABELS_DIR", os.path.join(here, "corpus/labels"))
args = [a for a in sys.argv[1:] if a != "-v"]
verbose = "-v" in sys.argv[1:]
if len(args) < 2:
    sys.exit(__doc__)
score, patterns = args[0], [p.split("_") for p in args[1:]]

missed = set()
for line in open(score, encoding="utf-8"):
    m = re.match(r"\s+missed\s+(\S+):(\d+)", line)
    if m:
        missed.add((os.path.normpath(m.group(1)), int(m.group(2))))


def words(ident):
    ident = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", ident)
    return [w.lower() for w in ident.split("_") if w]


def holds(ids, p):
    return any(any(w[i:i + len(p)] == p for i in range(len(w))) for w in map(words, ids))


counts = collections.defaultdict(collections.Counter)
lines = collections.defaultdict(list)
for name in sorted(os.listdir(labels)):
    label = tomllib.load(open(os.path.join(labels, name), "rb"))
    if label.get("source", "crates.io").startswith("github"):
        base = f"repos/{label['crate']}/"
    else:
        base = f"ws/crates/{label['crate']}-{label.get('version', '')}/"
    for kind in ("capacity", "not_capacity"):
        for e in label.get(kind, []):
            rel = os.path.normpath(base + e["file"])
            try:
                text = open(os.path.join(corpus, rel), encoding="utf-8", errors="replace").read()
                code = text.split("\n")[e["line"] - 1]
            except (OSError, IndexError):
                continue
            ids = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code)
            for p in patterns:
                if not holds(ids, p):
                    continue
                key = "_".join(p)
                what = "decoy" if kind == "not_capacity" else (
                    "missed" if (rel, e["line"]) in missed else "found")
                counts[key][what] += 1
                lines[key].append(f"  {what:6} {label['crate']}:{e['line']}  {code.strip()[:100]}")
for p in args[1:]:
    c = counts[p]
    print(f"{p}: found {c['found']}, missed {c['missed']}, decoys {c['decoy']}")
    if verbose:
        print("\n".join(lines[p]))

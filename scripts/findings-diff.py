#!/usr/bin/env python3
"""The findings one build's corpus-findings.py output has and another's lacks.

Usage: scripts/findings-diff.py OLD_OUTDIR NEW_OUTDIR

Prints `+ workspace file line rule` for each finding only NEW has, `- ...` for each only OLD
has, and the counts."""
import json, os, sys
if len(sys.argv) < 3:
    sys.exit(__doc__)
a, b = sys.argv[1], sys.argv[2]
tot = [0, 0]
for n in sorted(set(os.listdir(a)) | set(os.listdir(b))):
    fa = {tuple(x[:3]) for x in json.load(open(os.path.join(a, n)))} if os.path.exists(os.path.join(a, n)) else set()
    fb = {tuple(x[:3]) for x in json.load(open(os.path.join(b, n)))} if os.path.exists(os.path.join(b, n)) else set()
    for x in sorted(fb - fa): print("+", n[:-5], *x); tot[0] += 1
    for x in sorted(fa - fb): print("-", n[:-5], *x); tot[1] += 1
print(f"+{tot[0]} -{tot[1]}")

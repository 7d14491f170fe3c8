#!/usr/bin/env python3
"""How much of each image's whole-process wall time MEDIAPREP_TRACE=1 accounts for.

Runs `mediaprep prepare FILE --out DIR --json` once per image with the trace on, sums the
unindented trace stages (nested ones are indented and already inside them) and prints them
against the wall time measured around the process, with the largest stages.
usage: trace-coverage.py MEDIAPREP_BINARY CORPUS_OR_FILE...   (exit 1 if any image is under 90 %)"""
import os, re, subprocess, sys, tempfile, time
binary, inputs = sys.argv[1], sys.argv[2:]
files = []
for i in inputs:
    files += sorted(os.path.join(i, f) for f in os.listdir(i)) if os.path.isdir(i) else [i]
line = re.compile(r"^trace (\S.*?)\s+([0-9.]+) ms$")
worst = 100.0
with tempfile.TemporaryDirectory() as out:
    for f in files:
        env = dict(os.environ, MEDIAPREP_TRACE="1")
        t0 = time.perf_counter()
        p = subprocess.run([binary, "prepare", f, "--out", out, "--json"], capture_output=True, text=True, env=env)
        wall = (time.perf_counter() - t0) * 1000
        stages = [(m.group(1), float(m.group(2))) for m in map(line.match, p.stderr.splitlines()) if m]
        traced = sum(ms for _, ms in stages)
        share = 100 * traced / wall
        worst = min(worst, share)
        top = ", ".join(f"{n} {ms:.0f}" for n, ms in sorted(stages, key=lambda s: -s[1])[:4])
        print(f"{os.path.basename(f):32s} wall {wall:7.1f} ms  traced {traced:7.1f} ms  {share:5.1f} %  ({top})")
print(f"lowest coverage: {worst:.1f} %")
sys.exit(0 if worst >= 90 else 1)

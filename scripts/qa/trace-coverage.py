#!/usr/bin/env python3
"""How much of each image's whole-process wall time MEDIAPREP_TRACE=1 accounts for.

Runs `mediaprep prepare FILE --out DIR --json` once per image with the trace on (set to the
spawn time, so startup is timed from it), sums the
unindented trace stages (nested ones are indented and already inside them) and prints them
against the wall time measured around the process, with the largest stages.
usage: trace-coverage.py MEDIAPREP_BINARY CORPUS_OR_FILE...   (exit 1 if any image is under 90 %)"""
import os, re, sys, tempfile, time
binary, inputs = sys.argv[1], sys.argv[2:]
files = []
for i in inputs:
    files += sorted(os.path.join(i, f) for f in os.listdir(i)) if os.path.isdir(i) else [i]
line = re.compile(r"^trace (\S.*?)\s+([0-9.]+) ms$")
worst = 100.0
def run(argv, env):
    """Spawns, waits, returns (wall ms from just before the spawn to the child's exit, stderr text).
    Output goes to files, so nothing is read while the clock runs."""
    with tempfile.TemporaryFile() as o, tempfile.TemporaryFile() as e:
        t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        env = dict(env, MEDIAPREP_TRACE=str(t0))  # the trace times its own startup from here
        pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, o.fileno(), 1),
                                                               (os.POSIX_SPAWN_DUP2, e.fileno(), 2)])
        os.waitpid(pid, 0)
        wall = (time.clock_gettime_ns(time.CLOCK_MONOTONIC) - t0) / 1e6
        e.seek(0)
        return wall, e.read().decode(errors="replace")

with tempfile.TemporaryDirectory() as out:
    for f in files:
        wall, err = run([os.path.abspath(binary), "prepare", f, "--out", out, "--json"], os.environ)
        stages = [(m.group(1), float(m.group(2))) for m in map(line.match, err.splitlines()) if m]
        traced = sum(ms for _, ms in stages)
        share = 100 * traced / wall
        worst = min(worst, share)
        top = ", ".join(f"{n} {ms:.0f}" for n, ms in sorted(stages, key=lambda s: -s[1])[:4])
        print(f"{os.path.basename(f):32s} wall {wall:7.1f} ms  traced {traced:7.1f} ms  {share:5.1f} %  ({top})")
print(f"lowest coverage: {worst:.1f} %")
sys.exit(0 if worst >= 90 else 1)

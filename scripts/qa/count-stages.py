#!/usr/bin/env python3
"""Counts how often each stage of the trunk is entered for one `prepare`, with gdb breakpoints on
the debug build (docs/design.md, "The path of one JPEG").
usage: count-stages.py [BINARY] [INPUT] — defaults: .build/debug/mediaprep testdata/photo.jpg"""
import os, re, subprocess, sys, tempfile

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/mediaprep"
inp = sys.argv[2] if len(sys.argv) > 2 else "testdata/photo.jpg"
stages = ["AttachmentPreparer.execute(", "MediaProbe.source(path:", "FormatSniffer.sniff", "SendPlanner.plan(",
          "PixelBudget.acquire(", "ImagePreparer.prepare(source: __owned MediaPrep.ProbedSource, keep",
          "BudgetSearch.encodeJPEG(handing", "OutputWriter.stage(_:", "AttachmentPreparer.deliver(",
          "TransferPlanner.refusal(", "TransferPlanner.plan(", "Delivery.deliver(", "MessageSequencer.add(", "InputFile.init(",
          "cjpeg_read_header"]  # libjpeg reading the input's header (a kept output's own is read once more)
syms = [l.split()[2] for l in subprocess.run(["nm", binary], capture_output=True, text=True).stdout.splitlines()
        if len(l.split()) == 3 and (l.split()[1] == "T" or l.split()[2] == "cjpeg_read_header")]
names = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(syms), capture_output=True, text=True).stdout.splitlines()
chosen = [(s, d) for s, d in zip(syms, names) if any(w in d for w in stages)
          and not any(x in d for x in ("closure", "thunk", "default argument", "specialized"))]
with tempfile.TemporaryDirectory() as out, tempfile.NamedTemporaryFile("w", suffix=".gdb") as script:
    script.write("set pagination off\nset confirm off\n")
    for s, _ in chosen:
        script.write(f"break {s}\ncommands\nsilent\ncontinue\nend\n")
    script.write(f"run prepare {inp} --out {out}/o\ninfo breakpoints\nquit\n")
    script.flush()
    log = subprocess.run(["gdb", "-q", "-batch", "-x", script.name, "--args", binary], capture_output=True, text=True).stdout
hits, current = {}, None
for line in log.splitlines():
    m = re.match(r"^(\d+)\s+breakpoint", line)
    if m:
        current = int(m.group(1))
    elif current and (m := re.search(r"already hit (\d+) time", line)):
        hits[current] = int(m.group(1))
for i, (_, d) in enumerate(chosen, 1):
    print(f"{hits.get(i, 0):3}  {d.split('(')[0].replace('static ', '')}")

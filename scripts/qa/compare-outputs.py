#!/usr/bin/env python3
"""Prepares every file of the given folders with two builds of mediaprep and compares what each sent,
byte for byte (the output file and its preview; error codes where both failed).
usage: compare-outputs.py BASE_BINARY NEW_BINARY DIR... [-- PREPARE_ARGS...] — exits 1 when any output differs
(PREPARE_ARGS, e.g. `--max-bytes 60000`, go to both builds' `prepare`)."""
import json, os, subprocess, sys, tempfile, filecmp

args = sys.argv[1:]
extra = args[args.index("--") + 1:] if "--" in args else []
args = args[:args.index("--")] if "--" in args else args
base, new, dirs = args[0], args[1], args[2:]
files = sorted(os.path.join(d, f) for d in dirs for f in os.listdir(d) if os.path.isfile(os.path.join(d, f)))
differ = 0
with tempfile.TemporaryDirectory() as tmp:
    for i, f in enumerate(files):
        got = {}
        for name, binary in (("base", base), ("new", new)):
            out = os.path.join(tmp, f"{name}-{i}")
            r = subprocess.run([binary, "prepare", f, "--out", out, "--json", *extra], capture_output=True, text=True)
            try:
                item = json.loads(r.stdout)[0]
            except (ValueError, IndexError):
                item = {"output": None, "error": {"code": "crash", "message": r.stderr[-200:]}}
            got[name] = item
        a, b = got["base"], got["new"]
        same = (a.get("output") is None) == (b.get("output") is None)
        if same and a.get("output"):
            same = filecmp.cmp(a["output"], b["output"], shallow=False) and a.get("preview") == b.get("preview")
        elif same:
            same = (a.get("error") or {}).get("code") == (b.get("error") or {}).get("code")
        desc = lambda x: x.get("output") and f"{x.get('route')} q{x.get('quality')} {x.get('bytes')} B" or (x.get("error") or {}).get("code")
        print(f"{'same  ' if same else 'DIFFERS'} {f}: base {desc(a)} / new {desc(b)}")
        differ += not same
print(f"{len(files) - differ} of {len(files)} outputs identical")
sys.exit(1 if differ else 0)

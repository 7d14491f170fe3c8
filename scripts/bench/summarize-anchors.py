#!/usr/bin/env python3
"""Summarises shared/bench/image_anchors.py output: mean score, worst gap to the best anchor,
total time and time ratios against mediaprep, all from the same run.

usage: summarize-anchors.py OUT_DIR/results.json
"""
import json, sys
from collections import defaultdict

rows = json.load(open(sys.argv[1]))
by_tool = defaultdict(dict)
for r in rows:
    by_tool[r["tool"]][r["image"]] = r
images = sorted({r["image"] for r in rows})
# The criterion compares against ImageMagick jpeg:extent and the SimpleX loop; an output
# over the limit is not an answer, so it never counts as "best".
anchors = [t for t in ("imagemagick", "simplex") if t in by_tool]
limit = 261120
print(f"{'tool':12} {'n':>3} {'mean ssim':>9} {'time s':>8} {'over':>5}   (over: outputs above {limit} bytes)")
for t, res in by_tool.items():
    ok = [r for r in res.values() if "ssim" in r]
    mean = sum(r["ssim"] for r in ok) / max(1, len(ok))
    secs = sum(r["seconds"] for r in res.values())
    over = sum(1 for r in ok if r["bytes"] > limit)
    print(f"{t:12} {len(ok):3} {mean:9.4f} {secs:8.2f} {over:5}")
if "mediaprep" in by_tool:
    mp = by_tool["mediaprep"]
    mp_secs = sum(r["seconds"] for r in mp.values())
    for t in by_tool:
        if t != "mediaprep":
            common = [i for i in images if i in by_tool[t] and i in mp]
            ts = sum(by_tool[t][i]["seconds"] for i in common)
            ms = sum(mp[i]["seconds"] for i in common)
            print(f"time {t} / mediaprep over {len(common)} images: {ts / ms:.2f}x")
    worst = None
    for i in images:
        best = max((by_tool[t][i]["ssim"] for t in anchors
                    if i in by_tool[t] and "ssim" in by_tool[t][i] and by_tool[t][i]["bytes"] <= limit), default=None)
        if best is None or "ssim" not in mp.get(i, {}):
            continue
        gap = mp[i]["ssim"] - best
        if worst is None or gap < worst[0]:
            worst = (gap, i)
        print(f"  {i:22} mediaprep {mp[i]['ssim']:.4f}  best anchor {best:.4f}  gap {gap:+.4f}  {mp[i]['width']}x{mp[i]['height']} {mp[i]['bytes']}")
    if worst:
        print(f"worst gap to the best anchor: {worst[0]:+.4f} ({worst[1]})")

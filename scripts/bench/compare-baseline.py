#!/usr/bin/env python3
"""Compares one image_anchors.py run per corpus against a saved baseline of mediaprep's outputs.

Prints, per corpus: ImageMagick jpeg:extent / mediaprep and vips / mediaprep time ratios (whole
process, one image after another, the same run), mediaprep's mean score against the baseline's,
the worst per-image score change, outputs over the limit, and transparent images that stopped being
PNG. Exit 1 if any image is over the limit, lost its PNG, or fell more than 0.002.

usage: compare-baseline.py BASELINE.json NAME=OUT_DIR [NAME=OUT_DIR ...]
       compare-baseline.py --save BASELINE.json NAME=OUT_DIR ...   (record a new baseline)
"""
import json, os, sys

LIMIT = 261120

def load(out_dir):
    rows = json.load(open(os.path.join(out_dir, "results.json")))
    tools = {}
    for r in rows:
        tools.setdefault(r["tool"], {})[r["image"]] = r
    for name, r in tools.get("mediaprep", {}).items():
        path = os.path.join(out_dir, f"mediaprep--{os.path.splitext(name)[0]}.jpg")
        try:
            with open(path, "rb") as f:
                r["format"] = "png" if f.read(8) == b"\x89PNG\r\n\x1a\n" else "jpeg"
        except OSError:
            r["format"] = None
    return tools

args = sys.argv[1:]
save = args[0] == "--save"
if save:
    args = args[1:]
baseline_path, runs = args[0], [a.split("=", 1) for a in args[1:]]
if save:
    base = {name: {img: {k: r.get(k) for k in ("ssim", "bytes", "width", "height", "format")}
                   for img, r in load(d)["mediaprep"].items()} for name, d in runs}
    json.dump(base, open(baseline_path, "w"), indent=1, sort_keys=True)
    print(f"saved {baseline_path}: " + ", ".join(f"{n} {len(v)} images" for n, v in base.items()))
    sys.exit(0)

base = json.load(open(baseline_path))
failed = False
for name, out_dir in runs:
    tools = load(out_dir)
    mp = tools["mediaprep"]
    secs = {t: sum(r["seconds"] for r in res.values()) for t, res in tools.items()}
    print(f"== {name} ({len(mp)} images)")
    for t in ("imagemagick", "vips"):
        if t in secs:
            print(f"  time {t} / mediaprep: {secs[t]:.2f} / {secs['mediaprep']:.2f} s = {secs[t] / secs['mediaprep']:.2f}x")
    ref = base.get(name, {})
    common = [i for i in mp if i in ref and "ssim" in mp[i] and ref[i].get("ssim") is not None]
    if common:
        now_mean = sum(mp[i]["ssim"] for i in common) / len(common)
        base_mean = sum(ref[i]["ssim"] for i in common) / len(common)
        print(f"  mean score: {now_mean:.4f} now, {base_mean:.4f} baseline ({now_mean - base_mean:+.4f})")
        worst = min(common, key=lambda i: mp[i]["ssim"] - ref[i]["ssim"])
        d = mp[worst]["ssim"] - ref[worst]["ssim"]
        print(f"  worst per-image change: {d:+.4f} ({worst}: {ref[worst]['ssim']:.4f} -> {mp[worst]['ssim']:.4f})")
        changed = [i for i in common if mp[i]["ssim"] != ref[i]["ssim"]]
        print(f"  images whose score changed: {len(changed)}" + (f" ({', '.join(sorted(changed))})" if changed else ""))
        if d < -0.002:
            failed = True
    missing = [i for i in ref if i not in mp or "ssim" not in mp[i]]
    if missing:
        print(f"  FAILED or missing: {', '.join(missing)}")
        failed = True
    over = [i for i, r in mp.items() if r.get("bytes", 0) > LIMIT]
    print(f"  within {LIMIT} bytes: {len(mp) - len(over)}/{len(mp)}" + (f" (over: {', '.join(over)})" if over else ""))
    lost = [i for i in ref if ref[i].get("format") == "png" and mp.get(i, {}).get("format") != "png"]
    kept = sum(1 for i in ref if ref[i].get("format") == "png")
    print(f"  stayed PNG: {kept - len(lost)}/{kept}" + (f" (now JPEG: {', '.join(lost)})" if lost else ""))
    failed = failed or bool(over) or bool(lost)
sys.exit(1 if failed else 0)

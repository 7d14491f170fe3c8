#!/usr/bin/env python3
"""Explores the (long side, JPEG quality) trade-off under a byte budget, scored as SPEC §6 does.

usage: budget-grid.py CORPUS_DIR [limit=261120]
For each image and each candidate long side, finds the highest quality (progressive, 4:2:0) that fits
the limit and scores it with the same SSIM as shared/bench/quality.py. Prints one line per image with
the best side and the quality reached at each side; this is how mediaprep's size rule was chosen.
"""
import io, os, sys
import numpy as np
from PIL import Image, ImageOps
from skimage.metrics import structural_similarity

LIMIT = int(sys.argv[2]) if len(sys.argv) > 2 else 261120
SIDES = [2048, 1600, 1440, 1280, 1152, 1024, 896, 768, 640]

def luma_at(im, size):
    return np.asarray(im.resize(size, Image.LANCZOS).convert("L"), dtype=np.float64)

def fit_quality(im):
    lo, hi, best = 1, 100, None
    while lo <= hi:
        q = (lo + hi) // 2
        b = io.BytesIO(); im.save(b, "JPEG", quality=q, progressive=True, subsampling=2)
        if b.tell() <= LIMIT: best, lo = (q, b.getvalue()), q + 1
        else: hi = q - 1
    return best

for name in sorted(os.listdir(sys.argv[1])):
    src = ImageOps.exif_transpose(Image.open(os.path.join(sys.argv[1], name)))
    if src.mode in ("RGBA", "LA", "P"):
        src = src.convert("RGBA"); bg = Image.new("RGBA", src.size, "white"); src = Image.alpha_composite(bg, src)
    src = src.convert("RGB")
    long0 = max(src.size); disp = min(1600, long0); s = disp / long0
    dsize = (max(1, round(src.size[0] * s)), max(1, round(src.size[1] * s)))
    ref = luma_at(src, dsize)
    row = []
    for side in SIDES:
        if side > long0: continue
        k = side / long0
        im = src.resize((max(1, round(src.size[0] * k)), max(1, round(src.size[1] * k))), Image.LANCZOS)
        r = fit_quality(im)
        if r is None: continue
        q, data = r
        out = Image.open(io.BytesIO(data))
        ssim = structural_similarity(ref, luma_at(out, dsize), data_range=255)
        row.append((side, q, round(ssim, 4)))
    best = max(row, key=lambda t: t[2])
    print(name, src.size, "best", best, " ".join(f"{s}:q{q}={v}" for s, q, v in row), flush=True)

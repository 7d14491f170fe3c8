#!/usr/bin/env bash
# Whole-process `mediaprep thumbnail` against `ffmpeg -ss 0 -i X -frames:v 1 -vf scale=…`, same
# files, run in pairs: each run of one is followed by a run of the other (which goes first
# alternating), so both share whatever load the host has at that moment. hyperfine's blocks of 20
# runs of one, then 20 of the other, read the black-opening clip at 1.33–1.93× over four runs.
# Prints the medians and the median of the pairs' ratios. Needs python3 and ffmpeg.
# usage: scripts/bench/bench-thumbnails.sh [MEDIAPREP_BINARY] [FILE...]   (default: the video fixtures)
#        RUNS=N (default 20 pairs, after 3 warm-up pairs)
set -euo pipefail
cd "$(dirname "$0")/../.."
mp=${1:-.build/release/mediaprep}; shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(testdata/h264.mp4 testdata/hevc.mp4 testdata/vp9.webm testdata/rotated.mov testdata/black-start.mp4)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$mp" "$tmp" "${RUNS:-20}" "${files[@]}" <<'EOF'
import statistics, subprocess, sys, time
mp, tmp, runs, files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t
total_mp = total_ff = 0.0
for f in files:
    ours = [mp, "thumbnail", f, "-o", f"{tmp}/mp.jpg", "--max-side", "640"]
    theirs = ["ffmpeg", "-v", "error", "-y", "-ss", "0", "-i", f, "-frames:v", "1", "-vf", "scale=640:-2", f"{tmp}/ff.jpg"]
    a, b = [], []
    for i in range(3 + runs):
        if i % 2: x, y = timed(ours), timed(theirs)
        else: y, x = timed(theirs), timed(ours)
        if i >= 3: a.append(x); b.append(y)
    ma, mb = statistics.median(a), statistics.median(b)
    pairs = sorted(q / p for p, q in zip(a, b))
    total_mp += ma; total_ff += mb
    print(f"{f:32} mediaprep {ma*1000:6.1f} ms   ffmpeg {mb*1000:6.1f} ms   ratio {mb/ma:.2f}x   pairs {pairs[0]:.2f}-{pairs[-1]:.2f}x, median {statistics.median(pairs):.2f}x")
print(f"total: mediaprep {total_mp*1000:.1f} ms, ffmpeg {total_ff*1000:.1f} ms, ffmpeg/mediaprep {total_ff/total_mp:.2f}x")
EOF

#!/usr/bin/env bash
# Whole-process `mediaprep thumbnail` against `ffmpeg -ss 0 -i X -frames:v 1 -vf scale=…`, same
# files, one hyperfine run each, interleaved. Needs hyperfine and ffmpeg.
# usage: scripts/bench/bench-thumbnails.sh [MEDIAPREP_BINARY] [FILE...]   (default: the video fixtures)
set -euo pipefail
cd "$(dirname "$0")/../.."
mp=${1:-.build/release/mediaprep}; shift || true
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(testdata/h264.mp4 testdata/hevc.mp4 testdata/vp9.webm testdata/rotated.mov testdata/black-start.mp4)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
total_mp=0; total_ff=0
for f in "${files[@]}"; do
  hyperfine -N -w 3 -r 20 --export-json "$tmp/r.json" \
    "$mp thumbnail $f -o $tmp/mp.jpg --max-side 640" \
    "ffmpeg -v error -y -ss 0 -i $f -frames:v 1 -vf scale=640:-2 $tmp/ff.jpg" >/dev/null
  read -r a b < <(python3 -c "import json;r=json.load(open('$tmp/r.json'))['results'];print(r[0]['mean'],r[1]['mean'])")
  total_mp=$(python3 -c "print($total_mp+$a)"); total_ff=$(python3 -c "print($total_ff+$b)")
  python3 -c "print(f'{\"$f\":32} mediaprep {$a*1000:6.1f} ms   ffmpeg {$b*1000:6.1f} ms   ratio {$b/$a:.2f}x')"
done
python3 -c "print(f'total: mediaprep {$total_mp*1000:.1f} ms, ffmpeg {$total_ff*1000:.1f} ms, ffmpeg/mediaprep {$total_ff/$total_mp:.2f}x')"

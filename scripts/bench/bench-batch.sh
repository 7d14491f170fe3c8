#!/usr/bin/env bash
# The batch engine's figures, each measured side by side in one run (the machine is shared and
# noisy: ratios, not absolute times). Needs hyperfine, ffmpeg and /usr/bin/time.
# usage: scripts/bench/bench-batch.sh CORPUS CLIPS [MEDIAPREP_BINARY]
#   CORPUS: the benchmark tools' make-corpus.sh photos; CLIPS: scripts/bench/make-clips.sh's 20 clips
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=$1 clips=$2 mp=${3:-.build/release/mediaprep}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mean() { python3 -c "import json,sys;r=json.load(open('$1'))['results'];print(' '.join(str(x['mean']) for x in r))"; }

echo "== prepare $corpus: --jobs 1 against --jobs 2 (hyperfine, 3 runs each, interleaved by hyperfine's order)"
hyperfine -N -w 1 -r 3 --export-json "$tmp/p.json" \
  --prepare "rm -rf $tmp/o1 $tmp/o2" \
  "$mp prepare $corpus --out $tmp/o1 --jobs 1 -q" \
  "$mp prepare $corpus --out $tmp/o2 --jobs 2 -q" >/dev/null
read -r p1 p2 < <(mean "$tmp/p.json")
python3 -c "print(f'jobs 1: {$p1:.2f} s, jobs 2: {$p2:.2f} s, speed-up {$p1/$p2:.2f}x')"

echo "== check against prepare over $corpus (both --jobs 2)"
hyperfine -N -w 1 -r 5 --export-json "$tmp/c.json" \
  --prepare "rm -rf $tmp/o3" \
  "$mp check $corpus -q" \
  "$mp prepare $corpus --out $tmp/o3 --jobs 2 -q" >/dev/null || true
read -r c p < <(mean "$tmp/c.json")
python3 -c "print(f'check: {$c*1000:.0f} ms, prepare: {$p*1000:.0f} ms, check is {$p/$c:.0f}x faster')"

echo "== peak memory of prepare --jobs 2 over $corpus"
rm -rf "$tmp/o4"
/usr/bin/time -f "%M KiB peak resident, %e s" "$mp" prepare "$corpus" --out "$tmp/o4" --jobs 2 -q 2>&1 | tail -1

echo "== thumbnail: one call over $(ls "$clips" | wc -l) clips against one ffmpeg call per clip"
files=$(ls "$clips"/* | tr '\n' ' ')
ff="for f in $files; do ffmpeg -v error -y -ss 0 -i \$f -frames:v 1 -vf scale=640:-2 $tmp/ff.jpg; done"
hyperfine -w 1 -r 5 --export-json "$tmp/t.json" -S bash \
  --prepare "rm -rf $tmp/t1 $tmp/t2" \
  "$mp thumbnail $files --out $tmp/t1 --max-side 640 -q" \
  "$mp thumbnail $files --out $tmp/t2 --max-side 640 --jobs 1 -q" \
  "$ff" >/dev/null
read -r t2 t1 f < <(mean "$tmp/t.json")
n=$(ls "$clips" | wc -l)
python3 -c "print(f'mediaprep (2 jobs) {$t2/$n*1000:.1f} ms/clip, mediaprep (1 job) {$t1/$n*1000:.1f} ms/clip, ffmpeg {$f/$n*1000:.1f} ms/clip: {$f/$t2:.2f}x and {$f/$t1:.2f}x faster per clip')"

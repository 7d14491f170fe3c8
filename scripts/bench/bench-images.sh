#!/usr/bin/env bash
# Runs the benchmark tools' image_anchors.py ($MEDIAPREP_BENCH) (ImageMagick jpeg:extent, jpegoptim --size, SimpleX's
# loop, vips thumbnail, mediaprep) over a corpus in one run and summarises score and time ratios.
# Needs: imagemagick jpegoptim libvips-tools, and a Python with the benchmark tools' requirements.txt.
# usage: scripts/bench/bench-images.sh CORPUS_DIR OUT_DIR [PYTHON]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
corpus=$(realpath "$1"); out=$(realpath -m "$2"); py=${3:-python3}
bench=${MEDIAPREP_BENCH:?set MEDIAPREP_BENCH to the benchmark tools folder (quality.py, image_anchors.py, make-corpus.sh)}
(cd "$here" && swift build -c release --static-swift-stdlib --disable-local-rpath >/dev/null)
rm -rf "$out"
# /usr/bin first: the real ImageMagick, not a stand-in `convert` earlier on PATH.
PATH=/usr/bin:$PATH MEDIAPREP="$here/.build/release/mediaprep" \
  "$py" "$bench/image_anchors.py" "$corpus" "$out" imagemagick jpegoptim simplex vips mediaprep > "$out.log"
"$py" "$here/scripts/bench/summarize-anchors.py" "$out/results.json"

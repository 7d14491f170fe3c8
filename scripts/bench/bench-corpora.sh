#!/usr/bin/env bash
# Both corpora of the benchmark tools in one run each (whole process, one image after another, as
# image_anchors.py times them): ImageMagick jpeg:extent, vips thumbnail and mediaprep, then both
# time ratios, both mean scores and the worst per-image change against the saved baseline
# (scripts/bench/baselines/images.json: the outputs before the hard-images work, commit 382f049).
# Needs: imagemagick libvips-tools, a Python with the benchmark tools' requirements.txt, and the corpora
# made by the benchmark tools' make-corpus.sh and make-hard-corpus.sh.
# usage: scripts/bench/bench-corpora.sh EASY_DIR HARD_DIR [PYTHON]   (SAVE=1 records a new baseline)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
easy=$(realpath "$1"); hard=$(realpath "$2"); py=${3:-python3}
bench=${MEDIAPREP_BENCH:?set MEDIAPREP_BENCH to the benchmark tools folder (quality.py, image_anchors.py, make-corpus.sh)}
(cd "$here" && swift build -c release --static-swift-stdlib --disable-local-rpath >/dev/null)
out=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$out"' EXIT
[ -z "${KEEP:-}" ] || echo "outputs and results.json kept in $out"
for pair in "easy=$easy" "hard=$hard"; do
  name=${pair%%=*}; dir=${pair#*=}
  # /usr/bin first: the real ImageMagick, not a stand-in `convert` earlier on PATH.
  PATH=/usr/bin:$PATH MEDIAPREP="$here/.build/release/mediaprep" \
    "$py" "$bench/image_anchors.py" "$dir" "$out/$name" imagemagick vips mediaprep > "$out/$name.log"
done
if [ "${SAVE:-}" = 1 ]; then
  "$py" "$here/scripts/bench/compare-baseline.py" --save "$here/scripts/bench/baselines/images.json" "easy=$out/easy" "hard=$out/hard"
else
  "$py" "$here/scripts/bench/compare-baseline.py" "$here/scripts/bench/baselines/images.json" "easy=$out/easy" "hard=$out/hard"
fi

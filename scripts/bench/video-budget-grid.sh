#!/usr/bin/env bash
# Which picture size scores best at a fixed byte budget: the same clip, the same total rate,
# two-pass x264 (medium) at several sizes, each scored as a phone shows it: output and source both
# scaled to 1280x720 (bicubic), ffmpeg's ssim filter. Also the naive one-pass command from the video-budget work.
# usage: scripts/bench/video-budget-grid.sh CLIP [VIDEO_KBPS] [AUDIO_KBPS]   (needs ffmpeg)
set -euo pipefail
clip=$1; v=${2:-98}; a=${3:-32}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
score() {  # file -> "All" SSIM at 1280x720
  ffmpeg -v info -i "$1" -i "$clip" -lavfi "[0]scale=1280:720:flags=bicubic,setsar=1[a];[1]scale=1280:720:flags=bicubic,setsar=1[b];[a][b]ssim" \
    -f null - 2>&1 | sed -n 's/.*All:\([0-9.]*\).*/\1/p' | tail -1
}
for size in 426:240 640:360 854:480 1280:720; do
  (cd "$tmp" && ffmpeg -v error -y -i "$clip" -vf "scale=$size" -c:v libx264 -preset medium -b:v ${v}k -pass 1 -an -f null /dev/null &&
   ffmpeg -v error -y -i "$clip" -vf "scale=$size" -c:v libx264 -preset medium -b:v ${v}k -pass 2 -c:a aac -b:a ${a}k -ac 1 "$tmp/o.mp4")
  echo "two-pass $size: $(stat -c %s "$tmp/o.mp4") bytes, ssim $(score "$tmp/o.mp4")"
done
ffmpeg -v error -y -i "$clip" -vf scale=-2:720 -c:v libx264 -b:v 100k -maxrate 120k -bufsize 240k -c:a aac -b:a 32k "$tmp/n.mp4"
echo "naive one-pass 720p: $(stat -c %s "$tmp/n.mp4") bytes, ssim $(score "$tmp/n.mp4")"

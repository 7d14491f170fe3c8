#!/usr/bin/env bash
# The video budget figures in one run: a clip fitted to a byte budget by `mediaprep prepare`, the same
# settings through the ffmpeg CLI (two passes, same size, rates, preset), and the naive one-pass
# command; sizes, wall times (hyperfine, interleaved) and SSIM at 1280x720 as a phone shows it.
# usage: scripts/bench/bench-video.sh CLIP [BUDGET] [MEDIAPREP_BINARY]   (needs ffmpeg, hyperfine)
set -euo pipefail
clip=$(realpath "$1"); budget=${2:-1047552}; mp=$(realpath "${3:-.build/release/mediaprep}")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
score() {
  ffmpeg -v info -i "$1" -i "$clip" -lavfi "[0]scale=1280:720:flags=bicubic,setsar=1[a];[1]scale=1280:720:flags=bicubic,setsar=1[b];[a][b]ssim" \
    -f null - 2>&1 | sed -n 's/.*All:\([0-9.]*\).*/\1/p' | tail -1
}
# The plan mediaprep chooses (its trace), so ffmpeg gets exactly the same settings.
MEDIAPREP_TRACE=1 "$mp" prepare "$clip" --video-max-bytes "$budget" -o "$tmp/mp" --quiet 2> "$tmp/trace" >/dev/null
plan=$(grep "video plan .* pass 2" "$tmp/trace" | tail -1)
read -r size rate preset abr ach arate < <(echo "$plan" | sed -E 's/.*plan ([0-9x]+) pass 2 rate ([0-9]+) .* preset ([a-z]+) audio ([0-9]+) ([0-9]+)ch ([0-9]+) Hz.*/\1 \2 \3 \4 \5 \6/')
w=${size%x*}; h=${size#*x}
echo "plan: ${w}x${h}, video ${rate} bit/s two-pass, preset $preset, AAC ${abr} bit/s ${ach} ch ${arate} Hz"
ff2="cd $tmp && ffmpeg -v error -y -i $clip -vf scale=$w:$h -c:v libx264 -preset $preset -b:v $rate -pass 1 -an -f null /dev/null && ffmpeg -v error -y -i $clip -vf scale=$w:$h -c:v libx264 -preset $preset -b:v $rate -pass 2 -c:a aac -b:a $abr -ac $ach -ar $arate -movflags +faststart $tmp/ff.mp4"
hyperfine -r "${RUNS:-2}" --export-json "$tmp/h.json" \
  "rm -rf $tmp/mp && $mp prepare $clip --video-max-bytes $budget -o $tmp/mp --quiet" "$ff2" >/dev/null
read -r tmp_mp tmp_ff < <(python3 -c "import json;r=json.load(open('$tmp/h.json'))['results'];print(r[0]['mean'],r[1]['mean'])")
ffmpeg -v error -y -i "$clip" -vf scale=-2:720 -c:v libx264 -b:v 100k -maxrate 120k -bufsize 240k -c:a aac -b:a 32k "$tmp/naive.mp4"
out=$(ls "$tmp"/mp/*.mp4)
printf "mediaprep:        %8d bytes (budget %d)  ssim %s  %.1f s\n" "$(stat -c %s "$out")" "$budget" "$(score "$out")" "$tmp_mp"
printf "ffmpeg same plan: %8d bytes                  ssim %s  %.1f s\n" "$(stat -c %s "$tmp/ff.mp4")" "$(score "$tmp/ff.mp4")" "$tmp_ff"
printf "naive one-pass:   %8d bytes                  ssim %s\n" "$(stat -c %s "$tmp/naive.mp4")" "$(score "$tmp/naive.mp4")"
python3 -c "print(f'time mediaprep / ffmpeg CLI: {$tmp_mp/$tmp_ff:.2f}')"
# The same plan should give the same encode: compare the video packets' checksums.
vhash() { ffmpeg -v error -i "$1" -map 0:v -c copy -f framemd5 - | grep -v '^#' | cut -d, -f6; }
if [ "$(vhash "$out")" = "$(vhash "$tmp/ff.mp4")" ]; then echo "video packets: the same as ffmpeg's"; else echo "video packets: differ from ffmpeg's"; fi

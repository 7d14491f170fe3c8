#!/usr/bin/env bash
# Makes 20 short video clips for the batch thumbnail benchmark (ffmpeg from Debian 12): H.264,
# HEVC and VP9 at 480p–1080p, some opening on black, some rotated. Not committed: ~15 MB.
# usage: scripts/make-clips.sh [OUT_DIR]   (default: ./clips)
set -euo pipefail
out=${1:-clips}
mkdir -p "$out"
i=0
mk() {  # name, size, seconds, codec args, extra filter/args
  local name=$1 size=$2 secs=$3 vcodec=$4 ext=$5 pre=${6:-}
  i=$((i + 1))
  local f="$out/$(printf %02d $i)-$name.$ext"
  [ -s "$f" ] && return
  if [ -n "$pre" ]; then
    ffmpeg -v error -y -f lavfi -i "color=black:s=$size:d=$pre:r=25" -f lavfi -i "testsrc2=s=$size:d=$secs:r=25" \
      -filter_complex "[0][1]concat=n=2:v=1[v]" -map "[v]" $vcodec "$f"
  else
    ffmpeg -v error -y -f lavfi -i "testsrc2=s=$size:d=$secs:r=25" -f lavfi -i "sine=d=$secs" -shortest $vcodec "$f"
  fi
}
for n in 1 2 3 4; do mk h264-720p 1280x720 4 "-c:v libx264 -preset veryfast -c:a aac" mp4; done
for n in 1 2 3; do mk h264-1080p 1920x1080 3 "-c:v libx264 -preset veryfast -c:a aac" mp4; done
for n in 1 2 3; do mk h264-480p 854x480 6 "-c:v libx264 -preset veryfast -c:a aac" mp4; done
for n in 1 2 3; do mk hevc-720p 1280x720 3 "-c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1 -c:a aac" mp4; done
for n in 1 2 3; do mk vp9-480p 854x480 3 "-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -c:a libopus" webm; done
for n in 1 2; do mk black-open-720p 1280x720 2 "-c:v libx264 -preset veryfast -g 1000" mp4 3; done
for n in 1 2; do mk rotated-720p 1280x720 3 "-c:v libx264 -preset veryfast -c:a aac -metadata:s:v rotate=90" mov; done
ls "$out" | wc -l

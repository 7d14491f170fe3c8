#!/usr/bin/env bash
# Makes 20 short video clips for the batch thumbnail benchmark (ffmpeg from Debian 12): H.264,
# HEVC and VP9 at 480p–1080p, some opening on black, some rotated. Not committed: ~15 MB.
# usage: [PHOTO=big.jpg] scripts/bench/make-clips.sh [OUT_DIR]   (default: ./clips; PHOTO adds the 60 s budget clip)
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
# For the video byte-budget figure: 60 s of 1080p H.264 + AAC, a slow zoom over a photo with
# grain and a moving caption, so that motion, texture and flat areas all compete for the bits.
photo=${PHOTO:-}
if [ -n "$photo" ] && [ ! -s "$out/budget-1080p-60s.mp4" ]; then
  ffmpeg -v error -y -loop 1 -i "$photo" -f lavfi -i "sine=f=220:d=60" -f lavfi -i "anoisesrc=d=60:a=0.02" \
    -filter_complex "[0]scale=2880:-2,zoompan=z='1+0.0004*on':d=1500:x='iw/2-(iw/zoom/2)+on/4':y='ih/2-(ih/zoom/2)':s=1920x1080:fps=25,noise=alls=5:allf=t,drawtext=text='%{pts\\:hms}':x=40+mod(t*90\\,1600):y=900:fontsize=64:fontcolor=white:box=1:boxcolor=black@0.4[v];[1][2]amix=inputs=2[a]" \
    -map "[v]" -map "[a]" -t 60 -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -c:a aac -b:a 128k -ac 2 "$out/budget-1080p-60s.mp4"
fi
# A 4K HEVC phone clip (thumbnails) and VP9 + Opus WebM (transcoding), 10 s each.
[ -s "$out/hevc-4k.mp4" ] || ffmpeg -v error -y -f lavfi -i testsrc2=s=3840x2160:r=30:d=3 -f lavfi -i sine=d=3 -shortest \
  -c:v libx265 -preset ultrafast -x265-params log-level=error -tag:v hvc1 -c:a aac "$out/hevc-4k.mp4"
[ -s "$out/vp9-720p-10s.webm" ] || ffmpeg -v error -y -f lavfi -i testsrc2=s=1280x720:r=30:d=10 -f lavfi -i sine=d=10 -shortest \
  -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 1M -c:a libopus "$out/vp9-720p-10s.webm"
ls "$out" | wc -l
# For a generous budget's cap (docs/media.md, CapWatch): 6 s of 1080p with temporal noise that x264's
# constant quality spends ~24 Mbit/s (noise 19) and ~90 Mbit/s (noise 40, with a tone) on; 180 and 320 MB.
[ -s "$out/noise19-1080p-6s.mp4" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=6,noise=alls=19:allf=t+u" \
  -c:v libx264 -preset ultrafast -crf 14 -pix_fmt yuv420p "$out/noise19-1080p-6s.mp4"
[ -s "$out/noise40-1080p-6s.mp4" ] || ffmpeg -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=30:d=6,noise=alls=40:allf=t" \
  -f lavfi -i "sine=f=440:d=6" -c:v libx264 -preset ultrafast -crf 12 -pix_fmt yuv420p -c:a aac -shortest "$out/noise40-1080p-6s.mp4"

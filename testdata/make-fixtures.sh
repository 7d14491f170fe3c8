#!/usr/bin/env bash
# Regenerates every fixture in testdata/. Needs: imagemagick ffmpeg libimage-exiftool-perl webp colord-data libgs-common libjpeg-turbo-progs
# libheif-examples libavif-bin libjxl-tools.
# The committed outputs are what the tests read; the tests never run these tools.
set -euo pipefail
cd "$(dirname "$0")"
IM=/usr/bin/convert   # the real ImageMagick, not any stand-in earlier on PATH
EXIF="exiftool -q -q -overwrite_original"

# A 64x48 "quadrants" image: red top-left, lime top-right, blue bottom-left, white bottom-right.
$IM -size 32x24 xc:'#ff0000' -size 32x24 xc:'#00ff00' +append \
    \( -size 32x24 xc:'#0000ff' -size 32x24 xc:'#ffffff' +append \) -append quadrants.png

# A photo-like, detailed picture (seeded fractal noise), with camera metadata and GPS to strip.
$IM -seed 7 -size 1440x1080 plasma:fractal -blur 0x0.6 -quality 92 photo.jpg
$EXIF -Make=TestCam -Model=Fixture -GPSLatitude=48.8584 -GPSLatitudeRef=N \
      -GPSLongitude=2.2945 -GPSLongitudeRef=E -Orientation#=1 -Comment='secret comment' photo.jpg

# A small JPEG that already fits every budget and carries no metadata (pass-through case).
$IM -seed 3 -size 640x480 plasma:fractal -strip -quality 80 small.jpg

# Progressive, CMYK and grayscale JPEGs.
$IM -seed 11 -size 400x300 plasma:fractal -interlace JPEG -quality 85 progressive.jpg
$IM quadrants.png -colorspace CMYK -quality 95 cmyk.jpg
$IM -size 64x48 gradient:black-white -colorspace Gray -quality 95 gray.jpg

# The 8 EXIF orientations: pixels stored so that applying tag N shows the upright quadrants.
inverse=( "" "" "-flop" "-rotate 180" "-flip" "-transpose" "-rotate 270" "-transverse" "-rotate 90" )
for n in 1 2 3 4 5 6 7 8; do
  $IM quadrants.png ${inverse[$n]} -quality 95 orient-$n.jpg
  $EXIF -Orientation#=$n orient-$n.jpg
done

# PNGs of every common kind.
$IM quadrants.png -strip PNG24:rgb.png
$IM quadrants.png -alpha set -channel A -fx 'i<32?1:0.25' +channel -strip PNG32:rgba.png
$IM quadrants.png -alpha set -channel A -evaluate set 100% +channel -strip PNG32:rgba-opaque.png
$IM quadrants.png -strip PNG8:palette.png
$IM quadrants.png -strip -depth 16 PNG48:rgb16.png
$IM quadrants.png -strip -interlace PNG PNG24:interlaced.png
$IM quadrants.png -strip -colorspace Gray -depth 8 -define png:color-type=0 gray.png
# A large transparent sticker-like PNG (alpha-vs-budget decisions).
$IM -seed 5 -size 520x520 plasma:fractal \( -size 520x520 xc:none -fill white -draw "circle 260,260 260,12" \) \
    -compose CopyOpacity -composite -strip PNG32:sticker.png

# GIFs: an animated one (3 frames) and a still one; WebP, BMP and TIFF stills.
$IM -delay 20 -size 64x48 xc:red xc:lime xc:blue -loop 0 anim.gif
$IM quadrants.png still.gif
$IM quadrants.png -quality 90 image.webp
cwebp -lossless -quiet quadrants.png -o lossless.webp   # VP8L: captured without loss, may go lossless
$IM quadrants.png BMP3:image.bmp
$IM quadrants.png -compress none image.tiff


# ---- Audio and video (video, voice and GIF through FFmpeg) ----
FF="ffmpeg -hide_banner -loglevel error -y"
# H.264 + AAC in MP4, 3 s, with a moving test pattern.
$FF -f lavfi -i testsrc2=s=320x240:r=25:d=3 -f lavfi -i sine=f=440:d=3 -c:v libx264 -crf 32 -pix_fmt yuv420p \
    -c:a aac -b:a 32k -shortest h264.mp4
# HEVC in MP4 (hvc1 tag, as phones write it), 2 s.
$FF -f lavfi -i testsrc2=s=320x240:r=25:d=2 -c:v libx265 -crf 34 -tag:v hvc1 -pix_fmt yuv420p \
    -x265-params log-level=none hevc.mp4
# VP9 + Opus in WebM, 2 s.
$FF -f lavfi -i testsrc2=s=320x240:r=25:d=2 -f lavfi -i sine=f=330:d=2 -c:v libvpx-vp9 -crf 45 -b:v 0 \
    -deadline realtime -c:a libopus -b:a 24k -shortest vp9.webm
# A phone-style portrait clip: stored 320x240 (red top, blue bottom), display matrix rotated 90°.
$FF -f lavfi -i color=red:s=320x120:r=25:d=2 -f lavfi -i color=blue:s=320x120:r=25:d=2 \
    -filter_complex "[0][1]vstack,noise=alls=8:allf=t" -c:v libx264 -crf 30 -pix_fmt yuv420p landscape.tmp.mp4
$FF -i landscape.tmp.mp4 -c copy -metadata:s:v:0 rotate=90 rotated.mov
rm -f landscape.tmp.mp4
# Starts with 3 s of black, then 2 s of picture; one keyframe only, so seeking cannot skip the black.
$FF -f lavfi -i color=black:s=320x240:r=25:d=3 -f lavfi -i testsrc2=s=320x240:r=25:d=2 \
    -filter_complex "[0][1]concat=n=2:v=1:a=0" -c:v libx264 -crf 32 -g 1000 -pix_fmt yuv420p black-start.mp4
# Voice notes as the apps record them: AAC in M4A at 16 kHz mono 32 kbit/s; Opus and MP3 too.
$FF -f lavfi -i "sine=f=220:d=4.6,aresample=16000" -ac 1 -c:a aac -b:a 32k voice.m4a
$FF -f lavfi -i "sine=f=220:d=3.2" -ac 1 -c:a libopus -b:a 16k voice.ogg
$FF -f lavfi -i "sine=f=220:d=2.4" -ac 1 -c:a libmp3lame -b:a 32k voice.mp3
# WAV and FLAC notes (8 kHz mono; 22 kHz stereo): transcoded to the app's AAC .m4a.
$FF -f lavfi -i "sine=f=330:d=2.2,aresample=8000" -ac 1 -c:a pcm_s16le voice.wav
$FF -f lavfi -i "sine=f=440:d=1.8,aresample=22050" -ac 2 -c:a flac voice.flac
# A voice note over the 300 s limit: 2 s of tone, then silence that Opus's DTX codes in a few bytes.
$FF -f lavfi -i "sine=f=200:d=305" -af "volume=enable='gt(t,2)':volume=0" -ac 1 -c:a libopus -b:a 6k -application voip -dtx 1 voice-long.ogg
# A truncated MP4: the first 40 % of h264.mp4 (its moov box, at the end, is gone).
head -c $(( $(stat -c %s h264.mp4) * 4 / 10 )) h264.mp4 > truncated.mp4
# The same H.264/AAC packets in Matroska: remuxed into MP4, not re-encoded.
$FF -i h264.mp4 -c copy h264.mkv
# A faststart MP4 cut at 60 %: its index (moov, at the front) is whole, the media it points at is not.
$FF -i h264.mp4 -c copy -movflags +faststart /tmp/faststart-$$.mp4
head -c $(( $(stat -c %s /tmp/faststart-$$.mp4) * 6 / 10 )) /tmp/faststart-$$.mp4 > truncated-faststart.mp4
rm -f /tmp/faststart-$$.mp4
# Damaged and merely untidy JPEGs, derived from the fixtures above byte by byte.
python3 - <<'PY'
import struct
small = open('small.jpg', 'rb').read()
sos = small.index(b'\xff\xda')
# Entropy data cut at 90 %, then an EOI: libjpeg warns "premature end of data segment".
open('premature-end.jpg', 'wb').write(small[:sos + int((len(small) - sos) * 0.9)] + b'\xff\xd9')
# The frame header claims far more pixels than the data holds.
for w, h, name in [(3000, 3000, 'claims-3000.jpg'), (65000, 65000, 'claims-65000.jpg')]:
    b = bytearray(small); i = b.index(b'\xff\xc0'); b[i + 5:i + 9] = struct.pack('>HH', h, w)
    open(name, 'wb').write(bytes(b))
# A malformed Exif APP1 whose length leaves 16 bytes behind, in front of the real one:
# libjpeg warns "16 extraneous bytes before marker 0xe1" and decodes the whole image.
o6 = open('orient-6.jpg', 'rb').read()
bad = b'\xff\xe1\x00\x08Exif\x00\x00' + b'MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00'
open('stray-bytes.jpg', 'wb').write(o6[:2] + bad + o6[2:])
PY

# Durations as ffprobe reports them, for the tests to compare against.
{
  echo "{"
  first=1
  for f in h264.mp4 hevc.mp4 vp9.webm rotated.mov black-start.mp4 voice.m4a voice.ogg voice.mp3 voice.wav voice.flac voice-long.ogg; do
    d=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f")
    [ $first = 1 ] || echo ","
    printf '  "%s": %s' "$f" "$d"
    first=0
  done
  echo; echo "}"
} > ffprobe-durations.json
cat ffprobe-durations.json

# ---- Videos every client plays ----
FF="ffmpeg -hide_banner -loglevel error -y"
# MPEG-4 Part 2 (no iPhone plays it) in MOV, red over blue, display matrix rotated 90°: transcoded, still upright.
$FF -f lavfi -i color=red:s=320x120:r=25:d=2 -f lavfi -i color=blue:s=320x120:r=25:d=2 -f lavfi -i sine=f=500:d=2 \
    -filter_complex "[0][1]vstack,noise=alls=8:allf=t[v]" -map "[v]" -map 2 -c:v mpeg4 -q:v 8 -c:a aac -b:a 32k landscape.tmp.mov
$FF -i landscape.tmp.mov -c copy -metadata:s:v:0 rotate=90 rotated-mpeg4.mov
rm -f landscape.tmp.mov
# Heavy grain, 2 s VP9: at constant quality its H.264 is several times the 60,000-byte budget the tests give it.
$FF -f lavfi -i testsrc2=s=256x192:r=25:d=2 -f lavfi -i sine=f=300:d=2 -vf noise=alls=40:allf=t \
    -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 150k -c:a libopus -b:a 24k -shortest noisy.webm
# A 4K HEVC phone clip, one second at 5 fps (thumbnails of large frames).
$FF -f lavfi -i testsrc2=s=3840x2160:r=5:d=1 -c:v libx265 -preset ultrafast -crf 40 -tag:v hvc1 -pix_fmt yuv420p \
    -x265-params log-level=none hevc-4k.mp4

# ---- Colour as it was shot: wide-gamut profiles (colord-data's Adobe RGB; Display P3 built below) ----
# Display P3: sRGB's tone curve (colord's sRGB.icc) with P3's D50-adapted colorants, named "Display P3".
python3 - /usr/share/color/icc/colord/sRGB.icc p3.icc <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read(); n = struct.unpack('>I', d[128:132])[0]
tags = [(d[132+12*i:136+12*i], *struct.unpack('>II', d[136+12*i:144+12*i])) for i in range(n)]
data = {sig: d[off:off+size] for sig, off, size in tags}
def xyz(v): return b'XYZ ' + bytes(4) + b''.join(struct.pack('>i', round(x * 65536)) for x in v)
data.update({b'rXYZ': xyz((0.515121, 0.241196, -0.001053)), b'gXYZ': xyz((0.291977, 0.692245, 0.041885)),
             b'bXYZ': xyz((0.157104, 0.066574, 0.784073))})
name = b'Display P3\0'
data[b'desc'] = b'desc' + bytes(4) + struct.pack('>I', len(name)) + name + bytes(4 + 4 + 2 + 1 + 67)
body, table, off = b'', b'', 128 + 4 + 12 * len(data)
for sig, blob in data.items():
    blob += bytes(-len(blob) % 4); table += sig + struct.pack('>II', off + len(body), len(blob)); body += blob
o = bytearray(d[:128] + struct.pack('>I', len(data)) + table + body)
o[0:4] = struct.pack('>I', len(o)); o[84:100] = bytes(16)
open(sys.argv[2], 'wb').write(o)
PY
srgb=/usr/share/color/icc/colord/sRGB.icc; adobe=/usr/share/color/icc/colord/AdobeRGB1998.icc
# Patches of known sRGB colours (iOS system blue, orange, a green, a skin tone) converted into the
# wide gamut: prepared, they must come back as these sRGB values.
patches() { $IM -size 48x48 xc:'rgb(0,122,255)' xc:'rgb(255,149,0)' xc:'rgb(52,199,89)' xc:'rgb(224,172,138)' +append "$@"; }
patches -profile $srgb -profile p3.icc -quality 95 p3-small.jpg           # fits the budget: would be kept if sRGB
patches -profile $srgb -profile $adobe PNG24:adobe.png
$IM p3-small.jpg -quality 90 p3.webp   # with an ICCP chunk
$IM -seed 5 -size 700x525 plasma:fractal -profile $srgb -profile p3.icc -quality 97 p3-photo.jpg   # over the budget
patches -profile $srgb -profile /usr/share/color/icc/ghostscript/ps_cmyk.icc -quality 95 cmyk-profile.jpg
patches -profile $srgb -quality 95 srgb-tagged.jpg   # an sRGB profile: recognised by what it does, kept (stripped)
# PNGs that name their colours without a profile: Display P3 numbers with a cHRM chunk of P3's
# primaries, and with a cICP chunk (primaries 12, transfer 13: Display P3).
patches -profile $srgb -profile p3.icc -strip PNG24:p3-numbers.png
python3 - p3-numbers.png <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
def chunk(t, body): return struct.pack('>I', len(body)) + t + body + struct.pack('>I', zlib.crc32(t + body))
ihdr_end = 8 + 8 + 13 + 4
chrm = struct.pack('>8I', *[round(v * 100000) for v in (0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060)])
open('p3-chrm.png', 'wb').write(d[:ihdr_end] + chunk(b'cHRM', chrm) + d[ihdr_end:])
open('p3-cicp.png', 'wb').write(d[:ihdr_end] + chunk(b'cICP', bytes([12, 13, 0, 1])) + d[ihdr_end:])
PY
rm -f p3-numbers.png p3.icc
# 16-bit samples with no gamma chunk: sRGB-encoded as 8-bit ones are (not linear, as libpng's simplified API assumes).
$IM -size 16x256 gradient:black-white -strip -depth 16 PNG48:ramp16.png

# ---- VP9 with alpha (Telegram's video stickers): an opaque blue box, transparent (hidden blue) around it ----
ffmpeg -v error -y -f lavfi -i "color=c=blue:s=96x64:d=1:r=10,format=rgba,geq=r='0':g='0':b='255':a='if(between(X\,24\,71)*between(Y\,16\,47)\,255\,0)'" \
  -c:v libvpx-vp9 -pix_fmt yuva420p -auto-alt-ref 0 -b:v 200k vp9-alpha.webm

# ---- HDR video: HLG (as iPhones record) and PQ (HDR10) made from one SDR scene, 10-bit HEVC ----
ffmpeg -v error -y -f lavfi -i "testsrc2=s=192x108:r=1,format=rgb24" -frames:v 1 hdr-scene.png
hdr() {  # $1 transfer (arib-std-b67 | smpte2084), $2 output, $3 extra zscale options
  ffmpeg -v error -y -loop 1 -i hdr-scene.png -t 1 -r 10 \
    -vf "noise=alls=6:allf=t,zscale=tin=iec61966-2-1:t=$1:min=709:m=2020_ncl:pin=709:p=2020:rin=full:r=limited$3,format=yuv420p10le" \
    -c:v libx265 -x265-params "log-level=error:colorprim=bt2020:transfer=$1:colormatrix=bt2020nc" -crf 4 -tag:v hvc1 \
    -color_primaries bt2020 -color_trc "$1" -colorspace bt2020nc "$2"
}
hdr arib-std-b67 hdr-hlg.mov ""
hdr smpte2084 hdr-pq.mp4 ":npl=203"   # SDR white at 203 nits (BT.2408)

# ---- HEIC and AVIF (libheif-examples' heif-enc, libavif-bin's avifenc): a sideways HEIC tagged upright by Exif, with GPS; an AVIF ----
$IM quadrants.png -rotate 90 -quality 97 heic-src.jpg
$EXIF -n -Orientation=8 -GPSLatitude=59.3293 -GPSLatitudeRef=N -GPSLongitude=18.0686 -GPSLongitudeRef=E -Model="Test Phone" heic-src.jpg
heif-enc -q 92 heic-src.jpg -o orient-gps.heic >/dev/null
avifenc -s 8 --min 10 --max 20 quadrants.png quadrants.avif >/dev/null   # libavif-bin
cjxl -q 95 quadrants.png quadrants.jxl >/dev/null 2>&1                    # libjxl-tools
$IM quadrants.png -quality 0 quadrants.jp2                                 # JPEG 2000, lossless
# An MPEG transport stream as a camcorder writes one (AVCHD), its service named in the SDT.
ffmpeg -v error -y -f lavfi -i color=c=gray:s=16x16:d=0.2:r=5 -c:v libx264 -preset ultrafast -x264-params keyint=1 \
  -bsf:v filter_units=remove_types=6 -metadata service_provider="Jane Sender" -metadata service_name="Secret title" camcorder.ts
# Flash video with its onMetaData naming a sender, and an MPEG program stream: both always transcoded.
ffmpeg -v error -y -f lavfi -i color=c=gray:s=16x16:d=0.2:r=5 -c:v libx264 -preset ultrafast -x264-params keyint=1 \
  -bsf:v filter_units=remove_types=6 -metadata title="Secret title" -metadata artist="Jane Sender" -metadata comment="secret comment" flash.flv
ffmpeg -v error -y -f lavfi -i color=c=gray:s=16x16:d=0.2:r=5 -c:v mpeg2video -f vob program.mpg
# Sound alone in Flash video (AAC; MP3) and in a transport stream (MP2), each naming a sender: sent
# as a file, each leaves as a new .m4a or .mp3.
ffmpeg -v error -y -f lavfi -i "sine=f=440:d=1:r=8000" -c:a aac -b:a 12k -metadata title="Secret title" -metadata artist="Jane Sender" radio-aac.flv
ffmpeg -v error -y -f lavfi -i "sine=f=440:d=0.5:r=11025" -c:a libmp3lame -b:a 8k -metadata title="Secret title" -metadata artist="Jane Sender" radio-mp3.flv
ffmpeg -v error -y -f lavfi -i "sine=f=440:d=1:r=16000" -c:a mp2 -b:a 32k -metadata service_provider="Jane Sender" -metadata service_name="Secret title" radio-mp2.ts
# Interlaced MPEG-2 in a program stream (a DVD's kind): a bar moving 8 px a field, four frames, top field first.
ffmpeg -v error -y -f lavfi -i "color=c=black:s=64x64:r=50:d=0.16" \
  -vf "format=gray,geq=lum='if(between(X\,mod(N*8\,48)\,mod(N*8\,48)+15)\,235\,16)',format=yuv420p,tinterlace=mode=interleave_top,setfield=tff" \
  -c:v mpeg2video -flags +ildct+ilme -top 1 -q:v 2 -f vob interlaced.mpg
# The same as interlaced H.264 in an MP4 (x264, top field first, no SEI naming the encoder).
ffmpeg -v error -y -f lavfi -i "color=c=black:s=64x64:r=50:d=0.16" \
  -vf "format=gray,geq=lum='if(between(X\,mod(N*8\,48)\,mod(N*8\,48)+15)\,235\,16)',format=yuv420p,tinterlace=mode=interleave_top,setfield=tff" \
  -c:v libx264 -preset ultrafast -flags +ildct+ilme -x264-params tff=1 -bsf:v filter_units=remove_types=6 interlaced.mp4
# WavPack with an APEv2 tag naming the artist: sent as a file, the tag is cut.
ffmpeg -v error -y -f lavfi -i "sine=d=0.25:r=8000" -ac 1 -c:a wavpack -metadata artist="Jane Sender" -metadata title="Secret title" tagged.wv
# Windows Media (ASF), its Content Description naming the author: a WMV video and a WMA recording.
ffmpeg -v error -y -f lavfi -i color=c=gray:s=16x16:d=0.2:r=5 -c:v wmv2 -metadata title="Secret title" -metadata author="Jane Sender" -packet_size 512 movie.wmv
ffmpeg -v error -y -f lavfi -i "sine=f=440:d=0.5:r=8000" -c:a wmav2 -b:a 24k -metadata title="Secret title" -metadata author="Jane Sender" -packet_size 512 memo.wma
# The SARIF 2.1.0 schema (OASIS, errata 01) that check's --format sarif output is validated against, minified.
curl -fsSL https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json \
  | python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout, separators=(",", ":"), ensure_ascii=False)' > sarif-schema-2.1.0.json
# An AVIF storing colour premultiplied by alpha: #ff2000 fading out left to right.
$IM -size 64x32 xc:'#ff2000' \( -size 32x64 gradient:black-white -rotate 90 \) -alpha off -compose copy_opacity -composite premul-src.png
avifenc -s 8 --min 0 --max 10 --premultiply premul-src.png premultiplied.avif >/dev/null
rm -f premul-src.png
# An HDR still: four SDR patches (white, gray 128, red, blue) as BT.2020 PQ with SDR white at 203 cd/m², 10-bit AVIF.
$IM -size 16x32 xc:white xc:'rgb(128,128,128)' xc:'rgb(200,40,40)' xc:'rgb(40,60,200)' +append hdr-src.png
ffmpeg -v error -y -i hdr-src.png -vf "zscale=tin=iec61966-2-1:t=smpte2084:min=709:m=2020_ncl:pin=709:p=2020:rin=full:r=full:npl=203,format=rgb48le" -frames:v 1 hdr-pq16.png
avifenc -s 8 -d 10 --min 0 --max 4 --cicp 9/16/9 hdr-pq16.png hdr-pq.avif >/dev/null
# The same as a PQ JPEG XL (the PNG's colour chunks stripped, so cjxl tags what -x says).
$IM hdr-pq16.png -strip -depth 16 hdr-pq16s.png
cjxl hdr-pq16s.png hdr-pq.jxl -d 0.5 -x color_space=RGB_D65_202_Rel_PeQ >/dev/null 2>&1
rm -f hdr-pq16s.png
rm -f hdr-src.png hdr-pq16.png
rm -f heic-src.jpg

# ---- Animations SimpleX shows only as GIFs: an animated WebP sticker with transparency, Exif and GPS
#      (img2webp, webpmux from the webp package), and an APNG that plays twice ----
for i in 0 1 2 3; do
  $IM -size 96x64 xc:none -fill "hsl($((i * 90)),80%,50%)" -draw "rectangle $((8 + i * 12)),12 $((40 + i * 12)),52" "af$i.png"
done
img2webp -loop 3 -lossless -d 80 af0.png af1.png -d 160 af2.png -d 80 af3.png -o anim-plain.webp >/dev/null
cwebp -lossless -quiet af0.png -o alpha-still.webp   # the first frame as a still: libwebp's lossless, with alpha
$IM -size 8x8 xc:gray exif-src.jpg
$EXIF -n -GPSLatitude=59.3293 -GPSLatitudeRef=N -GPSLongitude=18.0686 -GPSLongitudeRef=E -Model="Test Phone" exif-src.jpg
$EXIF -b -exif exif-src.jpg > exif.bin
webpmux -set exif exif.bin anim-plain.webp -o anim-sticker.webp >/dev/null
ffmpeg -v error -y -framerate 5 -i af%d.png -plays 2 -f apng anim-apng.png
rm -f af0.png af1.png af2.png af3.png anim-plain.webp exif-src.jpg exif.bin
# An animated AVIF (an image sequence, as browsers and avifenc make one): four opaque 32×24 frames at
# 4 fps, each a hue with a white bar 8 px further right.
for i in 0 1 2 3; do
  $IM -size 32x24 xc:"hsl($((i * 90)),100%,50%)" -fill white -draw "rectangle $((i * 8)),0 $((i * 8 + 7)),23" "av$i.png"
done
ffmpeg -v error -y -framerate 4 -i av%d.png -pix_fmt yuv420p -f yuv4mpegpipe av.y4m
avifenc -s 8 --min 30 --max 40 --fps 4 av.y4m anim.avif >/dev/null
rm -f av0.png av1.png av2.png av3.png av.y4m

# ---- Screenshots and a panorama: text on a flat background (a PNG that fits; one 15 times taller than
#      wide, which is split), and a 10:1 plasma panorama ----
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf   # fonts-dejavu-core
$IM -size 360x1000 -background '#fafafa' -fill '#141414' -font $FONT -pointsize 13 \
  caption:"$(head -c 1900 /usr/share/common-licenses/Apache-2.0 | tail -c 1200 | tr -s ' \n' ' ')" -strip PNG24:screenshot.png
$IM -size 100x1500 -background '#fafafa' -fill '#141414' -font $FONT -pointsize 9 \
  caption:"$(head -c 1800 /usr/share/common-licenses/Apache-2.0 | tail -c 1500 | tr -s ' \n' ' ')" -strip PNG24:screenshot-long.png
$IM -size 2000x200 -seed 7 plasma:fractal -blur 0x1 -quality 80 -strip panorama.jpg
rm -f quadrants.png

# ---- Videos and audio carrying the sender's location, device, name and dates ----
./make-private-fixtures.sh

# ---- Decoder bombs and what recipients cannot decode (libjpeg-turbo-progs' jpegtran) ----
# Arithmetic coding, baseline and progressive, of the upright quadrants and of small.jpg.
jpegtran -arithmetic -copy none orient-1.jpg > arith.jpg
jpegtran -arithmetic -progressive -copy none orient-1.jpg > arith-progressive.jpg
jpegtran -arithmetic -copy none small.jpg > arith-small.jpg
# A few hundred bytes claiming 65500×65500: baseline and progressive, Huffman and arithmetic.
$FF -f lavfi -i color=gray:s=16x16 -frames:v 1 -q:v 5 bomb-src.jpg
jpegtran -optimize bomb-src.jpg > bomb-huffman.jpg
jpegtran -progressive bomb-src.jpg > bomb-huffman-progressive.jpg
jpegtran -arithmetic bomb-src.jpg > bomb-arithmetic.jpg
jpegtran -arithmetic -progressive bomb-src.jpg > bomb-arithmetic-progressive.jpg
rm -f bomb-src.jpg
python3 - <<'PY'
import struct, zlib
for name in ['bomb-huffman.jpg', 'bomb-huffman-progressive.jpg', 'bomb-arithmetic.jpg', 'bomb-arithmetic-progressive.jpg']:
    d = bytearray(open(name, 'rb').read()); i = 2
    while d[i + 1] not in (0xC0, 0xC1, 0xC2, 0xC9, 0xCA):
        i += 2 + struct.unpack('>H', d[i + 2:i + 4])[0]
    d[i + 5:i + 9] = struct.pack('>HH', 65500, 65500)
    open(name, 'wb').write(bytes(d))
# 10000×10000 1-bit gray PNG (29 KB, 100 MP decoded): white, with a black dot every 400 px in one row band of seven.
w = h = 10000; rowbytes = (w + 7) // 8
white = b'\x00' + b'\xff' * rowbytes
dotted = bytearray(white)
for x in range(1, rowbytes + 1, 50): dotted[x] = 0
raw = b''.join(bytes(dotted) if (y // 100) % 7 == 0 else white for y in range(h))
def chunk(t, b): return struct.pack('>I', len(b)) + t + b + struct.pack('>I', zlib.crc32(t + b) & 0xffffffff)
open('onebit-10000.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 1, 0, 0, 0, 0))
                                     + chunk(b'IDAT', zlib.compress(raw, 9)) + chunk(b'IEND', b''))
PY


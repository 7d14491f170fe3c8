#!/usr/bin/env bash
# Builds and runs one libFuzzer target (Fuzz/Package.swift) with AddressSanitizer, seeded from testdata/.
# usage: scripts/qa/fuzz.sh TARGET SECONDS      TARGET: sniff exif jpeg png container plan heif jxl webp strip tiff document
# Crashes, leaks and hangs (> 10 s per input) land in Fuzz/findings/; the growing corpus in Fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?usage: scripts/qa/fuzz.sh TARGET SECONDS}
seconds=${2:?usage: scripts/qa/fuzz.sh TARGET SECONDS}
case $target in sniff|exif|jpeg|png|container|plan|heif|jxl|webp|strip|tiff|document) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
./scripts/install-deps.sh
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -use-ld=lld)
# SwiftPM keeps the path dependency's file list from the first build: a source file added since is
# missing from it ("cannot find 'X' in scope"); and it does not rebuild Swift files when a system
# library's shim header changes (a table grown by a member read past its end). Start over when the
# list of sources or any shim header changed.
stamp=$( (find Sources -name '*.swift' | sort; cat Sources/C*/*.h Sources/C*/module.modulemap) | sha256sum | cut -c1-16)
if [ "$(cat Fuzz/.build/sources.stamp 2>/dev/null)" != "$stamp" ]; then rm -rf Fuzz/.build; fi
mkdir -p Fuzz/.build && echo "$stamp" > Fuzz/.build/sources.stamp
swift build --package-path Fuzz "${flags[@]}" --product "fuzz-$target" >&2
bin=$(swift build --package-path Fuzz "${flags[@]}" --show-bin-path)/fuzz-$target
corpus=Fuzz/corpus/$target seeds=Fuzz/seeds/$target
mkdir -p "$corpus" "$seeds" Fuzz/findings
# Seeds: the fixtures each parser should see (small ones; libFuzzer mutates from there).
# One of every registered format (FuzzSeedTests, which fails when a format has none), for sniff and strip.
registry_seeds() { MEDIAPREP_FUZZ_SEEDS="$PWD/$seeds" swift test --filter FuzzSeedTests >&2; }
case $target in
  sniff)     registry_seeds
             for f in testdata/*.{jpg,png,gif,webp,bmp,tiff,mp4,mov,webm,m4a,mp3,ogg}; do [ "$(stat -c %s "$f")" -lt 50000 ] && cp "$f" "$seeds/"; done ;;
  exif)      python3 -c "
import sys, glob
for p in glob.glob('testdata/orient-*.jpg') + ['testdata/photo.jpg', 'testdata/stray-bytes.jpg']:
    d = open(p, 'rb').read(); i = d.find(b'Exif\0\0')
    if i > 0: open('$seeds/' + p.split('/')[-1] + '.tiff', 'wb').write(d[i + 6:i + 6 + 4096])" ;;
  jpeg)      for f in testdata/*.jpg; do [ "$(stat -c %s "$f")" -lt 50000 ] && cp "$f" "$seeds/"; done ;;
  png)       for f in testdata/*.png; do [ "$(stat -c %s "$f")" -lt 50000 ] && cp "$f" "$seeds/"; done ;;
  container) cp testdata/{h264.mp4,hevc.mp4,vp9.webm,rotated.mov,voice.m4a,voice.mp3,voice.ogg,truncated-faststart.mp4,h264.mkv,orient-gps.heic,p3.webp,anim-apng.png,voice.wav,voice.flac,anim.gif,camcorder.ts,flash.flv,program.mpg,movie.wmv,memo.wma,radio-aac.flv,radio-mp3.flv,radio-mp2.ts} "$seeds/"
             # Bare film sound (no fixture: their tests build frames): a few frames of each.
             for c in ac3:ac3 eac3:eac3 dca:dts truehd:thd; do ffmpeg -v error -y -f lavfi -i "sine=d=0.1" -strict -2 -c:a "${c%%:*}" "$seeds/seed.${c##*:}"; done ;;
  document)  python3 scripts/qa/make-documents.py "$seeds" testdata/orient-6.jpg >/dev/null ;;
  strip)     registry_seeds
             cp testdata/{h264.mp4,voice.m4a,voice.mp3,voice.flac,voice.ogg,voice.wav,private-iphone.mov,private-android.mp4,private-memo.m4a,private-tagged.mp3,private-tagged.flac,private-tagged.opus.ogg,private-tagged.vorbis.ogg,private-tagged.wav,private-tagged.mkv,photo.jpg,screenshot.png,private-long.heic,private-long.avif,private-long.jxl,private-long.tif,private-long.gif,orient-gps.heic} "$seeds/"
             # Comments in Ogg FLAC and Speex, a FLAC behind ID3, an ID3v2 tag after an MP3's frames, an SVGZ.
             ffmpeg -v error -y -f lavfi -i "sine=d=0.1" -c:a flac -metadata artist=seed "$seeds/seed.oga"
             ffmpeg -v error -y -f lavfi -i "sine=d=0.1:r=16000" -c:a libspeex -metadata artist=seed "$seeds/seed.spx"
             python3 -c "
import gzip
tag = b'ID3\3\0\0\0\0\0\x0fTPE1\0\0\0\5\0\0\3seed'
open('$seeds/id3.flac', 'wb').write(tag + open('testdata/voice.flac', 'rb').read())
open('$seeds/id3-after.mp3', 'wb').write(open('testdata/voice.mp3', 'rb').read() + tag)
svg = b'<?xml version=\"1.0\"?><!-- seed --><svg xmlns=\"http://www.w3.org/2000/svg\" sodipodi:docname=\"/home/seed.svg\"><rect/></svg>'
open('$seeds/seed.svg', 'wb').write(svg); open('$seeds/seed.svgz', 'wb').write(gzip.compress(svg))"
             # AIFF and CAF have no fixture (their tests build them): tagged ones made here.
             for ext in aiff caf; do ffmpeg -v error -y -f lavfi -i "sine=d=0.05:r=8000" -write_id3v2 1 -metadata artist=seed "$seeds/seed.$ext"; done
             # A Photoshop document tagged with Exif, IPTC and XMP (its image resources are emptied in place).
             # Side tracks: a timecode, and GoPro-like GPS samples in a gpmd track.
             ffmpeg -v error -y -f lavfi -i testsrc2=d=0.2:s=64x48:r=10 -c:v libx264 -timecode 01:00:00:00 "$seeds/tc.mov" \
               && head -c 600 /dev/urandom > "$seeds/gpmf.bin" && ffmpeg -v error -y -i "$seeds/tc.mov" -f data -i "$seeds/gpmf.bin" -map 0 -map 1 -c copy -tag:d gpmd -f mov "$seeds/gpmd.mov"; rm -f "$seeds/gpmf.bin"
             # The same in fragments (a timecode and a subtitle track in each moof), bases from the moof and explicit;
             # an audiobook's chapter track.
             printf '1\n00:00:00,000 --> 00:00:00,100\nGPS 51.5 N\n' > "$seeds/gps.srt"
             for f in "frag_keyframe+empty_moov+default_base_moof:frag.mp4" "frag_keyframe+empty_moov:frag-legacy.mp4"; do
               ffmpeg -v error -y -f lavfi -i testsrc2=d=0.2:s=64x48:r=10 -i "$seeds/gps.srt" -c:v libx264 -g 1 -c:s mov_text -timecode 01:00:00:00 -movflags "${f%%:*}" "$seeds/${f##*:}"
             done
             printf ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=50\ntitle=One\n' > "$seeds/chapters.txt"
             ffmpeg -v error -y -f lavfi -i "sine=d=0.1" -i "$seeds/chapters.txt" -map_chapters 1 -c:a aac "$seeds/book.m4a"; rm -f "$seeds/gps.srt" "$seeds/chapters.txt"
             convert -size 8x8 xc:gray "$seeds/seed.psd" && exiftool -q -overwrite_original -Model=seed -IPTC:By-line=seed -XMP:Creator=seed "$seeds/seed.psd"
             # A GIMP document's header with Exif, XMP and comment parasites (no layers).
             python3 -c "
import struct
def par(n, d): return struct.pack('>I', len(n) + 1) + n + b'\0' + struct.pack('>II', 1, len(d)) + d
p = par(b'gimp-metadata', b'GIMP_XMP_1<x:xmpmeta/>') + par(b'exif-data', b'Exif\0\0MM\0*\0\0\0\x08\0\0\0\0\0\0') + par(b'gimp-comment', b'seed\0')
open('$seeds/seed.xcf', 'wb').write(b'gimp xcf v011\0' + struct.pack('>IIII', 8, 8, 0, 150) + struct.pack('>II', 21, len(p)) + p + struct.pack('>II', 0, 0) + bytes(16))"
             # An OpenEXR with an owner and a place, a DPX with a creator and a scanner, a FITS with a site.
             convert -size 8x4 gradient: "$seeds/plain.exr" && ffmpeg -v error -y -f lavfi -i testsrc2=s=8x4 -frames 1 -pix_fmt gbrp10be "$seeds/seed.dpx" \
               && ffmpeg -v error -y -f lavfi -i testsrc2=s=8x4 -frames 1 -pix_fmt gbrp "$seeds/seed.fits" && python3 -c "
import struct
def attr(n, t, v): return n + b'\0' + t + b'\0' + struct.pack('<i', len(v)) + v
d = open('$seeds/plain.exr', 'rb').read(); at = 8
while d[at]:
    t = d.index(0, d.index(0, at) + 1); at = t + 5 + struct.unpack_from('<i', d, t + 1)[0]
x = attr(b'owner', b'string', b'seed') + attr(b'latitude', b'float', struct.pack('<f', 51.5)) + attr(b'Scene', b'string', b'/home/seed')
w = struct.unpack_from('<4i', d, d.index(b'dataWindow\0box2i\0') + 21)
n = w[3] - w[1] + 1; t = d[at + 1:]
t = b''.join(struct.pack('<Q', struct.unpack_from('<Q', t, 8 * i)[0] + len(x)) for i in range(n)) + t[8 * n:]
open('$seeds/seed.exr', 'wb').write(d[:at] + x + b'\0' + t)
p = bytearray(open('$seeds/seed.dpx', 'rb').read()); p[160:164] = b'seed'; p[1556:1560] = b'seed'
open('$seeds/seed.dpx', 'wb').write(p)
f = bytearray(open('$seeds/seed.fits', 'rb').read()); e = f.index(b'END     ')
f[e:e + 240] = b'OBSERVER= ' + b'seed'.ljust(70) + b'SITELAT =                 51.5'.ljust(80) + b'END'.ljust(80)
open('$seeds/seed.fits', 'wb').write(f)
import base64
j = base64.b64encode(open('testdata/orient-6.jpg', 'rb').read()).decode()
open('$seeds/seed.svg', 'w').write('<?xml version=\\'1.0\\'?><svg xmlns=\\'http://www.w3.org/2000/svg\\' sodipodi:docname=\\'seed.svg\\'><metadata><dc:creator>seed</dc:creator></metadata><image href=\\'/home/seed/a.jpg\\'/><image href=\\'data:image/jpeg;base64,' + j + '\\'/></svg>')
def el(g, e, vr, v, ln=None):
    v = v + (b' ' if len(v) % 2 else b'')
    n = len(v) if ln is None else ln
    if vr in (b'OB', b'OW', b'SQ'): return struct.pack('<HH', g, e) + vr + b'\0\0' + struct.pack('<I', n) + v
    return struct.pack('<HH', g, e) + vr + struct.pack('<H', n) + v
d = bytes(128) + b'DICM' + el(2, 0x10, b'UI', b'1.2.840.10008.1.2.1\0') + el(8, 0x20, b'DA', b'20260101') + el(0x40, 0x275, b'SQ', b'', 0xFFFFFFFF)
d += b'\xfe\xff\x00\xe0' + struct.pack('<I', 0xFFFFFFFF) + el(0x32, 0x1032, b'PN', b'seed') + b'\xfe\xff\x0d\xe0' + bytes(4) + b'\xfe\xff\xdd\xe0' + bytes(4)
d += el(0x10, 0x10, b'PN', b'seed^seed') + el(0x7FE0, 0x10, b'OW', bytes(32))
open('$seeds/seed.dcm', 'wb').write(d)
fl = lambda t, v: b'~FL\0' + struct.pack('<HI', t, len(v)) + v
bk = lambda i, v: b'~BK\0' + struct.pack('<HI', i, len(v)) + v
open('$seeds/seed.psp', 'wb').write(b'Paint Shop Pro Image File\n\x1a\0\0\0\0\0' + struct.pack('<HH', 10, 0) + bk(1, fl(0, b'seed') + fl(1, bytes(4)) + fl(3, b'seed')) + bk(10, fl(3, b'Exif\0\0MM\0*\0\0\0\x08\0\0')) + bk(3, bytes(16)))" ;;
  heif)      cp testdata/{orient-gps.heic,quadrants.avif} "$seeds/"
             # Derivation graphs: a good grid, overlays named again and again, a loop (make-hostile.py).
             hostile=$(mktemp -d) && python3 scripts/qa/make-hostile.py "$hostile" \
               && cp "$hostile"/heic-{good-grid,self-grid,loop}.heic "$seeds/" && rm -rf "$hostile" ;;
  jxl)       cp testdata/quadrants.jxl "$seeds/" ;;
  tiff)      cp testdata/{image.tiff,private-long.tif} "$seeds/"
             hostile=$(mktemp -d) && python3 scripts/qa/make-hostile.py "$hostile" \
               && cp "$hostile"/tiff-{1bit-10000,float}.tif "$seeds/" && rm -rf "$hostile"
             # A DNG of sensor data alone (LibRaw's way in) has no fixture (its tests build them): a 32×24 RGGB one here (LibRaw takes no side under 22).
             python3 -c "
import struct
w, h = 32, 24; data = struct.pack('<%dH' % (w * h), *[64 + (x * 251 + y * 97) % 4000 for y in range(h) for x in range(w)])
tags = [(254, 4, [0]), (256, 4, [w]), (257, 4, [h]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]), (273, 4, [8]), (277, 3, [1]),
        (278, 4, [h]), (279, 4, [len(data)]), (284, 3, [1]), (33421, 3, [2, 2]), (33422, 1, [0, 1, 1, 2]), (50706, 1, [1, 4, 0, 0]),
        (50714, 3, [64]), (50717, 4, [4095])]
fmt = {1: 'B', 3: 'H', 4: 'I'}
ifd = struct.pack('<H', len(tags)) + b''.join(struct.pack('<HHI', t, k, len(v)) + struct.pack('<%d%s' % (len(v), fmt[k]), *v).ljust(4, b'\\0') for t, k, v in tags) + b'\\0' * 4
open('$seeds/sensor.dng', 'wb').write(b'II*\\0' + struct.pack('<I', 8 + len(data)) + data + ifd)" ;;
  webp)      cp testdata/{anim-sticker.webp,alpha-still.webp,anim-apng.png,anim.gif,image.webp,p3.webp} "$seeds/"
             # Frames times canvas: a large canvas of tiny frames (WebP, GIF), a 1-bit greyscale APNG.
             hostile=$(mktemp -d) && python3 scripts/qa/make-hostile.py "$hostile" \
               && cp "$hostile"/{webp-canvas-frames.webp,gif-canvas-frames.gif,apng-1bit.png} "$seeds/" && rm -rf "$hostile" ;;
  plan)      printf '\0\0\0\0\0\4\0\0\0\0\1\0{"msgContent":{"type":"text","text":"hi"}}' > "$seeds/text"
             printf '\0\0\0\0\100\0\0\0\2\0\7\1IMG_20260101_000000.jpg' > "$seeds/big" ;;
esac
# The Swift runtime's backtracer would catch the crash first; let libFuzzer see the signal and save the input.
export SWIFT_BACKTRACE=enable=no
# Leaks inside system libraries that our calls cannot reach are listed, with reasons, in lsan.supp.
export LSAN_OPTIONS=suppressions=$PWD/scripts/qa/lsan.supp:print_suppressions=0
"$bin" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
  -artifact_prefix="Fuzz/findings/$target-" -print_final_stats=1 2>&1 | tee "Fuzz/findings/$target.log" \
  | grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)|ERROR|SUMMARY|Done [0-9]+ runs" || true

#!/usr/bin/env bash
# Videos and audio that carry what identifies their sender, as phones and taggers write it (called by
# make-fixtures.sh; runs alone too). Needs: ffmpeg libimage-exiftool-perl
set -euo pipefail
cd "$(dirname "$0")"
FF="ffmpeg -hide_banner -loglevel error -y"
EXIF="exiftool -q -q -overwrite_original"
# A cover picture whose own Exif holds GPS and a phone model.
$FF -f lavfi -i color=c=orange:s=16x16 -frames:v 1 cover.jpg
$EXIF -n -GPSLatitude=48.8583 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E -Model="Test Phone" cover.jpg

# iPhone: HEVC + AAC in MOV, displayed rotated 90°; QuickTime Keys (ISO 6709 location, make, model,
# iOS version, creation date), UserData ©xyz, XMP creator and GPS, creation times in mvhd/tkhd/mdhd.
$FF -f lavfi -i testsrc2=s=160x120:r=10:d=1 -f lavfi -i sine=f=440:d=1 -c:v libx265 -preset ultrafast -crf 35 -tag:v hvc1 \
    -pix_fmt yuv420p -x265-params log-level=none -c:a aac -b:a 24k -ac 1 -f mov private.tmp.mov
$FF -i private.tmp.mov -c copy -metadata:s:v:0 rotate=90 -f mov private-iphone.mov
$EXIF -api QuickTimeUTC '-Keys:GPSCoordinates=48.8583, 2.2945, 35' -Keys:Make=Apple '-Keys:Model=iPhone 15 Pro' \
    -Keys:Software=17.4.1 '-Keys:CreationDate=2026:06:01 12:00:00+02:00' '-UserData:GPSCoordinates=48.8583, 2.2945' \
    '-XMP-dc:Creator=Jane Sender' -XMP:GPSLatitude=48.8583 -XMP:GPSLongitude=2.2945 \
    '-QuickTime:CreateDate=2026:06:01 10:00:00' '-QuickTime:ModifyDate=2026:06:01 10:00:00' \
    '-TrackCreateDate=2026:06:01 10:00:00' '-MediaCreateDate=2026:06:01 10:00:00' private-iphone.mov

# Android: H.264 + AAC in MP4 with udta ©xyz and mdta keys (com.android.version, manufacturer, model).
$FF -f lavfi -i testsrc2=s=160x120:r=10:d=1 -f lavfi -i sine=f=330:d=1 -c:v libx264 -preset ultrafast -crf 35 -pix_fmt yuv420p \
    -c:a aac -b:a 24k -ac 1 -movflags +use_metadata_tags -metadata location=+48.8583+002.2945/ -metadata com.android.version=14 \
    -metadata com.android.manufacturer=Google -metadata "com.android.model=Pixel 8" -metadata creation_time=2026-06-01T10:00:00Z \
    private-android.mp4

# A voice memo: AAC in M4A, a title naming a street, ©xyz location and a creation date.
$FF -f lavfi -i sine=f=250:d=2 -ac 1 -ar 16000 -c:a aac -b:a 24k -metadata "title=Rue de Rivoli 12" \
    -metadata creation_time=2026-06-01T10:00:00Z private-memo.m4a
$EXIF '-UserData:GPSCoordinates=48.8583, 2.2945' private-memo.m4a

# 400 s of near-silence in M4A (over the 300 s voice limit: sent as a file), artist, ©xyz and cover art.
$FF -f lavfi -i anullsrc=r=8000:cl=mono -t 400 -c:a aac -b:a 8k -metadata "artist=Jane Sender" private-long.m4a
$EXIF '-UserData:GPSCoordinates=48.8583, 2.2945' '-ItemList:CoverArt<=cover.jpg' private-long.m4a

# Tagged audio: MP3 with ID3v2.3 (title, artist, comment, year, cover art) and ID3v1; FLAC with comments
# and a picture; Ogg Opus and Vorbis with comments; WAV with LIST/INFO and bext.
$FF -f lavfi -i sine=f=300:d=2 -i cover.jpg -map 0 -map 1 -c:a libmp3lame -b:a 32k -ac 1 -c:v copy -disposition:v attached_pic \
    -id3v2_version 3 -write_id3v1 1 -metadata "title=Rue de Rivoli 12" -metadata "artist=Jane Sender" \
    -metadata "comment=secret comment" -metadata date=2026 private-tagged.mp3
$FF -f lavfi -i sine=f=300:d=0.5 -i cover.jpg -map 0 -map 1 -ar 8000 -ac 1 -c:a flac -c:v copy -disposition:v attached_pic \
    -metadata "artist=Jane Sender" -metadata "title=Rue de Rivoli 12" private-tagged.flac
$FF -f lavfi -i sine=f=300:d=1 -ac 1 -c:a libopus -b:a 12k -metadata "artist=Jane Sender" -metadata "location=Rue de Rivoli 12" \
    private-tagged.opus.ogg
$FF -f lavfi -i sine=f=300:d=0.5 -ac 1 -ar 8000 -c:a libvorbis -q:a 0 -metadata "artist=Jane Sender" \
    -metadata "comment=secret comment" private-tagged.vorbis.ogg
$FF -f lavfi -i sine=f=300:d=0.5 -ac 1 -ar 8000 -c:a pcm_u8 -write_bext 1 -metadata "artist=Jane Sender" \
    -metadata "title=Rue de Rivoli 12" -metadata "originator=Jane Sender" private-tagged.wav
# Matroska, as a screen recorder or an editor writes it: the Android clip remuxed, with a title, a
# recording date, a location and an artist tag, and the cover attached.
$FF -i private-android.mp4 -map 0 -c copy -map_metadata -1 -metadata "title=Rue de Rivoli 12" \
    -metadata "ARTIST=Jane Sender" -metadata "LOCATION=+48.8583+002.2945/" -metadata DATE_RECORDED=2026-06-01 \
    -metadata creation_time=2026-06-01T10:00:00Z -attach cover.jpg -metadata:s:t mimetype=image/jpeg private-tagged.mkv
# Long screenshots (over 12 times taller than wide: sent as a file with --long-images file) in every
# format the phones and browsers make, each with GPS, a phone model, a capture date and an XMP creator.
IM="convert -define png:exclude-chunks=date,time"
$IM -size 16x224 gradient:white-navy -fill black -draw "rectangle 3,30 12,33" long.tmp.png
heif-enc -q 50 long.tmp.png -o private-long.heic >/dev/null
avifenc -s 8 --min 30 --max 40 long.tmp.png private-long.avif >/dev/null
cjxl -q 80 long.tmp.png private-long.jxl >/dev/null 2>&1
convert long.tmp.png -colors 16 -set comment "Jane Sender, Rue de Rivoli 12" private-long.gif
convert long.tmp.png -compress zip private-long.tif
for f in private-long.heic private-long.avif private-long.jxl private-long.tif; do
  $EXIF -m -n -GPSLatitude=48.8583 -GPSLatitudeRef=N -GPSLongitude=2.2945 -GPSLongitudeRef=E -Make=Apple '-Model=iPhone 15 Pro' \
      '-DateTimeOriginal=2026:06:01 10:00:00' '-XMP-dc:Creator=Jane Sender' "$f"
done
rm -f cover.jpg private.tmp.mov long.tmp.png

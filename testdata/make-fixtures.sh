#!/usr/bin/env bash
# Regenerates every fixture in testdata/. Needs: imagemagick ffmpeg libimage-exiftool-perl webp.
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
$IM quadrants.png BMP3:image.bmp
$IM quadrants.png -compress none image.tiff

rm -f quadrants.png
ls -la

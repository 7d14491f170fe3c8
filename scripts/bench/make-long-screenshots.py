#!/usr/bin/env python3
"""Long article screenshots beside the phone corpus's own, drawn as make-phone-corpus.sh draws its
screenshot-article.png: a 1170×9000 one of 27 px text and a 1179×20000 one of 28 px text.
usage: make-long-screenshots.py OUT_DIR   (needs Pillow and fonts-dejavu-core)"""
import sys, textwrap
from PIL import Image, ImageDraw, ImageFont

words = open('/usr/share/common-licenses/Apache-2.0').read().split()

def shot(w, h, name, size, step, wrap, repeat):
    font = ImageFont.truetype('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', size)
    im = Image.new('RGB', (w, h), (250, 250, 250))
    d = ImageDraw.Draw(im)
    y = 40
    for line in textwrap.wrap(' '.join(words * repeat), wrap):
        if y + step > h - 40:
            break
        d.text((40, y), line, font=font, fill=(20, 20, 20))
        y += step
    im.save(f'{sys.argv[1]}/{name}')

shot(1170, 9000, 'screenshot-9000.png', 27, 36, 72, 3)
shot(1179, 20000, 'screenshot-20000.png', 28, 38, 70, 6)

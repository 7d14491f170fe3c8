#!/usr/bin/env python3
"""A PDF of N distinct phone photos (testdata/photo.jpg, each with its own comment), for timing the
PDF rewrite beside qpdf's own: scripts/qa/make-big-pdf.py OUT.pdf [N] (115: 50 MB, 230: 100 MB)."""
import sys
import os
photo = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../testdata/photo.jpg"), "rb").read()
n = int(sys.argv[2]) if len(sys.argv) > 2 else 115
objs = [b"<< /Type /Catalog /Pages 2 0 R >>", None]
kids = []
for i in range(n):
    img = photo[:2] + b"\xff\xfe\x00\x10" + (b"copy %08d  " % i)[:14] + photo[2:]
    content = b"q 400 0 0 300 72 400 cm /Im1 Do Q BT /F1 12 Tf 72 72 Td (Page %d) Tj ET" % i
    base = len(objs) + 1
    objs.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R /Resources << /XObject << /Im1 %d 0 R >> /Font << /F1 %d 0 R >> >> >>" % (base + 1, base + 2, base + 3))
    objs.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    objs.append(b"<< /Type /XObject /Subtype /Image /Width 1200 /Height 900 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % len(img) + img + b"\nendstream")
    objs.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    kids.append(b"%d 0 R" % base)
objs[1] = b"<< /Type /Pages /Count %d /Kids [" % n + b" ".join(kids) + b"] >>"
objs.append(b"<< /Author (Jane Marker) >>")
out = bytearray(b"%PDF-1.7\n")
offs = []
for k, o in enumerate(objs, 1):
    offs.append(len(out)); out += b"%d 0 obj\n" % k + o + b"\nendobj\n"
x = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offs)
out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, len(objs), x)
open(sys.argv[1], "wb").write(out)

#!/usr/bin/env python3
"""Writes small hostile files into OUT_DIR (none of them is committed): animations whose canvas and
frame count multiply, HEIF derivation graphs that repeat and loop, TIFFs and JPEG XL files that claim
much, every picture format's header claiming more than the pixel cap, and files whose tags sat where mediaprep did not look. Only the standard library and the
committed fixtures are used. `scripts/qa/measure-hostile.sh OUT_DIR` runs probe, check and prepare on
each and prints peak memory, time, verdicts and exit status.

usage: make-hostile.py OUT_DIR [--big]   (--big adds the 46 MB million-frame WebP)
"""
import os, struct, sys, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "testdata")


def box(t, body):
    return struct.pack(">I", 8 + len(body)) + t.encode() + body


def full(t, version, flags, body):
    return box(t, bytes([version]) + flags.to_bytes(3, "big") + body)


def boxes(d, start, end):
    i = start
    while i + 8 <= end:
        size, t = struct.unpack(">I4s", d[i:i + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", d[i + 8:i + 16])[0], 16
        if size == 0:
            size = end - i
        yield t.decode("latin1"), i + header, i + size
        i += size


# ---- WebP -----------------------------------------------------------------------------------------

def chunk(fourcc, data):
    return fourcc.encode() + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")


def vp8l_1x1():
    """A lossless 1x1 VP8L bitstream (one green pixel) written bit by bit."""
    bits = []
    def put(v, n):
        bits.extend((v >> i) & 1 for i in range(n))
    put(0, 14); put(0, 14); put(0, 1); put(0, 3)  # width-1, height-1, alpha hint, version
    put(0, 1)                                      # no transform
    put(0, 1)                                      # no colour cache
    put(0, 1)                                      # no meta prefix codes
    for alphabet in range(5):                      # five simple prefix codes of one symbol each
        put(1, 1); put(0, 1)                       # simple code, one symbol
        symbol = 255 if alphabet == 0 else (255 if alphabet == 3 else 0)
        put(1, 1); put(symbol, 8)                  # 8-bit symbol
    out = bytearray()
    for i in range(0, len(bits), 8):
        out.append(sum(b << k for k, b in enumerate(bits[i:i + 8])))
    return b"\x2f" + bytes(out)


def animated_webp(canvas, frames, frame_size=1):
    frame = chunk("VP8L", vp8l_1x1())
    anmf = b"".join(chunk("ANMF", struct.pack("<I", 0)[:3] * 2 + (frame_size - 1).to_bytes(3, "little") * 2
                          + (100).to_bytes(3, "little") + b"\0" + frame) for _ in range(frames))
    vp8x = bytes([0x02, 0, 0, 0]) + (canvas - 1).to_bytes(3, "little") * 2
    body = b"WEBP" + chunk("VP8X", vp8x) + chunk("ANIM", b"\0\0\0\0\0\0") + anmf
    return b"RIFF" + struct.pack("<I", len(body)) + body


# ---- GIF ------------------------------------------------------------------------------------------

def lzw_zeros(count, min_code=2):
    """`count` pixels of colour 0, LZW-coded with a clear code every few codes so the code size stays
    at 3 bits (simple, not small: for the 1×1 frames here)."""
    clear, end = 1 << min_code, (1 << min_code) + 1
    codes, left = [clear], count
    while left > 0:
        n = min(left, 2)  # each 0 (then 00 once known) keeps the table small; clear often
        codes.append(0)
        left -= 1
        if len(codes) % 4 == 0:
            codes.append(clear)
    codes.append(end)
    out, acc, nbits = bytearray(), 0, 0
    for c in codes:
        acc |= c << nbits
        nbits += 3
        while nbits >= 8:
            out.append(acc & 0xFF); acc >>= 8; nbits -= 8
    if nbits:
        out.append(acc)
    blocks = b"".join(bytes([len(out[i:i + 255])]) + out[i:i + 255] for i in range(0, len(out), 255))
    return bytes([min_code]) + blocks + b"\0"


def gif(canvas, frames, frame_size=1):
    head = b"GIF89a" + struct.pack("<HH", canvas, canvas) + bytes([0xF0, 0, 0]) + b"\0\0\0\xff\xff\xff"
    loop = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\0\0\0"
    data = lzw_zeros(frame_size * frame_size)
    frame = b"\x21\xf9\x04\x00\x0a\x00\x00\x00" + b"\x2c" + struct.pack("<HHHH", 0, 0, frame_size, frame_size) + b"\0" + data
    return head + loop + frame * frames + b"\x3b"


# ---- HEIF -----------------------------------------------------------------------------------------

def heif_tile(path):
    """The first coded item of a HEIF file: its type, its coding property box and its bytes."""
    d = open(path, "rb").read()
    meta = next((s, e) for t, s, e in boxes(d, 0, len(d)) if t == "meta")
    inner = dict((t, (s, e)) for t, s, e in boxes(d, meta[0] + 4, meta[1]))
    types = {}
    s, e = inner["iinf"]
    for t, bs, be in boxes(d, s + 4 + (2 if d[s] == 0 else 4), e):  # the full box header, then the count
        if t == "infe":
            item = struct.unpack(">H", d[bs + 4:bs + 6])[0]
            types[item] = d[bs + 8:bs + 12].decode("latin1")
    coded = next(i for i, t in types.items() if t in ("hvc1", "av01"))
    s, e = inner["iloc"]
    version = d[s]
    at = s + 4
    sizes, more = d[at], d[at + 1]
    off_size, len_size, base_size = sizes >> 4, sizes & 15, more >> 4
    idx_size = more & 15 if version >= 1 else 0
    at += 2
    count = struct.unpack(">H", d[at:at + 2])[0]; at += 2
    def field(n):
        nonlocal at
        v = int.from_bytes(d[at:at + n], "big") if n else 0
        at += n
        return v
    data = None
    for _ in range(count):
        item = field(2)
        if version >= 1:
            field(2)
        field(2); base = field(base_size); extents = field(2)
        parts = []
        for _ in range(extents):
            field(idx_size); off = field(off_size); ln = field(len_size)
            parts.append(d[base + off:base + off + ln])
        if item == coded:
            data = b"".join(parts)
    s, e = inner["iprp"]
    ipco = next((bs, be) for t, bs, be in boxes(d, s, e) if t == "ipco")
    config = next(d[bs - 8:be] for t, bs, be in boxes(d, *ipco) if t in ("hvcC", "av1C"))
    return types[coded], config, data


def heif(brand, tile, graph, primary, width=64, height=64):
    """A HEIF of one coded tile (item 1) and derived items: graph = {id: (type, data, [refs], (w, h))}."""
    kind, config, coded = tile
    items = [(1, kind)] + [(i, g[0]) for i, g in sorted(graph.items())]
    props = [config, full("ispe", 0, 0, struct.pack(">II", width, height))]
    assoc = {1: [1, 2]}
    for i, g in sorted(graph.items()):
        props.append(full("ispe", 0, 0, struct.pack(">II", *g[3])))
        assoc[i] = [len(props)]
    idat = b""
    locations = {}
    for i, g in sorted(graph.items()):
        locations[i] = (1, len(idat), len(g[1]))
        idat += g[1]
    iinf = full("iinf", 0, 0, struct.pack(">H", len(items)) + b"".join(
        full("infe", 2, 0, struct.pack(">HH", i, 0) + t.encode() + b"\0") for i, t in items))
    iref = full("iref", 0, 0, b"".join(box("dimg", struct.pack(">HH", i, len(g[2])) + b"".join(struct.pack(">H", r) for r in g[2]))
                                       for i, g in sorted(graph.items())))
    ipma = full("ipma", 0, 1, struct.pack(">I", len(assoc)) + b"".join(
        struct.pack(">HB", i, len(p)) + b"".join(struct.pack(">H", 0x8000 | k) for k in p) for i, p in sorted(assoc.items())))
    iprp = box("iprp", box("ipco", b"".join(props)) + ipma)
    ftyp = box("ftyp", brand.encode() + b"\0\0\0\0" + b"mif1" + brand.encode())
    def meta_with(mdat_offset):
        entries = [(1, 0, mdat_offset, len(coded))] + [(i, m, o, n) for i, (m, o, n) in sorted(locations.items())]
        iloc = full("iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", len(entries)) + b"".join(
            struct.pack(">HHHHII", i, m, 0, 1, o, n) for i, m, o, n in entries))
        return full("meta", 0, 0, full("hdlr", 0, 0, b"\0\0\0\0pict" + b"\0" * 13) + full("pitm", 0, 0, struct.pack(">H", primary))
                    + iinf + iloc + box("idat", idat) + iref + iprp)
    size = len(ftyp) + len(meta_with(0)) + 8
    return ftyp + meta_with(size) + box("mdat", coded)


def grid(rows, cols, w, h):
    return bytes([0, 0, rows - 1, cols - 1]) + struct.pack(">HH", w, h)


def overlay(layers, w, h):
    return bytes([0, 0]) + b"\0\0" * 4 + struct.pack(">HH", w, h) + b"\0\0\0\0" * layers


# ---- PNG, TIFF, audio -----------------------------------------------------------------------------

def png_chunk(t, data):
    return struct.pack(">I", len(data)) + t + data + struct.pack(">I", zlib.crc32(t + data) & 0xFFFFFFFF)


def apng_1bit(size=64, frames=3):
    """A valid animation of 1-bit greyscale frames (stripes that move)."""
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 1, 0, 0, 0, 0))
    out += png_chunk(b"acTL", struct.pack(">II", frames, 0))
    seq = 0
    for f in range(frames):
        rows = b"".join(b"\0" + bytes([0xF0 >> (f % 4) | 0x0F << (4 - f % 4) & 0xFF]) * (size // 8) for _ in range(size))
        data = zlib.compress(rows)
        out += png_chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, size, size, 0, 0, 1, 5, 0, 0)); seq += 1
        if f == 0:
            out += png_chunk(b"IDAT", data)
        else:
            out += png_chunk(b"fdAT", struct.pack(">I", seq) + data); seq += 1
    return out + png_chunk(b"IEND", b"")


def tiff(width, height, bits=1, samples=1, photometric=1, compression=8, sample_format=1, extra=0, tile=None):
    """A little-endian TIFF of one strip (or one tile) of zeros, deflated."""
    row = (width * bits * samples + 7) // 8
    rows = height if tile is None else tile
    raw_len = row * rows if tile is None else ((tile * bits * samples + 7) // 8) * tile
    data = zlib.compress(b"\0" * raw_len, 9) if compression == 8 else b"\0" * raw_len
    entries = [(256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, bits), (259, 3, 1, compression), (262, 3, 1, photometric),
               (277, 3, 1, samples)]
    if tile is None:
        entries += [(273, 4, 1, 0), (278, 4, 1, height), (279, 4, 1, len(data))]
    else:
        entries += [(322, 4, 1, tile), (323, 4, 1, tile), (324, 4, 1, 0), (325, 4, 1, len(data))]
    if extra:
        entries.append((338, 3, 1, 0))
    if sample_format != 1:
        entries.append((339, 3, 1, sample_format))
    entries.sort()
    ifd_size = 2 + 12 * len(entries) + 4
    data_at = 8 + ifd_size
    out = b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    for tag, typ, count, value in entries:
        if tag in (273, 324):
            value = data_at
        out += struct.pack("<HHI", tag, typ, count) + (struct.pack("<HH", value, 0) if typ == 3 else struct.pack("<I", value))
    return out + b"\0\0\0\0" + data


def sensor_dng(w, h, tile=None, claimed_width=None):
    """A DNG of 16-bit RGGB sensor data alone, in one strip or in square tiles; its width as claimed."""
    def sample(x, y):
        return 64 + (x * 251 + y * 97) % 4000
    if tile:
        parts = [b"".join(struct.pack("<%dH" % tile, *[sample(tx + x, ty + y) for x in range(tile)]) for y in range(tile))
                 for ty in range(0, h, tile) for tx in range(0, w, tile)]
        data = b"".join(parts)
        layout = [(322, 4, [tile]), (323, 4, [tile]), (324, 4, [8 + i * len(parts[0]) for i in range(len(parts))]),
                  (325, 4, [len(parts[0])] * len(parts))]
    else:
        data = struct.pack("<%dH" % (w * h), *[sample(x, y) for y in range(h) for x in range(w)])
        layout = [(273, 4, [8]), (278, 4, [h]), (279, 4, [len(data)])]
    tags = sorted([(254, 4, [0]), (256, 4, [claimed_width or w]), (257, 4, [h]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]),
                   (277, 3, [1]), (284, 3, [1]), (33421, 3, [2, 2]), (33422, 1, [0, 1, 1, 2]), (50706, 1, [1, 4, 0, 0]),
                   (50714, 3, [64]), (50717, 4, [4095])] + layout)
    fmt = {1: "B", 3: "H", 4: "I"}
    ifd_at = 8 + len(data)
    extra_at = ifd_at + 2 + 12 * len(tags) + 4
    entries, extra = b"", b""
    for tag, kind, values in tags:
        payload = struct.pack("<%d%s" % (len(values), fmt[kind]), *values)
        where = payload.ljust(4, b"\0") if len(payload) <= 4 else struct.pack("<I", extra_at + len(extra))
        if len(payload) > 4:
            extra += payload
        entries += struct.pack("<HHI", tag, kind, len(values)) + where
    return b"II*\0" + struct.pack("<I", ifd_at) + data + struct.pack("<H", len(tags)) + entries + b"\0" * 4 + extra


def id3v2(text):
    body = b"TPE1" + struct.pack(">I", len(text) + 1) + b"\0\0\x03" + text
    size = len(body)
    return b"ID3\x03\0\0" + bytes([size >> 21 & 0x7F, size >> 14 & 0x7F, size >> 7 & 0x7F, size & 0x7F]) + body


def jxl_claiming(side):
    """quadrants.jxl (bare codestream, 64x48) with its 9-bit SizeHeader rewritten to side x side."""
    d = open(os.path.join(TESTDATA, "quadrants.jxl"), "rb").read()
    bits = [0, 0, 1] + [(side - 1) >> i & 1 for i in range(18)] + [1, 0, 0]
    bits += [d[2 + i // 8] >> (i % 8) & 1 for i in range(9, (len(d) - 2) * 8)]
    out = bytearray(b"\xff\x0a")
    for at in range(0, len(bits), 8):
        out.append(sum(b << k for k, b in enumerate(bits[at:at + 8])))
    return bytes(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    big = "--big" in sys.argv
    os.makedirs(out, exist_ok=True)
    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    write("webp-canvas-frames.webp", animated_webp(4096, 255))
    write("gif-canvas-frames.gif", gif(4096, 255))
    write("webp-many-frames.webp", animated_webp(1, 100_000))
    if big:
        write("webp-million-frames.webp", animated_webp(1, 1_000_000))
    hevc = heif_tile(os.path.join(TESTDATA, "orient-gps.heic"))
    av1 = heif_tile(os.path.join(TESTDATA, "quadrants.avif"))
    # A 100x100 grid of one overlay of 1,000 layers of one tile: 10 million decodes.
    write("heic-grid-of-overlays.heic", heif(
        "heic", hevc, {2: ("iovl", overlay(1000, 64, 64), [1] * 1000, (64, 64)),
                       3: ("grid", grid(100, 100, 6400, 6400), [2] * 10000, (6400, 6400))}, primary=3))
    write("heic-2x2-of-65535.heic", heif(
        "heic", hevc, {2: ("iovl", overlay(65535, 64, 64), [1] * 65535, (64, 64)),
                       3: ("grid", grid(2, 2, 128, 128), [2] * 4, (128, 128))}, primary=3))
    write("heic-overlay-65535.heic", heif("heic", hevc, {2: ("iovl", overlay(65535, 64, 64), [1] * 65535, (64, 64))}, primary=2))
    write("heic-self-grid.heic", heif("heic", hevc, {2: ("grid", grid(1, 2, 128, 64), [1, 2], (128, 64))}, primary=2))
    write("heic-loop.heic", heif("heic", hevc, {2: ("iovl", overlay(1, 64, 64), [3], (64, 64)),
                                                3: ("iovl", overlay(1, 64, 64), [2], (64, 64))}, primary=2))
    write("avif-grid-150.avif", heif("avif", av1, {2: ("grid", grid(150, 150, 150 * 64, 150 * 48), [1] * 22500, (150 * 64, 150 * 48))},
                                     primary=2, width=64, height=48))
    write("heic-good-grid.heic", heif("heic", hevc, {2: ("grid", grid(2, 2, 128, 128), [1] * 4, (128, 128))}, primary=2))
    write("apng-1bit.png", apng_1bit())
    write("tiff-1bit-10000.tif", tiff(10000, 10000))
    write("tiff-float.tif", tiff(4000, 4000, bits=32, samples=1, sample_format=3))
    write("tiff-cmyk-extra.tif", tiff(4000, 4000, bits=8, samples=5, photometric=5, extra=1))
    write("tiff-tile-16384.tif", tiff(16384, 16384, bits=8, samples=3, photometric=2, tile=16384))
    write("dng-tiled.dng", sensor_dng(64, 48, tile=16))
    write("dng-wide.dng", sensor_dng(64, 48, claimed_width=70000))
    mp3 = open(os.path.join(TESTDATA, "voice.mp3"), "rb").read()
    write("mp3-id3-after.mp3", mp3 + id3v2(b"Jane Sender"))
    wav = bytearray(open(os.path.join(TESTDATA, "voice.wav"), "rb").read())
    at = wav.find(b"data")
    wav[at + 4:at + 8] = struct.pack("<I", 0xF0000000)
    write("wav-data-4gb.wav", bytes(wav))
    mp4 = bytearray(open(os.path.join(TESTDATA, "h264.mp4"), "rb").read())
    at = mp4.find(b"stco")
    mp4[at + 8:at + 12] = struct.pack(">I", 1 << 31)
    write("mp4-stco-2g.mp4", bytes(mp4))
    # 9000x9000 claimed in 1.3 KB: libjxl 0.7 decodes a frame whole (490 MB for a real flat one).
    write("jxl-claims-9000.jxl", jxl_claiming(9000))
    # Each picture format's header claiming more than the pixel cap (FormatClaimTests builds the same).
    for name, data in header_claims():
        write(name, data)


def header_claims():
    def fixture(name):
        return bytearray(open(os.path.join(TESTDATA, name), "rb").read())
    png = fixture("rgb.png")
    png[16:24] = struct.pack(">II", 60000, 60000)
    png[29:33] = struct.pack(">I", zlib.crc32(bytes(png[12:29])))
    yield "claims.png", bytes(png)
    gif = fixture("still.gif")
    gif[6:10] = struct.pack("<HH", 65535, 65535)
    yield "claims-screen.gif", bytes(gif)
    webp = fixture("image.webp")
    at = webp.find(b"VP8 ") + 8 + 6
    webp[at:at + 4] = struct.pack("<HH", 16383, 16383)
    yield "claims.webp", bytes(webp)
    for name in ("orient-gps.heic", "quadrants.avif"):
        d = fixture(name)
        at = d.find(b"ispe")
        while at >= 0:
            d[at + 8:at + 16] = struct.pack(">II", 60000, 60000)
            at = d.find(b"ispe", at + 4)
        yield "claims-" + name, bytes(d)
    bmp = fixture("image.bmp")
    bmp[18:26] = struct.pack("<ii", 60000, 60000)
    yield "claims.bmp", bytes(bmp)
    jp2 = fixture("quadrants.jp2")
    at = jp2.find(b"\xff\x51") + 6
    jp2[at:at + 8] = struct.pack(">II", 60000, 60000)
    at = jp2.find(b"ihdr") + 4
    jp2[at:at + 8] = struct.pack(">II", 60000, 60000)
    yield "claims.jp2", bytes(jp2)
    yield "claims.qoi", b"qoif" + struct.pack(">II", 60000, 60000) + bytes([3, 0]) + b"\xfe\xff\0\0" + bytes(7) + b"\x01"


if __name__ == "__main__":
    main()

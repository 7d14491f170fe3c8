/// Identifies a file by its leading bytes, never by its name.
package enum FormatSniffer {
    /// How many leading bytes `sniff` looks at; callers may pass just this much.
    package static let headerLength = 64
    /// What telling an MPEG transport stream takes: three packets' sync bytes.
    package static let transportStreamLength = 4 + 2 * 192 + 1

    /// What the bytes are, by the first entry of `FormatRegistry` that recognises them.
    package static func sniff<C: Collection>(_ data: C) -> MediaFormat where C.Element == UInt8 {
        // The furthest any recogniser looks: an SVGZ's first 64 KiB, inflated.
        FormatRegistry.recognise(Array(data.prefix(1 << 16)))
    }

    /// What follows the ID3v2 tags a file starts with, when it is not MPEG audio: some taggers put one
    /// in front of a FLAC, which was then taken for an MP3 (its ID3 tag cut, its own comments kept).
    package static func behindID3(_ r: ByteReader) -> MediaFormat? {
        var at = 0
        for _ in 0..<64 {
            guard let h = try? r.read(at, 10), h.count == 10, Bytes.ascii(h, 0, 3) == "ID3", let total = ID3Frames.tagLength(h) else { break }
            at += total
        }
        guard at > 0, let magic = try? r.read(at, 4), magic.count == 4 else { return nil }
        return Bytes.ascii(magic, 0, 4) == "fLaC" ? .flac : nil
    }

    /// How far an SVG's root element is looked for: past an XML declaration, comments (Illustrator's
    /// "Generator" line) and a DOCTYPE with its entities.
    static let svgLength = 8192

    /// A page whose first tag (past a BOM, white space and comments) is `<!DOCTYPE html` or `<html`.
    static func isHTML<C: Collection>(_ data: C) -> Bool where C.Element == UInt8 {
        var d = ArraySlice(Array(data))
        if d.starts(with: [0xEF, 0xBB, 0xBF]) { d = d.dropFirst(3) }
        while true {
            d = d.drop { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
            guard d.starts(with: Array("<!--".utf8)) else { break }
            guard let end = SVGTags.find("-->", in: Array(d), from: 4) else { return false }
            d = d.dropFirst(end + 3)
        }
        let start = String(decoding: d.prefix(14), as: UTF8.self).lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html")
    }

    /// XML whose root element is `svg` (or `svg:svg`): a BOM, white space, declarations, comments and
    /// a DOCTYPE may come first, nothing else.
    static func isSVG<C: Collection>(_ data: C) -> Bool where C.Element == UInt8 {
        let d = Array(data)
        var i = d.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skip(past end: String) -> Bool {
            guard let e = SVGTags.find(end, in: d, from: i) else { return false }
            i = e + end.utf8.count
            return true
        }
        while i < d.count {
            if [0x20, 0x09, 0x0A, 0x0D].contains(d[i]) { i += 1; continue }
            guard d[i] == 0x3C, i + 1 < d.count else { return false }
            let rest = d[(i + 1)...]
            if rest.starts(with: Array("?".utf8)) { guard skip(past: "?>") else { return false }; continue }
            if rest.starts(with: Array("!--".utf8)) { guard skip(past: "-->") else { return false }; continue }
            if rest.starts(with: Array("!DOCTYPE".utf8)) { i = SVGTags.declarationEnd(d, from: i) + 1; continue }
            for root in ["svg", "svg:svg"] where rest.starts(with: Array(root.utf8)) {
                let after = i + 1 + root.utf8.count
                if after < d.count, [0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F].contains(d[after]) { return true }
            }
            return false
        }
        return false
    }

    /// What telling bare ADTS or MPEG audio takes: two frames (the longest MPEG audio frame is
    /// 2,881 bytes, Layer II at 384 kbit/s and 8 kHz; an ADTS frame may claim up to 8,191).
    package static let audioFramesLength = 8_192 + 4

    /// Whether a second frame header starts where the first frame ends, by the format's `length` of a
    /// header at an offset, and `same` says it is of the same stream (given where it starts).
    static func followedByFrame(_ b: [UInt8], length: ([UInt8], Int) -> Int?, same: (Int) -> Bool = { _ in true }) -> Bool {
        guard let first = length(b, 0), first > 0, b.count >= first + 4 else { return false }
        return length(b, first) != nil && same(first)
    }

    /// An ADTS frame's length from its header at `at` (sync, layer 00, a sample rate index that exists).
    static func adtsFrameLength(_ b: [UInt8], _ at: Int) -> Int? {
        guard b.count >= at + 7, b[at] == 0xFF, b[at + 1] & 0xF6 == 0xF0, (b[at + 2] >> 2) & 0x0F < 13 else { return nil }
        let length = Int(b[at + 3] & 3) << 11 | Int(b[at + 4]) << 3 | Int(b[at + 5] >> 5)
        return length >= 7 ? length : nil
    }

    /// An AC-3 frame's length from its header at `at`: sync, a bsid of AC-3's (≤ 10), a sample rate
    /// and a frame size code that exist (ATSC A/52 table 5.18: 2 words a kbit/s at 48 kHz, 3 at 32,
    /// 320/147 rounded down at 44.1, a word more for its odd codes).
    static func ac3FrameLength(_ b: [UInt8], _ at: Int) -> Int? {
        guard b.count >= at + 6, b[at] == 0x0B, b[at + 1] == 0x77, b[at + 5] >> 3 <= 10 else { return nil }
        let (rate, code) = (Int(b[at + 4] >> 6), Int(b[at + 4] & 0x3F))
        guard rate != 3, code < 38 else { return nil }
        let kbits = [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 576, 640][code / 2]
        return 2 * (rate == 0 ? 2 * kbits : rate == 2 ? 3 * kbits : kbits * 320 / 147 + (code & 1))
    }

    /// A DTS core frame's length from its header at `at`: the 32-bit sync in big- or little-endian
    /// 16-bit words, and a frame size that exists (96–16,384 bytes).
    static func dtsFrameLength(_ b: [UInt8], _ at: Int) -> Int? {
        guard b.count >= at + 8 else { return nil }
        let big = b[at] == 0x7F && b[at + 1] == 0xFE && b[at + 2] == 0x80 && b[at + 3] == 0x01
        guard big || (b[at] == 0xFE && b[at + 1] == 0x7F && b[at + 2] == 0x01 && b[at + 3] == 0x80) else { return nil }
        let w = big ? Array(b[(at + 4)..<(at + 8)]) : [b[at + 5], b[at + 4], b[at + 7], b[at + 6]]
        let length = (Int(w[1] & 3) << 12 | Int(w[2]) << 4 | Int(w[3] >> 4)) + 1
        return length >= 96 ? length : nil
    }

    /// An E-AC-3 frame's length from its header at `at`: sync, a bsid of E-AC-3's (11–16), a sample
    /// rate code that exists.
    static func eac3FrameLength(_ b: [UInt8], _ at: Int) -> Int? {
        guard b.count >= at + 6, b[at] == 0x0B, b[at + 1] == 0x77, (11...16).contains(b[at + 5] >> 3),
              b[at + 4] >> 4 != 0xF else { return nil }  // fscod 3 with fscod2 3 is reserved
        return (Int(b[at + 2] & 7) << 8 | Int(b[at + 3]) + 1) * 2
    }

    /// An MPEG audio frame's length from its header at `at`, or nil where a field is reserved or the
    /// bit rate is free (no length to check).
    static func mpegFrameLength(_ b: [UInt8], _ at: Int) -> Int? {
        guard let h = MPEGAudioHeader(b, at: at), h.emphasis != 2 else { return nil }
        return h.length
    }
}

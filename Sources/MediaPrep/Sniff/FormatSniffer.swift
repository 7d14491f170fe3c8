/// Identifies a file by its leading bytes, never by its name.
package enum FormatSniffer {
    /// How many leading bytes `sniff` looks at; callers may pass just this much.
    package static let headerLength = 64
    /// What telling an MPEG transport stream takes: three packets' sync bytes.
    package static let transportStreamLength = 4 + 2 * 192 + 1

    package static func sniff<C: Collection>(_ data: C) -> MediaFormat where C.Element == UInt8 {
        let b = Array(data.prefix(headerLength))
        func at(_ offset: Int, _ ascii: String) -> Bool {
            let bytes = Array(ascii.utf8)
            guard b.count >= offset + bytes.count else { return false }
            return Array(b[offset..<offset + bytes.count]) == bytes
        }
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + bytes.count && Array(b[offset..<offset + bytes.count]) == bytes
        }
        func le(_ offset: Int, _ n: Int) -> Int { Bytes.le(b, offset, n) }

        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if at(0, "GIF87a") || at(0, "GIF89a") { return .gif }
        if at(0, "RIFF") && at(8, "WEBP") { return .webp }
        if at(0, "RIFF") && at(8, "WAVE") { return .wav }
        if at(0, "RIFF") && at(8, "AVI ") { return .avi }
        if starts([0x46, 0x4C, 0x56, 0x01]) { return .flv }  // "FLV", version 1
        if starts([0x00, 0x00, 0x01, 0xBA]) { return .mpegps }  // an MPEG-1/2 pack header
        // ASF's Header Object GUID, 75B22630-668E-11CF-A6D9-00AA0062CE6C, as stored.
        if starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]) { return .asf }
        // RealMedia (and RealAudio in it): ".RMF", a header chunk of the size it has (18, or 16 in
        // its first version) and an object version of 0 or 1 (text may start ".RMF is…").
        if at(0, ".RMF"), b.count >= 10, (16...64).contains(Bytes.be(b, 4, 4)), Bytes.be(b, 8, 2) <= 1 { return .realMedia }
        // MXF: a header partition pack's SMPTE key.
        if starts([0x06, 0x0E, 0x2B, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0D, 0x01, 0x02, 0x01, 0x01, 0x02]) { return .mxf }
        // DV: a DIF sequence's header block (525/60 or 625/50), then its first subcode block 80 bytes on.
        if starts([0x1F, 0x07, 0x00]), b.count >= 4, b[3] & 0x7F == 0x3F {
            let blocks = Array(data.prefix(84))
            if blocks.count >= 83, blocks[80] == 0x3F, blocks[81] == 0x07, blocks[82] == 0x00 { return .dv }
        }
        if at(0, "#!AMR\n") || at(0, "#!AMR-WB\n") { return .amr }
        if at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")) { return .aiff }
        if at(0, "caff") && b.count >= 8 && b[4] == 0 && b[5] == 1 { return .caf }  // version 1
        if at(0, "wvpk") { return .wavpack }
        // Text may start with these letters ("MAC address list"): the version or format after them too.
        if at(0, "MAC "), b.count >= 6, (3_800...4_200).contains(le(4, 2)) { return .ape }
        if at(0, "TTA1"), b.count >= 6, (1...3).contains(le(4, 2)) { return .tta }
        // An AC-3 sync frame: a bsid of AC-3's (≤ 10), a sample rate and frame size code that exist.
        if starts([0x0B, 0x77]), Self.ac3FrameLength(b, 0) != nil { return .ac3 }
        // E-AC-3's bsid (11–16) is what lowercase text would read as: a second frame must follow where
        // the first's size says it ends.
        if starts([0x0B, 0x77]), Self.eac3FrameLength(b, 0) != nil,
           Self.followedByFrame(Array(data.prefix(audioFramesLength)), length: Self.eac3FrameLength) { return .eac3 }
        // DTS: its core's 32-bit sync (in big- or little-endian 16-bit words) and a frame size that exists.
        if Self.dtsFrameLength(b, 0) != nil { return .dts }
        // Dolby TrueHD and MLP: a major sync four bytes in.
        if starts([0xF8, 0x72, 0x6F, 0xBA], at: 4) || starts([0xF8, 0x72, 0x6F, 0xBB], at: 4) { return .truehd }
        // "BM" starts plenty of text ("BMW is…", a .txt refused as a damaged bitmap): the DIB header's
        // size must be one of the seven that exist, and its plane count 1.
        if at(0, "BM"), b.count >= 30, [12, 40, 52, 56, 64, 108, 124].contains(le(14, 4)), le(le(14, 4) == 12 ? 22 : 26, 2) == 1 {
            return .bmp
        }
        // Camera raws with a magic of their own: Canon CR2 (a TIFF with "CR", version 2), Olympus ORF,
        // Panasonic RW2, Fujifilm RAF, Phase One IIQ (a TIFF with "IIII" after its header), Canon CRW
        // (a CIFF heap), Minolta MRW, Sigma X3F. (CR3 is an ISO file of brand `crx `.) The last four
        // were unknown files, sent as they were with the camera's model and serial number (exiftool's
        // own samples of each).
        if starts([0x49, 0x49, 0x2A, 0x00]) && at(8, "CR") && b.count > 10 && b[10] == 2 { return .cameraRaw }
        if starts([0x49, 0x49, 0x2A, 0x00]) && at(8, "IIII") { return .cameraRaw }
        if at(0, "IIRO") || at(0, "IIRS") || at(0, "MMOR") || starts([0x49, 0x49, 0x55, 0x00]) || at(0, "FUJIFILMCCD-RAW ") { return .cameraRaw }
        if (starts([0x49, 0x49, 0x1A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x1A])) && at(6, "HEAPCCDR") { return .cameraRaw }
        // X3F's "FOVb" is text too ("FOVbased…"): its version follows, two small 16-bit numbers.
        if starts([0x00, 0x4D, 0x52, 0x4D]) || (at(0, "FOVb") && b.count >= 8 && b[4] < 0x10 && b[5] == 0 && b[6] < 0x10 && b[7] == 0) { return .cameraRaw }
        // Photoshop: "8BPS", version 1 (PSD) or 2 (PSB), six reserved zero bytes.
        if at(0, "8BPS"), b.count >= 12, [1, 2].contains(Bytes.be(b, 4, 2)), b[6..<12].allSatisfy({ $0 == 0 }) { return .psd }
        // GIMP: "gimp xcf ", a version ("file", "v001"…) and its terminating zero.
        if at(0, "gimp xcf "), b.count >= 14, b[13] == 0 { return .xcf }
        if b.count >= 32, Array(b.prefix(32)) == MetadataRewrite.pspSignature { return .psp }
        // OpenEXR's magic and version 2; DPX's in either byte order, then its version ("V1.0", "V2.0");
        // FITS's first card, SIMPLE = T.
        if starts([0x76, 0x2F, 0x31, 0x01]), b.count >= 8, b[4] == 2 { return .exr }
        if at(0, "SDPX") || at(0, "XPDS"), at(8, "V") || at(8, "v") { return .dpx }
        if at(0, "SIMPLE  ="), b.count >= 30, b[29] == 0x54, b[9..<29].allSatisfy({ $0 == 0x20 }) { return .fits }
        // Classic TIFF (42), and BigTIFF (43: 8-byte offsets, for scans and maps past 4 GB).
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) {
            return .tiff
        }
        if at(4, "ftyp") { return isoBrand(b) }
        // QuickTime from before `ftyp` (cameras' MJPEG clips, old Apple movies): a movie, media data,
        // or the padding atoms QuickTime put first. It was an unknown file, sent with its dates. The
        // atom's size must be one, 64-bit, or under 512 MiB, whose first byte no text starts with
        // ("Get free…" would read as a 1.2 GB `free` atom).
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { at(4, $0) }), b[0] < 0x20, Bytes.be(b, 0, 4) >= 8 || Bytes.be(b, 0, 4) == 1 {
            return .mov
        }
        // JPEG 2000: the JP2 signature box, or a bare codestream (SOC then SIZ).
        if starts([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) || starts([0xFF, 0x4F, 0xFF, 0x51]) { return .jp2 }
        // JPEG XL: a bare codestream, or the ISO container's signature box.
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) {
            // The EBML DocType sits in the first few dozen bytes.
            let webm = Array("webm".utf8)
            if b.count >= 4, (0...(b.count - 4)).contains(where: { Array(b[$0..<$0 + 4]) == webm }) {
                return .webm
            }
            return .matroska
        }
        if at(0, "OggS") { return .ogg }
        if at(0, "fLaC") { return .flac }
        if at(0, "ID3"), b.count >= 10, (2...4).contains(b[3]), b[4] != 0xFF { return .mp3 }  // ID3v2.2–2.4
        // Bare ADTS or MPEG audio (no ID3 before it): a frame sync is two bytes any file may start with
        // (a UTF-16 text file's FF FE reads as MPEG-1 Layer I), so the next frame must follow where the
        // first one's header says it ends (`audioFramesLength`).
        if b.count >= 2, b[0] == 0xFF {
            let frames = Array(data.prefix(audioFramesLength))
            if b[1] & 0xF6 == 0xF0, Self.followedByFrame(frames, length: Self.adtsFrameLength) { return .aac }
            // The same version, layer and sample rate.
            if b[1] & 0xE0 == 0xE0, Self.followedByFrame(frames, length: Self.mpegFrameLength, same: { frames[$0 + 1] & 0xFE == b[1] & 0xFE && frames[$0 + 2] & 0x0C == b[2] & 0x0C }) {
                return .mp3
            }
        }
        // MPEG-TS: a sync byte every 188 bytes, three times; AVCHD's M2TS puts a 4-byte time stamp
        // before each: told past the first 64 bytes (`transportStreamLength`), as bare audio is by two frames.
        let ts = Array(data.prefix(transportStreamLength))
        for (first, size) in [(0, 188), (4, 192)] where ts.count > first + 2 * size && (0..<3).allSatisfy({ ts[first + $0 * size] == 0x47 }) {
            return .mpegts
        }
        // DICOM: a 128-byte preamble, then "DICM" (past the 64 bytes the magics above look at).
        if data.count >= 132, Array(data.dropFirst(128).prefix(4)) == Array("DICM".utf8) { return .dicom }
        // PDF: "%PDF-" within the first 64 bytes (readers accept a little junk before it).
        if b.count >= 8, (0...(b.count - 5)).contains(where: { b[$0] == 0x25 && Array(b[$0..<$0 + 5]) == Array("%PDF-".utf8) }) { return .pdf }
        // ZIP: a local file header, or the end record of an empty archive. Its family (DOCX, ODT, EPUB…)
        // is told from its members when opened.
        if starts([0x50, 0x4B, 0x03, 0x04]) || starts([0x50, 0x4B, 0x05, 0x06]) { return .zip }
        // POSIX and GNU tar: "ustar" at 257 in the first header.
        if data.count >= 263, Array(data.dropFirst(257).prefix(5)) == Array("ustar".utf8) { return .tar }
        if isSVG(data.prefix(svgLength)) { return .svg }
        if isHTML(data.prefix(svgLength)) { return .html }
        // SVGZ: gzip whose start inflates to an SVG's (a .tar.gz or a gzipped log is no drawing).
        if Gzip.isGzip(b), isSVG(Gzip.inflatePrefix(Array(data.prefix(1 << 16)), limit: svgLength)) { return .svgz }
        return .unknown
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

    /// ISO base media files share `ftyp`; the major brand tells QuickTime and audio-only apart.
    private static func isoBrand(_ b: [UInt8]) -> MediaFormat {
        guard b.count >= 12 else { return .mp4 }
        let brand = String(decoding: b[8..<12], as: UTF8.self)
        switch brand {
        case "qt  ": return .mov
        case "M4A ", "M4B ", "M4P ", "F4A ": return .m4a
        case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
        case "avif", "avis": return .avif
        case "crx ": return .cameraRaw
        case "mif1", "msf1":
            // The generic HEIF brand: AVIF files list `avif` among the compatible brands.
            let avif = Array("avif".utf8)
            return stride(from: 12, through: b.count - 4, by: 4).contains { Array(b[$0..<$0 + 4]) == avif } ? .avif : .heic
        default: return .mp4
        }
    }
}

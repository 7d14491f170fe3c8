/// ISO base media files (MP4, MOV, M4A; HEIC, AVIF and CR3 by brand) and QuickTime from before `ftyp`.
enum ISOFormats {
    static let ftyp = FormatEntry(formats: [.mp4, .mov, .m4a, .heic, .avif, .cameraRaw], recognise: { h in
        h.at(4, "ftyp") ? brand(h.b) : nil
    }, rewrite: isoRewrite)
        .picture(.heic, .avif, decoder: .heif) { data, _, orientation in MetadataRewrite.heif(data, orientation: orientation) }
    /// QuickTime from before `ftyp` (cameras' MJPEG clips, old Apple movies): a movie, media data,
    /// or the padding atoms QuickTime put first. It was an unknown file, sent with its dates. The
    /// atom's size must be one, 64-bit, or under 512 MiB, whose first byte no text starts with
    /// ("Get free…" would read as a 1.2 GB `free` atom).
    static let quickTime = FormatEntry(formats: [.mov], recognise: { h in
        ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { h.at(4, $0) }) && h.b[0] < 0x20
            && (Bytes.be(h.b, 0, 4) >= 8 || Bytes.be(h.b, 0, 4) == 1) ? .mov : nil
    }, rewrite: isoRewrite)

    private static let isoRewrite: @Sendable (ByteReader, MediaFormat) throws -> MetadataRewrite? = { r, format in
        [.mp4, .mov, .m4a].contains(format) ? try MP4MetadataStripper.rewrite(r) : nil
    }

    /// The major brand tells QuickTime, audio only and the HEIF pictures apart.
    static func brand(_ b: [UInt8]) -> MediaFormat {
        guard b.count >= 12 else { return .mp4 }
        switch String(decoding: b[8..<12], as: UTF8.self) {
        case "qt  ": return .mov
        case "M4A ", "M4B ", "M4P ", "F4A ": return .m4a
        case "heic", "heix", "hevc", "hevx", "heim", "heis": return .heic
        case "avif", "avis": return .avif
        case "crx ": return .cameraRaw
        case "mif1", "msf1":
            // The generic HEIF brand: AVIF files list `avif` among the compatible brands.
            let avif = Array("avif".utf8)
            return stride(from: 12, through: b.count - 4, by: 4).contains { b[$0..<$0 + 4].elementsEqual(avif) } ? .avif : .heic
        default: return .mp4
        }
    }
}

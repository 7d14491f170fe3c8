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
        func starts(_ bytes: [UInt8]) -> Bool {
            b.count >= bytes.count && Array(b[0..<bytes.count]) == bytes
        }

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
        if at(0, "#!AMR\n") || at(0, "#!AMR-WB\n") { return .amr }
        if at(0, "FORM") && (at(8, "AIFF") || at(8, "AIFC")) { return .aiff }
        if at(0, "caff") && b.count >= 8 && b[4] == 0 && b[5] == 1 { return .caf }  // version 1
        if at(0, "wvpk") { return .wavpack }
        if at(0, "MAC ") { return .ape }
        if at(0, "TTA1") { return .tta }
        // An AC-3 sync frame: a bsid of AC-3's (≤ 10), a sample rate and frame size code that exist.
        // (E-AC-3's bsid, 11–16, is what lowercase text would read as: not sniffed.)
        if starts([0x0B, 0x77]) && b.count >= 8, b[5] >> 3 <= 10, b[4] >> 6 != 3, b[4] & 0x3F < 38 { return .ac3 }
        if at(0, "BM") && b.count >= 26 { return .bmp }
        // Classic TIFF (42), and BigTIFF (43: 8-byte offsets, for scans and maps past 4 GB).
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) {
            return .tiff
        }
        if at(4, "ftyp") { return isoBrand(b) }
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
        if at(0, "ID3") { return .mp3 }
        if b.count >= 2, b[0] == 0xFF {
            if b[1] & 0xF6 == 0xF0 { return .aac }  // ADTS: sync word with layer 00
            if b[1] & 0xE0 == 0xE0 && b[1] & 0x06 != 0 { return .mp3 }  // MPEG audio frame sync
        }
        // MPEG-TS: a sync byte every 188 bytes, three times; AVCHD's M2TS puts a 4-byte time stamp
        // before each. The only format told past the first 64 bytes (`transportStreamLength`).
        let ts = Array(data.prefix(transportStreamLength))
        for (first, size) in [(0, 188), (4, 192)] where ts.count > first + 2 * size && (0..<3).allSatisfy({ ts[first + $0 * size] == 0x47 }) {
            return .mpegts
        }
        return .unknown
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
        case "mif1", "msf1":
            // The generic HEIF brand: AVIF files list `avif` among the compatible brands.
            let avif = Array("avif".utf8)
            return stride(from: 12, through: b.count - 4, by: 4).contains { Array(b[$0..<$0 + 4]) == avif } ? .avif : .heic
        default: return .mp4
        }
    }
}

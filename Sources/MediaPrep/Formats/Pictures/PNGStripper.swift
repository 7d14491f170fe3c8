import CPng
/// A PNG that fits the budget sent with its own image data: the chunks that describe the pixels kept
/// (IHDR, PLTE, tRNS, IDAT, IEND, gAMA, sRGB, sBIT, bKGD, pHYs), everything else, text, Exif,
/// timestamps, profiles and unknown chunks, cut out. Pixels bit-identical.
enum PNGStripper {
    static let kept: Set<String> = ["IHDR", "PLTE", "tRNS", "IDAT", "IEND", "gAMA", "sRGB", "sBIT", "bKGD", "pHYs"]

    /// What would be cut out, as `check` reports it ("text", "Exif", …); empty for a clean PNG.
    static func removals(_ data: [UInt8]) -> [String] {
        var kinds: [String] = []
        for c in PNGChunks.chunks(data) where !kept.contains(c.type) {
            let kind: String
            switch c.type {
            case "tEXt", "zTXt", "iTXt": kind = "text"
            case "eXIf": kind = "Exif"
            case "iCCP": kind = "ICC profile"
            case "tIME": kind = "timestamp"
            default: kind = "other chunks"
            }
            if !kinds.contains(kind) { kinds.append(kind) }
        }
        return kinds
    }

    /// The chunks that say who, when and where rather than how the pixels look: what a PNG sent with
    /// its own bytes as a file loses (`MetadataRewrite.picture`), and an APNG's frames are read
    /// without. `caBX`: a C2PA manifest (Content Credentials), whose claims may name the signer.
    static let metadata: Set<String> = ["tEXt", "zTXt", "iTXt", "eXIf", "tIME", "caBX"]

    /// The PNG without its metadata chunks (nil when it is not a whole PNG).
    static func strip(_ data: [UInt8]) -> [UInt8]? { keeping(data) { kept.contains($0) } }

    /// The PNG with only the chunks whose type `keep` accepts (nil when it is not a whole PNG).
    /// One chunk: length, type, body and its CRC (zlib's, over type and body).
    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        let crc = typed.withUnsafeBufferPointer { CPng.crc32(0, $0.baseAddress, UInt32($0.count)) }
        return Bytes.be32(body.count) + typed + Bytes.be32(Int(crc))
    }

    static func keeping(_ data: [UInt8], _ keep: (String) -> Bool) -> [UInt8]? {
        let chunks = PNGChunks.chunks(data)
        guard chunks.first?.type == "IHDR", chunks.last?.type == "IEND" else { return nil }
        var out = Array(data[0..<8])
        for c in chunks where keep(c.type) { out += data[(c.body.lowerBound - 8)..<(c.body.upperBound + 4)] }
        return out
    }
}

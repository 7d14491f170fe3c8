import CPng
/// A PNG that fits the budget sent with its own image data: the chunks that describe the pixels kept
/// (IHDR, PLTE, tRNS, IDAT, IEND, gAMA, sRGB, sBIT, bKGD, pHYs), everything else, text, Exif,
/// timestamps, profiles and unknown chunks, cut out. Pixels bit-identical.
enum PNGStripper {
    static let kept: Set<String> = ["IHDR", "PLTE", "tRNS", "IDAT", "IEND", "gAMA", "sRGB", "sBIT", "bKGD", "pHYs"]

    /// Chunks cut that describe how the pixels look or move, not who made them: the colour step reads
    /// them (and `strip` is used only when the colours are sRGB's), or an APNG's frames.
    static let describing: Set<String> = ["cHRM", "cICP", "mDCv", "cLLi", "sPLT", "hIST", "acTL", "fcTL", "fdAT"]

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
        let crc = typed.withUnsafeBufferPointer { PNGLibrary.zlib.crc32(0, $0.baseAddress, UInt32($0.count)) }
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

extension PictureMetadata {
    /// What `PNGStripper.strip` cuts, chunk by chunk, in `check`'s words: eXIf (with GPS in it),
    /// text (XMP by its keyword), iCCP, tIME, other chunks, and the bytes after IEND.
    package init(png data: [UInt8]) {
        self.init(blocks: "chunks")
        for c in PNGChunks.chunks(data) {
            switch c.type {
            case "IEND": trailingBytes = data.count - (c.body.upperBound + 4)
            case _ where PNGStripper.kept.contains(c.type): break
            case "eXIf":
                exif = true
                if Self.hasGPS(data[c.body]) { gps = true }
            case "tEXt", "zTXt", "iTXt":
                let keyword = String(decoding: data[c.body].prefix { $0 != 0 }, as: UTF8.self)
                if keyword == "XML:com.adobe.xmp" { xmp = true } else { text = true }
            case "iCCP": iccProfile = true
            case "tIME": timestamp = true
            case _ where PNGStripper.describing.contains(c.type): unreported = true
            default: other = true
            }
        }
    }
}

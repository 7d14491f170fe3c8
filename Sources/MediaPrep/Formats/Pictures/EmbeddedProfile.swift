import CPng

/// Where the profiles are: JPEG APP2 segments (a profile over 64 KB spans several), PNG iCCP — or,
/// for a PNG, the chunks that name its colours without a profile (cICP, cHRM).
enum EmbeddedProfile {
    /// `ICC_PROFILE\0`, sequence number, count, then the bytes: joined in sequence order.
    static func fromJPEG(_ data: [UInt8], markers: JPEGMarkers) -> [UInt8]? {
        let tag = Array("ICC_PROFILE\0".utf8)
        var parts: [(Int, ArraySlice<UInt8>)] = []
        for s in markers.segments where s.marker == 0xE2 && s.payload.count > tag.count + 2 {
            let start = s.payload.lowerBound
            guard Array(data[start..<start + tag.count]) == tag else { continue }
            parts.append((Int(data[start + tag.count]), data[(start + tag.count + 2)..<s.payload.upperBound]))
        }
        guard !parts.isEmpty else { return nil }
        return parts.sorted { $0.0 < $1.0 }.flatMap { $0.1 }
    }

    /// A PNG's colours, in the PNG (third edition) order of precedence: cICP, iCCP, sRGB, cHRM.
    /// Returns a profile to inspect and what to call it; nil when the file is sRGB or says nothing.
    static func ofPNG(_ data: [UInt8]) -> (profile: [UInt8], name: String?)? {
        let chunks = PNGChunks.chunks(data).prefix { $0.type != "IDAT" }
        if let c = chunks.first(where: { $0.type == "cICP" }), c.body.count >= 4 {
            // Colour primaries (H.273): 1 BT.709/sRGB, 12 Display P3, 9 BT.2020; SDR transfers only.
            let primaries = data[c.body.lowerBound], transfer = data[c.body.lowerBound + 1]
            return SynthesizedProfile.forCodePoints(primaries: Int(primaries), transfer: Int(transfer)).map { ($0.profile, "\($0.name) (cICP)") }
        }
        if let icc = fromPNG(data) { return (icc, nil) }
        if chunks.contains(where: { $0.type == "sRGB" }) { return nil }
        if let c = chunks.first(where: { $0.type == "cHRM" }), c.body.count == 32 {
            func v(_ i: Int) -> Double {
                let o = c.body.lowerBound + 4 * i
                return Double(Int(data[o]) << 24 | Int(data[o + 1]) << 16 | Int(data[o + 2]) << 8 | Int(data[o + 3])) / 100_000
            }
            return SynthesizedProfile.synthesized(red: (v(2), v(3)), green: (v(4), v(5)), blue: (v(6), v(7)), white: (v(0), v(1)))
                .map { ($0, "the PNG's cHRM primaries") }
        }
        return nil
    }

    /// JPEG 2000 (JP2): the first `colr` box in the header box (`jp2h`), when it holds a profile (method
    /// 2, restricted, or 3, any ICC) rather than naming sRGB or gray (method 1). FFmpeg's decoder reads
    /// no profile: a scanner's or macOS Preview's Display P3 JP2 came out with P3 numbers as sRGB.
    static func fromJP2(_ data: [UInt8]) -> [UInt8]? {
        guard let top = PictureBoxes.children(data, 0..<data.count, topLevel: true),
              let header = top.boxes.first(where: { $0.type == "jp2h" }),
              let colr = PictureBoxes.children(data, header.body, topLevel: false)?.boxes.first(where: { $0.type == "colr" }),
              colr.body.count > 3, [2, 3].contains(data[colr.body.lowerBound]) else { return nil }
        return Array(data[(colr.body.lowerBound + 3)..<colr.body.upperBound])
    }

    /// iCCP: a name, a NUL, compression method 0, then the zlib-compressed profile (before IDAT).
    static func fromPNG(_ data: [UInt8]) -> [UInt8]? {
        guard let chunk = PNGChunks.chunks(data).first(where: { $0.type == "iCCP" || $0.type == "IDAT" }), chunk.type == "iCCP",
              let nul = data[chunk.body].firstIndex(of: 0), nul + 2 < chunk.body.upperBound, data[nul + 1] == 0 else { return nil }
        let compressed = Array(data[(nul + 2)..<chunk.body.upperBound])
        var out = [UInt8](repeating: 0, count: 4 << 20)  // profiles are KBs; 4 MB bounds a zip bomb
        let n = compressed.withUnsafeBufferPointer { c in
            out.withUnsafeMutableBufferPointer { o in cpng_inflate(c.baseAddress, c.count, o.baseAddress, o.count) }
        }
        return n > 0 ? Array(out.prefix(n)) : nil
    }
}

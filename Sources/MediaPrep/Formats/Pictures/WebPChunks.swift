/// A WebP's RIFF chunks (fourcc, little-endian size, body, a pad byte to even), walked in one place
/// for its metadata (`PictureMetadata(webp:)`) and its colour profile.
enum WebPChunks {
    /// Each chunk after the `RIFF size WEBP` header, its body cut at the end of the data.
    static func chunks(_ data: [UInt8]) -> [(tag: String, body: Range<Int>)] {
        var out: [(tag: String, body: Range<Int>)] = []
        var at = 12
        while at + 8 <= data.count {
            let tag = String(decoding: data[at..<at + 4], as: UTF8.self)
            let size = Int(data[at + 4]) | Int(data[at + 5]) << 8 | Int(data[at + 6]) << 16 | Int(data[at + 7]) << 24
            out.append((tag, (at + 8)..<min(data.count, at + 8 + size)))
            at += 8 + size + (size & 1)
        }
        return out
    }

    /// The ICCP chunk's profile (an extended-format file's), whole.
    static func iccProfile(_ data: [UInt8]) -> [UInt8]? {
        guard let c = chunks(data).first(where: { $0.tag == "ICCP" }), !c.body.isEmpty else { return nil }
        return Array(data[c.body])
    }
}

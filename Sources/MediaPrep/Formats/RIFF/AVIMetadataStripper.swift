/// An AVI's metadata blanked in place: its INFO list (artist, title, comment, creation date, GPS),
/// the capture date a camera writes (`IDIT`), XMP (`_PMX`) and the camera lists some makers put in the
/// header (`exif`, Nikon's `ncdt`) become `JUNK` of the same length, zeroed, at the top level or inside
/// `hdrl`. No byte moves, so `idx1` and OpenDML's absolute offsets stay right; `movi` is never read.
/// Before, an AVI was sniffed as an unknown file and went out with all of it.
enum AVIMetadataStripper {
    static let maxChunks = 10_000

    static func rewrite(_ r: ByteReader) throws -> MetadataRewrite? {
        let h = try r.read(0, 12)
        guard Bytes.ascii(h, 0, 4) == "RIFF", Bytes.ascii(h, 8, 4) == "AVI " else { return nil }
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        // The first RIFF's chunks (an OpenDML file's `AVIX` RIFFs after it hold only `movi` data).
        let end = min(r.size, 8 + Bytes.le(h, 4, 4))
        func walk(_ from: Int, _ to: Int, inHeader: Bool) throws {
            var at = from, count = 0
            while at + 8 <= to, count < maxChunks {
                count += 1
                let c = try r.exactly(at, 12 <= to - at ? 12 : 8, "an AVI chunk header at offset \(at)")
                let id = Bytes.ascii(c, 0, 4), length = Bytes.le(c, 4, 4)
                guard at + 8 + length <= to else {
                    if id == "LIST" && c.count == 12 && Bytes.ascii(c, 8, 4) == "movi" { return }  // frames cut short: FFmpeg judges them
                    throw MediaPrepError(.truncated, "the file is cut off inside its '\(id)' chunk at offset \(at)")
                }
                let list = id == "LIST" && c.count == 12 ? Bytes.ascii(c, 8, 4) : nil
                var blank: PrivateFields? = nil
                switch (id, list) {
                case ("LIST", "INFO"?): blank = RIFFInfo.classify(try r.read(at + 8, min(length, MP4MetadataStripper.scanBytes)))
                case ("LIST", "exif"?), ("LIST", "ncdt"?): blank = [.device, .dates]
                case ("IDIT", nil), ("ISMP", nil): blank = .dates
                case ("_PMX", nil): blank = .xmp
                case ("LIST", "hdrl"?) where !inHeader: try walk(at + 12, at + 8 + length, inHeader: true)
                default: break
                }
                if let b = blank {
                    found.formUnion(b)
                    edits.append((at..<at + 8 + length, [.bytes(Array("JUNK".utf8) + Bytes.le32(length)), .zeros(length)]))
                }
                at += 8 + length + (length & 1)
            }
        }
        try walk(12, end, inHeader: false)
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found.isEmpty ? .other : found)
    }
}

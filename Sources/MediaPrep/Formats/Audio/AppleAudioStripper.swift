/// AIFF and CAF, as Macs and iOS apps write sound, sent without their tags, samples byte for byte.
/// AIFF (big-endian IFF) has no padding chunk, so a `NAME`, `AUTH`, `(c) `, `ANNO`, `COMT` or `ID3 `
/// chunk keeps its id and size and has its text zeroed: an empty name, no comments (COMT's count
/// is its first two bytes), an ID3 tag no reader finds. CAF's `info` (artist, title, recorded date…),
/// `edct` (timed edit comments) and `uuid` chunks become `free` chunks of the same size, which the
/// format defines as padding.
enum AppleAudioStripper {
    static func aiff(_ r: ByteReader) throws -> MetadataRewrite? {
        let h = try r.read(0, 12)
        guard h.count == 12, Bytes.ascii(h, 0, 4) == "FORM", ["AIFF", "AIFC"].contains(Bytes.ascii(h, 8, 4)) else { return nil }
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        try IFFChunks.walk(r, bigEndian: true, samples: "SSND") { id, at, length in
            let field: PrivateFields? = switch id {
            case "NAME": .title
            case "AUTH", "(c) ": .author
            case "ANNO": .comment
            case "COMT": [.comment, .dates]
            case "ID3 ", "id3 ": ID3Frames.classify(try r.read(at + 8, min(length, MP4MetadataStripper.scanBytes)))
            default: nil
            }
            if let field, length > 0 {
                found.formUnion(field)
                edits.append((at + 8..<at + 8 + length, [.zeros(length)]))
            }
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    static func caf(_ r: ByteReader) throws -> MetadataRewrite? {
        let h = try r.read(0, 8)
        guard h.count == 8, Bytes.ascii(h, 0, 4) == "caff" else { return nil }
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        var at = 8
        for _ in 0..<AudioTagStripper.maxBlocks {
            guard at + 12 <= r.size else { break }
            let c = try r.exactly(at, 12, "a CAF chunk header at offset \(at)")
            let id = Bytes.ascii(c, 0, 4)
            // A signed 64-bit size; the audio data's may be -1: it runs to the end of the file.
            guard c[4] & 0x80 == 0, c[4...6].allSatisfy({ $0 == 0 }) else {
                if id == "data" { break }
                throw MediaPrepError(.corrupt, "CAF chunk '\(id)' at offset \(at) claims an impossible size")
            }
            let length = Bytes.be(c, 7, 5)
            guard at + 12 + length <= r.size else {
                if id == "data" { break }
                throw MediaPrepError(.truncated, "the file is cut off inside its '\(id)' chunk at offset \(at)")
            }
            let field: PrivateFields? = switch id {
            case "info": Self.cafInfo(try r.read(at + 12, min(length, MP4MetadataStripper.scanBytes)))
            case "edct": [.comment, .dates]
            case "uuid": .other
            default: nil
            }
            if let field {
                found.formUnion(field)
                edits.append((at..<at + 12 + length, [.bytes(Array("free".utf8) + Bytes.be64(length)), .zeros(length)]))
            }
            at += 12 + length
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    /// An `info` chunk's keys (a count, then NUL-terminated key and value strings).
    static func cafInfo(_ body: [UInt8]) -> PrivateFields {
        let keys: [(String, PrivateFields)] = [("artist", .author), ("composer", .author), ("lyricist", .author), ("title", .title),
                                               ("album", .title), ("recorded date", .dates), ("year", .dates), ("comments", .comment),
                                               ("encoding application", .other), ("source encoder", .other)]
        var found: PrivateFields = []
        for (key, field) in keys where Bytes.contains(body, key) { found.insert(field) }
        return found.isEmpty ? .other : found
    }
}

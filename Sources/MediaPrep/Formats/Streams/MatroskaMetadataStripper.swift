/// Matroska and WebM sent with their own bytes (`--video original`, or as a file) without what names
/// the sender: the Segment's Tags (title, artist, dates, location, encoder settings) and Attachments
/// (cover art, fonts with a name in them), and the Info's Title and DateUTC, each turned into a Void
/// element of the same length. Nothing moves, so SeekHead and Cues offsets stay right; every block
/// byte for byte. (The default route remuxes Matroska into MP4, which writes none of these.)
package enum MatroskaMetadataStripper {
    static let segment = 0x1853_8067, info = 0x1549_A966, tags = 0x1254_C367, attachments = 0x1941_A469
    static let title = 0x7BA9, dateUTC = 0x4461
    /// A hostile file's element count cannot make the walk long (an hour of video has ~1,000 clusters).
    static let maxElements = 1_000_000

    /// Nil when the file carries none of these, or is no Matroska; an element past its parent's end is `corrupt`.
    package static func rewrite(_ r: ByteReader) throws -> MetadataRewrite? {
        guard let ebml = try element(r, at: 0), ebml.id == 0x1A45_DFA3, let size = ebml.size,
              let seg = try element(r, at: ebml.body + size), seg.id == segment else { return nil }
        let end = seg.size.map { min(seg.body + $0, r.size) } ?? r.size
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        var at = seg.body, count = 0
        while at < end, let e = try element(r, at: at) {
            count += 1
            guard count <= maxElements else { throw MediaPrepError(.corrupt, "more than \(maxElements) Matroska elements") }
            guard let size = e.size else { break }  // a live recording's cluster of unknown size: nothing after it can be found
            let whole = at..<e.body + size
            guard whole.upperBound <= end else { break }  // cut short: the probe and the transcoders judge that
            switch e.id {
            case tags, attachments:
                let head = try r.read(e.body, min(size, MP4MetadataStripper.scanBytes))
                found.formUnion(e.id == attachments ? .coverArt : MetadataKeys.classify(head, container: "Tags"))
                edits.append((whole, void(whole.count)))
            case info:
                var inner = e.body
                while inner < whole.upperBound, let c = try element(r, at: inner), let csize = c.size, c.body + csize <= whole.upperBound {
                    if c.id == title || c.id == dateUTC {
                        found.insert(c.id == title ? .title : .dates)
                        edits.append((inner..<c.body + csize, void(c.body + csize - inner)))
                    }
                    inner = c.body + csize
                }
            default: break
            }
            at = whole.upperBound
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    /// An element's ID (marker bits kept, as the specification writes them), where its body starts,
    /// and its size (nil: unknown). Nil when the bytes there form no element header.
    static func element(_ r: ByteReader, at: Int) throws -> (id: Int, body: Int, size: Int?)? {
        let h = try r.read(at, 12)
        guard let first = h.first, first != 0 else { return nil }
        let idLength = first.leadingZeroBitCount + 1
        guard idLength <= 4, h.count > idLength, h[idLength] != 0 else { return nil }
        let id = h[0..<idLength].reduce(0) { $0 << 8 | Int($1) }
        let sizeLength = h[idLength].leadingZeroBitCount + 1
        guard idLength + sizeLength <= h.count else { return nil }
        var size = Int(h[idLength]) & (0xFF >> sizeLength)
        for k in 1..<sizeLength { size = size << 8 | Int(h[idLength + k]) }
        let unknown = size == (1 << (7 * sizeLength)) - 1
        return (id, at + idLength + sizeLength, unknown ? nil : size)
    }

    /// A Void element (0xEC) exactly `length` bytes long (at least 2), its content zero.
    static func void(_ length: Int) -> [MetadataRewrite.Piece] {
        if length - 2 < 127 { return [.bytes([0xEC, UInt8(0x80 | (length - 2))]), .zeros(length - 2)] }
        let content = length - 9
        return [.bytes([0xEC, 0x01] + (0..<7).map { UInt8(truncatingIfNeeded: content >> (8 * (6 - $0))) }), .zeros(content)]
    }
}

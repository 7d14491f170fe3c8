/// An Ogg Opus or Vorbis file's comment packet (title, artist, date, cover art…) emptied in place:
/// the vendor string stays, the list becomes empty and the rest of the packet zero padding, which
/// both specifications allow (RFC 7845 §5.2; Vorbis reads its framing bit and stops). The packet keeps
/// its length, so its pages keep their lacing and only their checksums change: every audio page is
/// copied byte for byte.
enum OggCommentStripper {
    /// Pages read at most before the comment packet must have ended (cover art can span many).
    static let maxPages = 4096

    private struct Page {
        var offset: Int
        var bytes: [UInt8]
        /// Where in `bytes` the comment packet's pieces sit.
        var pieces: [Range<Int>]
    }

    static func rewrite(_ r: ByteReader) throws -> MetadataRewrite? {
        var at = 0, packet = 0, serial: Int? = nil
        var touched: [Page] = []
        var comment: [UInt8] = []
        for _ in 0..<maxPages {
            guard packet < 2 else { break }
            let bytes = try OggPage.read(r, at: at)
            let segments = Int(bytes[26]), length = bytes.count
            let lacing = bytes[27..<27 + segments]
            let pageSerial = Bytes.le(bytes, 14, 4)
            if serial == nil { serial = pageSerial }
            if pageSerial == serial {
                var page = Page(offset: at, bytes: bytes, pieces: [])
                var body = 27 + segments
                for l in lacing {
                    let v = Int(l)
                    if packet == 1 && v > 0 { page.pieces.append(body..<body + v) }
                    body += v
                    if v < 255 {
                        packet += 1
                        if packet == 2 { break }
                    }
                }
                if !page.pieces.isEmpty {
                    for p in page.pieces { comment += bytes[p] }
                    touched.append(page)
                }
            }
            at += length
        }
        guard packet >= 2 else { throw MediaPrepError(.corrupt, "the Ogg stream's comment header does not end within \(maxPages) pages") }
        let opus = comment.starts(with: Array("OpusTags".utf8))
        let vorbis = comment.starts(with: [0x03] + Array("vorbis".utf8))
        guard opus || vorbis else { return nil }  // FLAC or Speex in Ogg: left as they are
        let start = opus ? 8 : 7
        guard let list = VorbisComments.entries(comment, from: start) else {
            throw MediaPrepError(.corrupt, "the Ogg comment header's lengths run past its end")
        }
        let trailing = comment[list.end...].dropFirst(vorbis ? 1 : 0)
        guard !list.names.isEmpty || trailing.contains(where: { $0 != 0 }) else { return nil }
        // The same length: the vendor, an empty list, Vorbis's framing bit, zeros.
        var emptied = Array(comment[..<list.vendorEnd]) + [0, 0, 0, 0] + (vorbis ? [1] : [])
        emptied += [UInt8](repeating: 0, count: comment.count - emptied.count)
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var next = 0
        for var page in touched {
            for p in page.pieces {
                page.bytes.replaceSubrange(p, with: emptied[next..<next + p.count])
                next += p.count
            }
            OggCRC.seal(&page.bytes)
            edits.append((page.offset..<page.offset + page.bytes.count, [.bytes(page.bytes)]))
        }
        let found = VorbisComments.classify(comment, from: start)
        return MetadataRewrite(sourceSize: r.size, edits: edits, found: found.isEmpty ? .other : found)
    }
}

/// One Ogg page read whole: header, lacing and body.
enum OggPage {
    static func read(_ r: ByteReader, at: Int) throws -> [UInt8] {
        let h = try r.exactly(at, 27, "an Ogg page header at offset \(at)")
        guard Bytes.ascii(h, 0, 4) == "OggS", h[4] == 0 else { throw MediaPrepError(.corrupt, "no Ogg page at offset \(at)") }
        let lacing = try r.exactly(at + 27, Int(h[26]), "an Ogg page's lacing at offset \(at)")
        return try r.exactly(at, 27 + lacing.count + lacing.reduce(0) { $0 + Int($1) }, "the Ogg page at offset \(at)")
    }
}

/// Ogg's page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, initial value 0, over the page
/// with its checksum field zero.
enum OggCRC {
    private static let table: [UInt32] = (0..<256).map { i in
        var r = UInt32(i) << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func seal(_ page: inout [UInt8]) {
        guard page.count >= 27 else { return }
        page.replaceSubrange(22..<26, with: Bytes.le32(Int(checksum(page))))
    }

    /// Whether a whole page's stored checksum is its own.
    static func matches(_ page: [UInt8]) -> Bool {
        page.count >= 27 && Bytes.le(page, 22, 4) == Int(checksum(page))
    }

    /// The page's CRC with its checksum field counted as zero.
    private static func checksum(_ page: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for (i, b) in page.enumerated() {
            let v = (22..<26).contains(i) ? 0 : UInt32(b)
            crc = (crc << 8) ^ table[Int((crc >> 24) ^ v)]
        }
        return crc
    }
}

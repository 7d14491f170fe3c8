/// An Ogg file's comment header (title, artist, date, location, cover art…) emptied in place, for
/// every codec that carries Vorbis comments in Ogg: Opus and Vorbis (RFC 7845 §5.2; Vorbis reads its
/// framing bit and stops), Speex (its second packet is a bare comment list) and FLAC (RFC 9639 §10.1:
/// its second packet a VORBIS_COMMENT block, and any PICTURE or APPLICATION block among the header
/// packets after it becomes PADDING). The vendor string stays, the list becomes empty and the rest of
/// the packet zero padding; every packet keeps its length, so pages keep their lacing and only their
/// checksums change: every audio page is copied byte for byte.
enum OggCommentStripper {
    /// Pages read at most before the header packets must have ended (cover art can span many).
    static let maxPages = 4096

    private struct Page {
        var offset: Int
        var bytes: [UInt8]
        /// Where in `bytes` each header packet's pieces sit.
        var pieces: [(packet: Int, range: Range<Int>)]
    }

    /// The codecs whose comments are known, by their identification packet.
    private enum Codec {
        case opus, vorbis, speex, flac

        init?(_ first: [UInt8]) {
            if first.starts(with: Array("OpusHead".utf8)) { self = .opus }
            else if first.starts(with: [0x01] + Array("vorbis".utf8)) { self = .vorbis }
            else if first.starts(with: Array("Speex   ".utf8)) { self = .speex }
            else if first.starts(with: [0x7F] + Array("FLAC".utf8)) { self = .flac }
            else { return nil }
        }
    }

    static func rewrite(_ r: ByteReader) throws -> MetadataRewrite? {
        var at = 0, serial: Int? = nil
        var touched: [Page] = []
        var packets: [[UInt8]] = [[]]
        var codec: Codec? = nil
        var done = false
        for _ in 0..<maxPages where !done {
            let bytes = try OggPage.read(r, at: at)
            let segments = Int(bytes[26]), length = bytes.count
            let pageSerial = Bytes.le(bytes, 14, 4)
            if serial == nil { serial = pageSerial }
            if pageSerial == serial {
                var page = Page(offset: at, bytes: bytes, pieces: [])
                var body = 27 + segments
                for l in bytes[27..<27 + segments] {
                    let v = Int(l), packet = packets.count - 1
                    if packet > 0 && v > 0 { page.pieces.append((packet, body..<body + v)) }
                    packets[packet] += bytes[body..<body + v]
                    body += v
                    guard v < 255 else { continue }
                    if packet == 0 {
                        codec = Codec(packets[0])
                        guard codec != nil else { return nil }  // Theora, Daala, unknown: not ours to read
                    }
                    if let codec, lastHeader(packet, packets[packet], codec) { done = true; break }
                    packets.append([])
                }
                if !page.pieces.isEmpty { touched.append(page) }
            }
            at += length
        }
        guard done, let codec else {
            throw MediaPrepError(.corrupt, "the Ogg stream's comment header does not end within \(maxPages) pages")
        }
        var found: PrivateFields = []
        var replaced: [Int: [UInt8]] = [:]
        for (i, packet) in packets.enumerated() where i > 0 {
            guard let (emptied, fields) = try emptied(packet, index: i, codec) else { continue }
            replaced[i] = emptied
            found.formUnion(fields)
        }
        guard !replaced.isEmpty else { return nil }
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var consumed: [Int: Int] = [:]
        for var page in touched {
            var changed = false
            for (packet, p) in page.pieces {
                let next = consumed[packet, default: 0]
                consumed[packet] = next + p.count
                guard let emptied = replaced[packet] else { continue }
                page.bytes.replaceSubrange(p, with: emptied[next..<next + p.count])
                changed = true
            }
            guard changed else { continue }
            OggCRC.seal(&page.bytes)
            edits.append((page.offset..<page.offset + page.bytes.count, [.bytes(page.bytes)]))
        }
        return MetadataRewrite(sourceSize: r.size, edits: edits, found: found.isEmpty ? .other : found)
    }

    /// Whether header packet `index` is the last one this rewrite reads: the comment packet, or for
    /// FLAC the metadata block flagged last.
    private static func lastHeader(_ index: Int, _ packet: [UInt8], _ codec: Codec) -> Bool {
        switch codec {
        case .opus, .vorbis, .speex: return index == 1
        case .flac: return index >= 1 && (packet.first ?? 0x80) & 0x80 != 0
        }
    }

    /// Header packet `index` with what names its sender emptied, the same length, and what it held;
    /// nil when it holds nothing to take out.
    private static func emptied(_ p: [UInt8], index: Int, _ codec: Codec) throws -> ([UInt8], PrivateFields)? {
        let start: Int, framing: Bool
        switch codec {
        case .opus:
            guard p.starts(with: Array("OpusTags".utf8)) else { return nil }
            (start, framing) = (8, false)
        case .vorbis:
            guard p.starts(with: [0x03] + Array("vorbis".utf8)) else { return nil }
            (start, framing) = (7, true)
        case .speex: (start, framing) = (0, false)
        case .flac:
            guard let type = p.first.map({ $0 & 0x7F }) else { return nil }
            switch type {
            case 4: (start, framing) = (4, false)
            case 2, 6:  // APPLICATION, PICTURE: padding of the same length, its last flag kept
                guard p.count >= 4, p.dropFirst(4).contains(where: { $0 != 0 }) || type == 6 else { return nil }
                return ([p[0] & 0x80 | 1] + Array(p[1..<4]) + [UInt8](repeating: 0, count: p.count - 4), type == 6 ? .coverArt : .other)
            default: return nil
            }
        }
        guard let list = VorbisComments.entries(p, from: start) else {
            throw MediaPrepError(.corrupt, "the Ogg comment header's lengths run past its end")
        }
        let trailing = p[list.end...].dropFirst(framing ? 1 : 0)
        guard !list.names.isEmpty || trailing.contains(where: { $0 != 0 }) else { return nil }
        var emptied = Array(p[..<list.vendorEnd]) + [0, 0, 0, 0] + (framing ? [1] : [])
        emptied += [UInt8](repeating: 0, count: p.count - emptied.count)
        let found = VorbisComments.classify(p, from: start)
        return (emptied, found.isEmpty ? .other : found)
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

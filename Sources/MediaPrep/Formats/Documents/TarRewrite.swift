/// A TAR's owners, times and pax comments taken out, its members cleaned as their own kind; member names,
/// modes and every byte of members left alone copied as ranges, so a 1 GB archive streams.
enum TarRewrite {
    static let maxMembers = 1_000_000
    static let timeLimit = 60.0

    static func rewrite(_ r: ByteReader, depth: Int = 0) throws -> MetadataRewrite? {
        guard depth <= ZipPackageCleaner.maxDepth else {
            throw MediaPrepError(.tooLarge, "archives nested more than \(ZipPackageCleaner.maxDepth) deep (an archive bomb?) are not opened")
        }
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        var parts = 0
        var at = 0, members = 0
        var paxSize = false  // the pending pax header gives the next member's size
        let deadline = Deadline(seconds: timeLimit)
        while at + 512 <= r.size {
            let h = try r.exactly(at, 512, "a TAR header")
            if h.allSatisfy({ $0 == 0 }) { break }  // the end: two zero blocks (what follows is kept as it is)
            guard checksum(h) == octal(h[148..<156]) else { throw MediaPrepError(.corrupt, "the TAR header at byte \(at) fails its checksum") }
            members += 1
            guard members <= maxMembers else { throw MediaPrepError(.tooLarge, "a TAR of more than \(maxMembers.grouped) members is not read") }
            if members & 255 == 0, deadline.passed { throw MediaPrepError(.timeout, "the TAR took longer than \(Int(timeLimit)) s to read") }
            guard let size = size(h) else { throw MediaPrepError(.corrupt, "the TAR header at byte \(at) has no size") }
            let dataStart = at + 512
            let padded = (size + 511) / 512 * 512
            guard dataStart + size <= r.size else { throw MediaPrepError(.truncated, "the TAR is cut off inside a member") }
            var header = h
            found.formUnion(clear(&header))
            let type = h[156]
            var data: [MetadataRewrite.Piece]? = nil
            if type == 0x78 || type == 0x67 {  // 'x', 'g': pax records
                let (kept, fields, hasSize) = pax(try r.exactly(dataStart, size, "a pax header"))
                found.formUnion(fields)
                if type == 0x78 { paxSize = hasSize }
                if !fields.isEmpty {
                    setSize(&header, kept.count)
                    data = [.bytes(kept + [UInt8](repeating: 0, count: (kept.count + 511) / 512 * 512 - kept.count))]
                }
            } else if [0x30, 0x00, 0x37].contains(type), size > 0, !paxSize, size <= ZipPackageCleaner.maxMemberBytes {
                let format = FormatSniffer.sniff(try r.read(dataStart, 4096))
                if format != .unknown, format.isImage || format.isAudioVisual || format.isDocument || format.isPackage,
                   let (bytes, fields) = try EmbeddedDocument.clean(try r.exactly(dataStart, size, "a TAR member"), format: format, depth: depth + 1) {
                    found.formUnion(fields)
                    parts += 1
                    setSize(&header, bytes.count)
                    data = [.bytes(bytes + [UInt8](repeating: 0, count: (bytes.count + 511) / 512 * 512 - bytes.count))]
                }
                paxSize = false
            } else if type != 0x4C && type != 0x4B {  // GNU long names belong to the next member
                paxSize = false
            }
            writeChecksum(&header)
            if header != h { edits.append((at..<dataStart, [.bytes(header)])) }
            if let data { edits.append((dataStart..<min(r.size, dataStart + padded), data)) }
            at = dataStart + padded
        }
        guard !edits.isEmpty else { return nil }
        var rewrite = MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
        rewrite.cleanedParts = parts
        return rewrite
    }

    /// What a compressed TAR is inflated to at most, in memory: past it, it goes as it came (said so).
    static let maxInflatedBytes = 512 << 20

    /// A .tar.gz: the TAR inside cleaned as a TAR is, compressed again (zlib level 6), without the
    /// gzip header's name and time.
    /// - Parameter depth: how deep inside other archives it is (its members one deeper).
    static func gzip(_ r: ByteReader, depth: Int = 0) throws -> MetadataRewrite? {
        guard r.size <= maxInflatedBytes else { throw tooLargeToClean }
        let packed = try r.read(0, r.size)
        let tar: [UInt8]
        do { tar = try Gzip.inflate(packed, limit: maxInflatedBytes) } catch let e as MediaPrepError where e.code == .tooLarge { throw tooLargeToClean }
        return try MetadataRewrite.recompressed(packed, tar, inner: try rewrite(ByteReader(tar), depth: depth), level: 6)
    }

    static let tooLargeToClean = MediaPrepError(.tooLarge, "a compressed TAR inflating past \(maxInflatedBytes >> 20) MiB: its members are not read")

    /// Owner ids and names and times zeroed in a header (GNU's access and change times too).
    private static func clear(_ h: inout [UInt8]) -> PrivateFields {
        var found: PrivateFields = []
        func zero(_ r: Range<Int>, _ field: PrivateFields, octalDigits: Bool) {
            let value: [UInt8] = octalDigits ? [UInt8](repeating: 0x30, count: r.count - 1) + [0] : [UInt8](repeating: 0, count: r.count)
            let nonZero = h[r].contains { $0 != 0 && $0 != 0x30 && $0 != 0x20 }
            if nonZero { found.insert(field) }
            h.replaceSubrange(r, with: value)
        }
        zero(108..<116, .owner, octalDigits: true)
        zero(116..<124, .owner, octalDigits: true)
        zero(136..<148, .dates, octalDigits: true)
        if Array(h[257..<263]) == Array("ustar\0".utf8) || Array(h[257..<263]) == Array("ustar ".utf8) {
            zero(265..<297, .owner, octalDigits: false)
            zero(297..<329, .owner, octalDigits: false)
        }
        if Array(h[257..<265]) == Array("ustar  \0".utf8) {  // old GNU: access and change times
            zero(345..<357, .dates, octalDigits: false)
            zero(357..<369, .dates, octalDigits: false)
        }
        return found
    }

    /// The pax records a member needs (its path, link, size, sparse map, charset); the rest (times,
    /// owners, comments, extended attributes) named and dropped.
    private static func pax(_ d: [UInt8]) -> (kept: [UInt8], found: PrivateFields, hasSize: Bool) {
        var kept: [UInt8] = []
        var found: PrivateFields = []
        var hasSize = false
        var i = 0
        while i < d.count {
            // "LENGTH key=value\n", LENGTH counting itself: a record shorter than its own length field is damage.
            guard let space = d[i...].firstIndex(of: 0x20), let length = Int(String(decoding: d[i..<space], as: UTF8.self)),
                  length > space - i + 1, length <= d.count - i else { break }
            let record = Array(d[i..<(i + length)])
            let body = record[(space - i + 1)...]
            let key = String(decoding: body.prefix { $0 != 0x3D }, as: UTF8.self)
            switch key {
            case "path", "linkpath", "size", "hdrcharset": kept += record; hasSize = hasSize || key == "size"
            case _ where key.hasPrefix("GNU.sparse."): kept += record
            case "mtime", "atime", "ctime", "LIBARCHIVE.creationtime": found.insert(.dates)
            case "uid", "gid", "uname", "gname": found.insert(.owner)
            case "comment": found.insert(.comment)
            default: found.insert(.other)
            }
            i += length
        }
        return (kept, found, hasSize)
    }

    private static func octal(_ field: ArraySlice<UInt8>) -> Int? {
        var v = 0, any = false
        for c in field {
            if c == 0x20 || c == 0 { if any { break } else { continue } }
            guard (0x30...0x37).contains(c) else { return nil }
            v = v * 8 + Int(c - 0x30)
            any = true
            guard v < 1 << 60 else { return nil }
        }
        return any ? v : 0
    }

    /// Octal, or GNU's base-256 (top bit set) for members over 8 GB.
    private static func size(_ h: [UInt8]) -> Int? {
        if h[124] & 0x80 != 0 {
            var v = 0
            for c in h[125..<136] { guard v < 1 << 52 else { return nil }; v = v << 8 | Int(c) }
            return v
        }
        return octal(h[124..<136])
    }

    private static func setSize(_ h: inout [UInt8], _ n: Int) {
        let digits = Array(String(n, radix: 8).utf8)
        h.replaceSubrange(124..<136, with: [UInt8](repeating: 0x30, count: 11 - digits.count) + digits + [0])
    }

    private static func checksum(_ h: [UInt8]) -> Int {
        h.enumerated().reduce(0) { $0 + ((148..<156).contains($1.offset) ? 0x20 : Int($1.element)) }
    }

    private static func writeChecksum(_ h: inout [UInt8]) {
        let digits = Array(String(checksum(h), radix: 8).utf8)
        h.replaceSubrange(148..<156, with: [UInt8](repeating: 0x30, count: 6 - digits.count) + digits + [0, 0x20])
    }
}

extension DocumentFormats {
    /// POSIX and GNU tar: "ustar" at 257 in the first header.
    static let tar = FormatEntry(formats: [.tar], recognise: { h in h.data.count >= 263 && h.data[257..<262].elementsEqual("ustar".utf8) ? .tar : nil },
                                 rewrite: { r, _ in try TarRewrite.rewrite(r) })
}

extension DocumentFormats {
    /// gzip whose start inflates to a TAR header ("ustar" at 257).
    static let tarGzip = FormatEntry(formats: [.tarGzip], recognise: { h in
        guard Gzip.isGzip(h.b) else { return nil }
        let start = Gzip.inflatePrefix(Array(h.data.prefix(1 << 16)), limit: 263)
        return start.count >= 262 && start[257..<262].elementsEqual("ustar".utf8) ? .tarGzip : nil
    }, rewrite: { r, _ in try TarRewrite.gzip(r) })
}

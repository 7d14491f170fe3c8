import Glibc

/// Random access to an input's bytes: a file by `pread` (a walk over a 1 GiB video reads only its box
/// headers and metadata), or bytes in memory (tests and fuzzing).
package struct ByteReader {
    package let size: Int
    private let reader: (Int, Int) throws -> [UInt8]

    package init(size: Int, read: @escaping (_ offset: Int, _ count: Int) throws -> [UInt8]) {
        (self.size, reader) = (size, read)
    }

    package init(_ bytes: [UInt8]) {
        self.init(size: bytes.count) { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    package func read(_ offset: Int, _ count: Int) throws -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        return try reader(offset, min(count, size - offset))
    }

    /// The first `count` bytes, as if the file ended there.
    func prefix(_ count: Int) -> ByteReader {
        count >= size ? self : ByteReader(size: max(0, count)) { offset, n in try read(offset, n) }
    }

    /// The bytes in `range` as a reader of their own (an embedded file), offsets from its start.
    func slice(_ range: Range<Int>) -> ByteReader {
        let start = max(0, min(range.lowerBound, size)), end = max(start, min(range.upperBound, size))
        return ByteReader(size: end - start) { offset, n in try read(start + offset, n) }
    }

    /// Exactly `count` bytes at `offset`, or a `truncated` error naming `what` (the file ends first).
    func exactly(_ offset: Int, _ count: Int, _ what: @autoclosure () -> String) throws -> [UInt8] {
        let b = try read(offset, count)
        guard b.count == count else { throw MediaPrepError(.truncated, "the file is cut off inside \(what())") }
        return b
    }
}

extension InputFile {
    /// The open file as a `ByteReader`.
    var reader: ByteReader {
        ByteReader(size: size) { [self] offset, count in try self.read(at: offset, count: count) }
    }
}

/// Big- and little-endian fields of container headers.
enum Bytes {
    /// FNV-1a: a stable 64-bit hash of bytes, the same in every process and on every machine.
    static func fnv1a<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
    }

    /// Where `needle` next starts in `haystack`, from `from` on: memchr for its first byte, memcmp
    /// for the rest, where a loop of slice comparisons cost `check photo.jpg` 24 % of its
    /// instructions (callgrind). glibc's memmem is not in Swift's Glibc module.
    /// `within` bounds the search to the haystack's first bytes, without a copy.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0, within: Int = .max) -> Int? {
        let end = min(haystack.count, within)
        guard let first = needle.first, from >= 0, from <= end - needle.count else { return nil }
        return haystack.withUnsafeBytes { whole in
            let h = UnsafeRawBufferPointer(rebasing: whole[0..<end])
            return needle.withUnsafeBytes { n -> Int? in
                guard let base = h.baseAddress, let rest = n.baseAddress else { return nil }
                let last = h.count - n.count  // the last place the needle can start
                var at = from
                while at <= last, let hit = memchr(base + at, Int32(first), last - at + 1) {
                    at = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + at + 1, rest + 1, n.count - 1) == 0 { return at }
                    at += 1
                }
                return nil
            }
        }
    }

    static func be(_ b: [UInt8], _ at: Int, _ n: Int) -> Int {
        guard at >= 0, at + n <= b.count else { return 0 }
        return b[at..<at + n].reduce(0) { $0 << 8 | Int($1) }
    }

    static func le(_ b: [UInt8], _ at: Int, _ n: Int) -> Int {
        guard at >= 0, at + n <= b.count else { return 0 }
        return b[at..<at + n].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    static func be32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
    static func be64(_ v: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }
    static func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    static func ascii(_ b: [UInt8], _ at: Int, _ n: Int) -> String {
        guard at >= 0, at + n <= b.count else { return "" }
        return String(decoding: b[at..<at + n], as: UTF8.self)
    }

    /// Case-insensitive ASCII search, for the metadata keys `check` names.
    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.lowercased().utf8)
        guard let first = n.first, haystack.count >= n.count else { return false }
        func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }
        var i = 0
        let last = haystack.count - n.count
        while i <= last {
            if lower(haystack[i]) == first {
                var j = 1
                while j < n.count && lower(haystack[i + j]) == n[j] { j += 1 }
                if j == n.count { return true }
            }
            i += 1
        }
        return false
    }
}

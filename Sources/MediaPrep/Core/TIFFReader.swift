/// Bounds-checked reads of a TIFF-structured Exif block, or a TIFF or BigTIFF file, in its own byte
/// order: damage reads as nil.
struct TIFFReader {
    private let t: [UInt8]
    /// Where `t` starts in the file: 0, but for an IFD read on its own from a file (`init(_:at:like:)`).
    private let base: Int
    private let little: Bool
    /// BigTIFF: 8-byte counts and offsets, 20-byte entries with 8 bytes of value inline.
    let isBig: Bool

    init?(_ tiff: ArraySlice<UInt8>) {
        t = Array(tiff)
        base = 0
        guard t.count >= 8 else { return nil }
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        isBig = little ? t[2] == 43 && t[3] == 0 : t[2] == 0 && t[3] == 43
    }

    /// An IFD with no TIFF header before it (a maker note's), in the byte order its writer names.
    init(_ bytes: [UInt8], bigEndian: Bool) {
        (t, base, little, isBig) = (bytes, 0, !bigEndian, false)
    }

    /// The bytes at `range` (a `valueRange`).
    func bytes(_ range: Range<Int>) -> ArraySlice<UInt8> { t[(range.lowerBound - base)..<(range.upperBound - base)] }

    /// Bytes read from `offset` of the file `header` was read from, in its byte order and kind.
    init(_ bytes: [UInt8], at offset: Int, like header: TIFFReader) {
        (t, base, little, isBig) = (bytes, offset, header.little, header.isBig)
    }

    /// The end of what is known: the data's size (a file's, or an Exif block's).
    var size: Int { base + t.count }

    func u16(_ o: Int) -> Int? {
        let i = o - base
        guard i >= 0, i + 2 <= t.count else { return nil }
        return little ? Int(t[i]) | Int(t[i + 1]) << 8 : Int(t[i]) << 8 | Int(t[i + 1])
    }

    func u32(_ o: Int) -> Int? {
        guard let a = u16(o), let b = u16(o + 2) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }

    /// A BigTIFF count or offset; nil past 2⁴⁸ (no file is that large, and sums on it cannot overflow).
    func u64(_ o: Int) -> Int? {
        guard let a = u32(o), let b = u32(o + 4) else { return nil }
        let (high, low) = little ? (b, a) : (a, b)
        guard high < 1 << 16 else { return nil }
        return high << 32 | low
    }

    /// A count or an offset: 4 bytes in a TIFF, 8 in a BigTIFF.
    func offset(_ o: Int) -> Int? { isBig ? u64(o) : u32(o) }

    /// Bytes of an IFD's entry count, of one entry, and of a value held inside its entry.
    var countBytes: Int { isBig ? 8 : 2 }
    var entryBytes: Int { isBig ? 20 : 12 }
    private var inlineBytes: Int { isBig ? 8 : 4 }

    /// Where the first IFD is, from a classic header (42) or a BigTIFF one (43, offsets of 8 bytes).
    var firstIFD: Int? {
        switch u16(2) {
        case 42: return u32(4)
        case 43: return u16(4) == 8 && u16(6) == 0 ? u64(8) : nil
        default: return nil
        }
    }

    /// Offsets of IFD0's entries (tag, type, count, value), or nil if the header is broken.
    var ifd0Entries: [Int]? {
        guard let ifd = firstIFD else { return nil }
        return entryOffsets(ifd)
    }

    /// How many entries the IFD at `offset` says it has (at most 999: more is damage).
    func entryCount(_ offset: Int) -> Int? {
        guard let count = isBig ? u64(offset) : u16(offset), count < 1000 else { return nil }
        return count
    }

    /// Offsets of the entries its count gives the IFD at `offset` (they may run past the data).
    private func entryOffsets(_ offset: Int) -> [Int]? {
        guard let count = entryCount(offset) else { return nil }
        return (0..<count).map { offset + countBytes + $0 * entryBytes }
    }

    /// Offsets of the entries of the IFD at `offset`, or nil if they run past the data (the
    /// next-IFD field after them may be missing: the chain then ends there).
    func entries(at offset: Int) -> [Int]? {
        guard let entries = entryOffsets(offset), offset + ifdBytes(entries.count) - inlineBytes <= size else { return nil }
        return entries
    }

    /// Bytes of an IFD of `count` entries: its count, its entries and the next IFD's offset.
    func ifdBytes(_ count: Int) -> Int { countBytes + count * entryBytes + inlineBytes }

    /// The offset of the IFD after the one at `offset`, which has `count` entries (0 for none).
    func nextIFD(_ offset: Int, count: Int) -> Int? { self.offset(offset + countBytes + count * entryBytes) }

    /// An entry's tag, and its value as a number when it is one SHORT, LONG or LONG8 (an IFD's offset,
    /// the orientation).
    func tag(_ entry: Int) -> Int? { u16(entry) }
    func number(_ entry: Int) -> Int? {
        guard let type = u16(entry + 2), (isBig ? u64(entry + 4) : u32(entry + 4)) == 1 else { return nil }
        let at = entry + 4 + (isBig ? 8 : 4)
        switch type {
        case 3: return u16(at)
        case 4, 13: return u32(at)
        case 16, 18: return u64(at)
        default: return nil
        }
    }

    /// Where an entry's value is: in the entry itself when it fits there, else where its offset
    /// points; nil if that runs past the data.
    func valueRange(_ entry: Int) -> Range<Int>? {
        guard let type = u16(entry + 2), let count = isBig ? u64(entry + 4) : u32(entry + 4) else { return nil }
        let unit = switch type {
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12, 16, 17, 18: 8
        default: 1
        }
        guard count <= size / unit else { return nil }
        let bytes = count * unit
        let field = entry + 4 + (isBig ? 8 : 4)
        if bytes <= inlineBytes { return field..<(field + bytes) }
        guard let at = offset(field), at <= size - bytes else { return nil }
        return at..<(at + bytes)
    }
}

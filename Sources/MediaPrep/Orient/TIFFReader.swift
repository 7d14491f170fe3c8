/// Bounds-checked reads of a TIFF-structured Exif block, or a TIFF file, in its own byte order: damage reads as nil.
struct TIFFReader {
    private let t: [UInt8]
    private let little: Bool

    init?(_ tiff: ArraySlice<UInt8>) {
        t = Array(tiff)
        guard t.count >= 8 else { return nil }
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
    }

    var size: Int { t.count }

    func u16(_ o: Int) -> Int? {
        guard o >= 0, o + 2 <= t.count else { return nil }
        return little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])
    }

    func u32(_ o: Int) -> Int? {
        guard let a = u16(o), let b = u16(o + 2) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }

    /// Offsets of IFD0's 12-byte entries (tag, type, count, value), or nil if the header is broken.
    var ifd0Entries: [Int]? {
        guard u16(2) == 42, let ifd = u32(4) else { return nil }
        return entryOffsets(ifd)
    }

    /// Offsets of the 12-byte entries its count gives the IFD at `offset` (they may run past the data).
    private func entryOffsets(_ offset: Int) -> [Int]? {
        guard let count = u16(offset), count < 1000 else { return nil }
        return (0..<count).map { offset + 2 + $0 * 12 }
    }

    /// Offsets of the 12-byte entries of the IFD at `offset`, or nil if they run past the data (the
    /// next-IFD field after them may be missing: the chain then ends there).
    func entries(at offset: Int) -> [Int]? {
        guard let entries = entryOffsets(offset), offset + 2 + entries.count * 12 <= size else { return nil }
        return entries
    }

    /// Where an entry's value is: in the entry itself when it fits in 4 bytes, else where its offset
    /// points; nil if that runs past the data.
    func valueRange(_ entry: Int) -> Range<Int>? {
        guard let type = u16(entry + 2), let count = u32(entry + 4) else { return nil }
        let unit = switch type {
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: 1
        }
        guard count <= size / unit else { return nil }
        let bytes = count * unit
        if bytes <= 4 { return (entry + 8)..<(entry + 8 + bytes) }
        guard let at = u32(entry + 8), at <= size - bytes else { return nil }
        return at..<(at + bytes)
    }
}

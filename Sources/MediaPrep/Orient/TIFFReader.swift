/// Bounds-checked reads of a TIFF-structured Exif block in its own byte order: damage reads as nil.
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
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd), count < 1000 else { return nil }
        return (0..<count).map { ifd + 2 + $0 * 12 }
    }
}

/// The 8 EXIF orientations: how stored pixels must be turned to appear upright.
public enum ExifOrientation: Int, Sendable, Codable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Orientations 5–8 swap width and height.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Reads the orientation from a JPEG's Exif APP1; any damage means "up", never an error.
    public static func fromJPEG(_ data: [UInt8]) -> ExifOrientation {
        let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
        for s in JPEGMarkers(data).segments where s.marker == 0xE1 {
            let start = s.payload.lowerBound
            guard s.payload.count > 6 + 8, Array(data[start..<start + 6]) == exifHeader else { continue }
            return fromTIFF(data[(start + 6)..<s.payload.upperBound])
        }
        return .up
    }

    /// Parses a TIFF-structured Exif block (JPEG APP1 body or PNG eXIf chunk) for tag 0x0112.
    public static func fromTIFF(_ tiff: ArraySlice<UInt8>) -> ExifOrientation {
        let t = Array(tiff)
        guard t.count >= 8 else { return .up }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return .up
        }
        func u16(_ o: Int) -> Int? {
            guard o >= 0, o + 2 <= t.count else { return nil }
            return little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])
        }
        func u32(_ o: Int) -> Int? {
            guard let a = u16(o), let b = u16(o + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd), count < 1000 else { return .up }
        for n in 0..<count {
            let entry = ifd + 2 + n * 12
            guard let tag = u16(entry) else { return .up }
            if tag == 0x0112 {
                guard let type = u16(entry + 2), type == 3, let value = u16(entry + 8) else { return .up }
                return ExifOrientation(rawValue: value) ?? .up
            }
        }
        return .up
    }
}

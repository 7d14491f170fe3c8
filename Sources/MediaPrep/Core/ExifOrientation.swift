/// The 8 EXIF orientations: how stored pixels must be turned to appear upright.
package enum ExifOrientation: Int, Sendable, Codable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Orientations 5–8 swap width and height.
    package var swapsDimensions: Bool { rawValue >= 5 }

    /// Reads the orientation from a JPEG's Exif APP1; any damage means "up", never an error.
    package static func fromJPEG(_ data: [UInt8]) -> ExifOrientation { fromJPEG(data, markers: JPEGMarkers(data)) }

    static func fromJPEG(_ data: [UInt8], markers: JPEGMarkers) -> ExifOrientation {
        let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
        for s in markers.segments where s.marker == 0xE1 {
            let start = s.payload.lowerBound
            guard s.payload.count > 6 + 8, Array(data[start..<start + 6]) == exifHeader else { continue }
            return fromTIFF(data[(start + 6)..<s.payload.upperBound])
        }
        return .up
    }

    /// Parses a TIFF-structured Exif block (JPEG APP1 body or PNG eXIf chunk) for tag 0x0112.
    package static func fromTIFF(_ tiff: ArraySlice<UInt8>) -> ExifOrientation {
        guard let r = TIFFReader(tiff), let entries = r.ifd0Entries else { return .up }
        for entry in entries {
            guard let tag = r.u16(entry) else { return .up }
            if tag == 0x0112 {
                guard let type = r.u16(entry + 2), type == 3, let value = r.u16(entry + 8) else { return .up }
                return ExifOrientation(rawValue: value) ?? .up
            }
        }
        return .up
    }
}

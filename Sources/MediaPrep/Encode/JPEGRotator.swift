import CJpeg

/// Turns a JPEG upright in the DCT domain (like `jpegtran -perfect -copy none`): no re-encoding,
/// so a small rotated photo loses nothing, and every marker but the image itself is dropped.
enum JPEGRotator {
    static func operation(_ o: ExifOrientation) -> TJXOP {
        switch o {
        case .up: return TJXOP_NONE
        case .upMirrored: return TJXOP_HFLIP
        case .down: return TJXOP_ROT180
        case .downMirrored: return TJXOP_VFLIP
        case .leftMirrored: return TJXOP_TRANSPOSE
        case .right: return TJXOP_ROT90
        case .rightMirrored: return TJXOP_TRANSVERSE
        case .left: return TJXOP_ROT270
        }
    }

    /// The upright JPEG, or nil when the image has partial MCU blocks at an edge that the
    /// transform would have to trim (then the caller re-encodes instead; with `trimming`, they are
    /// trimmed: the blocks a turn cannot move, at most 15 columns or rows).
    static func upright(_ data: [UInt8], orientation: ExifOrientation, trimming: Bool = false) throws -> [UInt8]? {
        let h = try TurboJPEGHandle(.transform)
        var transform = tjtransform()
        transform.op = Int32(operation(orientation).rawValue)
        // Progressive: optimized tables, the same coefficients.
        transform.options = (trimming ? TJXOPT_TRIM : TJXOPT_PERFECT) | TJXOPT_COPYNONE | TJXOPT_PROGRESSIVE
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { JPEGLibrary.turbo.tjFree(out) } }
        let rc = data.withUnsafeBufferPointer { p in
            JPEGLibrary.turbo.tjTransform(h.raw, p.baseAddress, UInt(data.count), 1, &out, &size, &transform, 0)
        }
        guard rc == 0, let out else { return nil }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// `jpeg` with `source`'s ICC profile segments put back after its SOI (and JFIF APP0): a turn
    /// copies no marker, and a photo in Display P3 shown without its profile loses its colours.
    static func withProfile(_ jpeg: [UInt8], from source: [UInt8], markers: JPEGMarkers) -> [UInt8] {
        let icc = markers.segments.filter { JPEGMarkers.isICCProfile($0, in: source) }
        guard !icc.isEmpty, jpeg.count > 4 else { return jpeg }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count > 6 { at = 4 + Bytes.be(jpeg, 4, 2) }
        return Array(jpeg[..<at]) + icc.flatMap { source[($0.payload.lowerBound - 4)..<$0.payload.upperBound] } + jpeg[at...]
    }
}

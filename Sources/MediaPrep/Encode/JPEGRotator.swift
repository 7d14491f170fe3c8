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
    /// transform would have to trim (then the caller re-encodes instead).
    static func upright(_ data: [UInt8], orientation: ExifOrientation) throws -> [UInt8]? {
        let h = try TurboJPEGHandle(.transform)
        var transform = tjtransform()
        transform.op = Int32(operation(orientation).rawValue)
        transform.options = TJXOPT_PERFECT | TJXOPT_COPYNONE | TJXOPT_PROGRESSIVE  // progressive = optimized tables
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { tjFree(out) } }
        let rc = data.withUnsafeBufferPointer { p in
            tjTransform(h.raw, p.baseAddress, UInt(data.count), 1, &out, &size, &transform, 0)
        }
        guard rc == 0, let out else { return nil }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}

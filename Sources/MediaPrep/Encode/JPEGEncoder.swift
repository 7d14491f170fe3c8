import CJpeg

/// JPEG through TurboJPEG; one instance reuses its handle across the budget search's trials.
public final class JPEGEncoder {
    private let handle: TurboJPEGHandle

    public init() throws { handle = try TurboJPEGHandle(.compress) }

    /// Encodes with 4:2:0 chroma (gray stays one channel); output carries JFIF only, no metadata.
    public func encode(_ image: PixelBuffer, quality: Int, progressive: Bool = false) throws -> [UInt8] {
        let src = image.layout == .rgba ? AlphaOps.flattenOnWhite(image) : image
        let format: TJPF = src.layout == .gray ? TJPF_GRAY : TJPF_RGB
        let subsampling: TJSAMP = src.layout == .gray ? TJSAMP_GRAY : TJSAMP_420
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        defer { if let out { tjFree(out) } }
        var flags = TJFLAG_ACCURATEDCT
        if progressive { flags |= TJFLAG_PROGRESSIVE }
        let q = Int32(min(100, max(1, quality)))
        let rc = src.bytes.withUnsafeBufferPointer { p in
            tjCompress2(handle.raw, p.baseAddress, Int32(src.width), Int32(src.rowBytes), Int32(src.height),
                        Int32(format.rawValue), &out, &size, Int32(subsampling.rawValue), q, flags)
        }
        guard rc == 0, let out else {
            throw MediaPrepError(.encodeFailed, "JPEG encoding failed: \(handle.lastError)")
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }
}

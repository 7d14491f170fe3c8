import CFFmpeg

/// Turns a decoded AVFrame into packed RGB/RGBA at a chosen size through libswscale.
enum FrameConverter {
    static func convert(_ f: UnsafeMutablePointer<AVFrame>, layout: PixelLayout,
                        width: Int? = nil, height: Int? = nil) throws -> PixelBuffer {
        let sw = Int(f.pointee.width), sh = Int(f.pointee.height)
        guard sw > 0, sh > 0 else { throw MediaPrepError(.invalidDimensions, "decoded frame has no size") }
        let dw = width ?? sw, dh = height ?? sh
        let row = dw * layout.channels
        var out = [UInt8](repeating: 0, count: row * dh + 64)
        let threads: Int32 = sw * sh > 1_000_000 ? 2 : 1
        let rc = out.withUnsafeMutableBufferPointer {
            cff_convert_frame(f, $0.baseAddress, Int32(row), Int32(dw), Int32(dh), Resizer.avFormat(layout), Resizer.flags, threads)
        }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.resizeFailed, "swscale cannot convert this frame", rc) }
        out.removeLast(64)
        return PixelBuffer(width: dw, height: dh, layout: layout, storage: out)
    }

    /// Whether the frame's pixel format can carry transparency.
    static func hasAlphaChannel(_ f: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard let d = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.pointee.format)) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }
}

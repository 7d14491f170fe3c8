import CFFmpeg

/// Turns a decoded AVFrame into packed RGB/RGBA at a chosen size through libswscale.
enum FrameConverter {
    /// - Parameter threads: swscale contexts side by side (default: two from a megapixel on).
    static func convert(_ f: UnsafeMutablePointer<AVFrame>, layout: PixelLayout,
                        width: Int? = nil, height: Int? = nil, threads: Int? = nil) throws -> PixelBuffer {
        let sw = Int(f.pointee.width), sh = Int(f.pointee.height)
        guard sw > 0, sh > 0 else { throw MediaPrepError(.invalidDimensions, "decoded frame has no size") }
        let dw = width ?? sw, dh = height ?? sh
        let row = dw * layout.channels
        var out = [UInt8](repeating: 0, count: row * dh + 64)
        let format = Resizer.avFormat(layout)
        let threads = threads ?? (sw * sh > 1_000_000 ? 2 : 1)
        let scaler = try Scaler(util: try FFmpegLibraries.util(), sw, sh, AVPixelFormat(rawValue: f.pointee.format), dw, dh, format,
                                flags: Resizer.flags, threads: threads)
        scaler.matchColorspace(of: f)
        try out.withUnsafeMutableBufferPointer { d in
            guard let db = d.baseAddress else { return }
            try Scaler.intoRows(db, rowBytes: row, height: dh, threads: threads) { rows, stride in
                try scaler.scaleFrame(f, into: Scaler.packed(rows, stride: stride), dw, dh, format)
            }
        }
        out.removeLast(64)
        return PixelBuffer(width: dw, height: dh, layout: layout, storage: out)
    }

    /// Whether the frame's pixel format can carry transparency.
    static func hasAlphaChannel(_ f: UnsafeMutablePointer<AVFrame>) -> Bool {
        guard let u = try? FFmpegLibraries.util(), let d = u.av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.pointee.format)) else { return false }
        return d.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0
    }
}

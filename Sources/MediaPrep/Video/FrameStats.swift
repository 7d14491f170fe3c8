import CFFmpeg

/// Cheap brightness and contrast of a frame, from a 64×36 gray version of it.
struct FrameStats {
    let meanLuma: Double
    let stddev: Double

    /// Near-black (fade-ins, lens cap) or flat (title cards, solid fills) frames make poor thumbnails.
    /// Thresholds on a 0–255 full-range scale: black ≈ 16 in video range, text on black ≥ 8 stddev.
    var isRepresentative: Bool { meanLuma > 28 && stddev > 12 }

    /// Higher is a better fallback when no frame passes.
    var interest: Double { stddev + min(meanLuma, 64) / 8 }

    static func measure(_ f: UnsafeMutablePointer<AVFrame>) throws -> FrameStats {
        let samples = try lumaSamples(f)
        var sum = 0.0, sq = 0.0
        for d in samples {
            sum += d
            sq += d * d
        }
        let n = Double(samples.count)
        let mean = sum / n
        return FrameStats(meanLuma: mean, stddev: max(0, sq / n - mean * mean).squareRoot())
    }

    /// A 64×36 grid of luma values on a 0–255 full-range scale. Planar YUV frames are sampled
    /// straight from their Y plane (no scaling pass); anything else goes through swscale.
    static func lumaSamples(_ f: UnsafeMutablePointer<AVFrame>) throws -> [Double] {
        let w = Int(f.pointee.width), h = Int(f.pointee.height)
        let fmt = AVPixelFormat(rawValue: f.pointee.format)
        guard let desc = try FFmpegLibraries.util().av_pix_fmt_desc_get(fmt), w > 0, h > 0 else { throw MediaPrepError(.corrupt, "frame has no size") }
        let d = desc.pointee
        let isPlanarYUV = d.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && d.flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0
            && d.nb_components >= 3 && d.comp.0.depth == 8 && d.comp.0.plane == 0 && d.comp.0.step == 1
        guard isPlanarYUV, let plane = f.pointee.data.0 else {
            return try FrameConverter.convert(f, layout: .gray, width: 64, height: 36).bytes.map(Double.init)
        }
        let stride = Int(f.pointee.linesize.0)
        let full = f.pointee.color_range == AVCOL_RANGE_JPEG || fmt == AV_PIX_FMT_YUVJ420P
            || fmt == AV_PIX_FMT_YUVJ422P || fmt == AV_PIX_FMT_YUVJ444P
        var out: [Double] = []
        out.reserveCapacity(64 * 36)
        for gy in 0..<36 {
            let y = (gy * 2 + 1) * h / 72
            for gx in 0..<64 {
                let x = (gx * 2 + 1) * w / 128
                let v = Double(plane[y * stride + x])
                out.append(full ? v : min(255, max(0, (v - 16) * 255 / 219)))
            }
        }
        return out
    }
}

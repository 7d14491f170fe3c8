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
        let g = try FrameConverter.convert(f, layout: .gray, width: 64, height: 36)
        var sum = 0.0, sq = 0.0
        for v in g.bytes {
            let d = Double(v)
            sum += d
            sq += d * d
        }
        let n = Double(g.bytes.count)
        let mean = sum / n
        return FrameStats(meanLuma: mean, stddev: max(0, sq / n - mean * mean).squareRoot())
    }
}

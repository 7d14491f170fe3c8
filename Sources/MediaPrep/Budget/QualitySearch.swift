import Foundation

/// Finds the highest JPEG quality whose output fits a byte budget, in few rounds.
///
/// Size grows monotonically with quality, so the answer is bracketed. libjpeg scales its
/// quantization tables by S = 5000/q (q < 50) or 200 − 2q, and JPEG size is close to linear in
/// log S, so the next probe is interpolated there (a secant step) rather than bisected. Each
/// round encodes two qualities at once, one per core: typically the estimate and the one
/// above it, which settles the answer in two rounds.
struct QualitySearch: Sendable {
    let progressive: Bool
    var minQuality = 10
    var maxQuality = 98

    struct Result: Sendable {
        let quality: Int
        let data: [UInt8]
        let encodes: Int
    }

    static func logScale(_ q: Int) -> Double {
        let s = q < 50 ? 5000.0 / Double(q) : 200.0 - 2.0 * Double(q)
        return log(max(s, 1))
    }

    /// Quality whose log S is `x`, rounded down.
    static func quality(forLogScale x: Double) -> Int {
        let s = exp(x)
        let q = s > 100 ? 5000 / s : (200 - s) / 2
        return Int(q.rounded(.down))
    }

    func search(_ image: PixelBuffer, maxBytes: Int, start: Int = 92) throws -> Result? {
        var fits: (q: Int, data: [UInt8])? = nil
        var over: (q: Int, size: Int)? = nil
        var encodes = 0
        let progressive = self.progressive
        func round(_ qs: [Int]) throws {
            let unique = Array(Set(qs)).sorted()
            let out = try Parallel.map(unique.count) { i in
                try JPEGEncoder().encode(image, quality: unique[i], progressive: progressive)
            }
            encodes += unique.count
            for (q, d) in zip(unique, out) {
                if d.count <= maxBytes {
                    if fits == nil || q > fits!.q { fits = (q, d) }
                } else if over == nil || q < over!.q {
                    over = (q, d.count)
                }
            }
        }
        let lo = minQuality, hi = maxQuality
        try round([min(max(start, lo), hi), hi])
        if fits?.q == hi { return done(fits, encodes) }
        if fits == nil {
            // Even `start` is too big: bracket from below.
            try round([lo, min(max(lo, start - 20), hi)])
            if fits == nil { return nil }
        }
        while let f = fits, let o = over, o.q - f.q > 1 {
            let x1 = Self.logScale(f.q), x2 = Self.logScale(o.q)
            let y1 = log(Double(f.data.count)), y2 = log(Double(o.size)), yt = log(Double(maxBytes))
            var est = (f.q + o.q) / 2
            if y2 > y1 { est = Self.quality(forLogScale: x1 + (yt - y1) * (x2 - x1) / (y2 - y1)) }
            est = min(max(est, f.q + 1), o.q - 1)
            let next = est + 1 < o.q ? est + 1 : max(f.q + 1, est - 1)
            try round([est, next])
        }
        return done(fits, encodes)
    }

    private func done(_ fits: (q: Int, data: [UInt8])?, _ encodes: Int) -> Result? {
        fits.map { Result(quality: $0.q, data: $0.data, encodes: encodes) }
    }
}

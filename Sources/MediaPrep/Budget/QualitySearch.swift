import Foundation

/// Finds the highest JPEG quality whose output fits a byte budget, in few rounds.
///
/// Size grows monotonically with quality, so the answer is bracketed. libjpeg scales its
/// quantization tables by S = 5000/q (q < 50) or 200 − 2q, and JPEG size is close to linear in
/// log S, so the next probe is interpolated there (a secant step) rather than bisected. Each
/// round encodes two qualities at once, one per core: typically the estimate and the one
/// above it, which settles the answer in two rounds.
struct QualitySearch: Sendable {
    /// Trials are baseline with optimized Huffman tables; the answer is then re-encoded
    /// progressive one or two steps higher, which fits more often than not (progressive is
    /// 1–2 % smaller but twice as slow, so it is kept out of the trials).
    let progressive: Bool
    var minQuality = 10
    var maxQuality = 98
    /// When set, a result below `minQuality` is of no use, so the search starts by probing it.
    var floorOnly = false

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
        let yuv = try JPEGEncoder().planes(image)  // converted once, compressed many times
        func round(_ qs: [Int]) throws {
            let unique = Array(Set(qs)).sorted()
            let out = try Parallel.map(unique.count) { i in
                try JPEGEncoder().encode(yuv, quality: unique[i], progressive: false)
            }
            encodes += unique.count
            for (q, d) in zip(unique, out) {
                if d.count <= maxBytes {
                    if q > (fits?.q ?? Int.min) { fits = (q, d) }
                } else if q < (over?.q ?? Int.max) {
                    over = (q, d.count)
                }
            }
        }
        let lo = minQuality, hi = maxQuality
        let first = min(max(start, lo), hi)
        if floorOnly {
            // Only an answer at or above minQuality is wanted: probe it first and give up at once.
            try round([lo, first])
            if fits == nil { return nil }
            if over == nil { try round([hi]) }
        } else {
            try round([first, hi])
        }
        if fits?.q == hi { return try done(fits, encodes, yuv, maxBytes) }
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
        return try done(fits, encodes, yuv, maxBytes)
    }

    private func done(_ fits: (q: Int, data: [UInt8])?, _ encodes: Int, _ yuv: YUVPlanes, _ budget: Int) throws -> Result? {
        guard let f = fits else { return nil }
        guard progressive else { return Result(quality: f.q, data: f.data, encodes: encodes) }
        let qs = [f.q + 1, f.q + 2].filter { $0 <= maxQuality }
        let trials = qs.isEmpty ? [f.q] : qs
        let out = try Parallel.map(trials.count) { i in
            try JPEGEncoder().encode(yuv, quality: trials[i], progressive: true)
        }
        for (q, d) in zip(trials, out).reversed() where d.count <= budget {
            return Result(quality: q, data: d, encodes: encodes + trials.count)
        }
        return Result(quality: f.q, data: f.data, encodes: encodes + trials.count)
    }
}

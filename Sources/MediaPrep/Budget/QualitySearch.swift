import Foundation

/// Finds the highest JPEG quality whose output fits a byte budget, in few rounds.
///
/// Size grows monotonically with quality, so the answer is bracketed. libjpeg scales its
/// quantization tables by S = 5000/q (q < 50) or 200 − 2q, and JPEG size is close to linear in
/// log S, so the next probe is interpolated there (a secant step) rather than bisected. With two
/// threads each round encodes two qualities at once, one per core: typically the estimate and the
/// one above it, which settles the answer in one round; on one thread, one quality a round.
struct QualitySearch: Sendable {
    /// Every encode is baseline with optimized Huffman tables. Progressive was measured on the
    /// corpus (+0.0001 mean SSIM for +8 % whole-process time) and left out.
    var minQuality = 10
    var maxQuality = 98
    /// When set, a result below `minQuality` is of no use, so the search starts by probing it.
    var floorOnly = false
    /// 4:4:4 chroma instead of 4:2:0.
    var fullChroma = false
    /// Encodes run side by side on this many threads (1 inside a batch that fills the cores).
    var threads = 2

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

    /// Every quality measured at one size, and the best that fit.
    struct Trials: Sendable {
        let result: Result?
        /// quality → bytes, for the rate model of the next size.
        let sizes: [Int: Int]
    }

    func search(_ image: PixelBuffer, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil) throws -> Result? {
        try trials(planes: try JPEGEncoder().planes(image, fullChroma: fullChroma), maxBytes: maxBytes, start: start, prior: prior).result
    }

    /// Predicts from an eighth of the rows first (`PixelBuffer.sampledBands`), then searches the
    /// whole image from that prediction: usually one round of whole encodes instead of three. A
    /// floor check the sample shows clearly out of reach ends there, before the whole image is
    /// even converted to YUV (garden-noisy-5640 at source: 71 → 38 ms).
    func sampledTrials(_ image: PixelBuffer, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil) throws -> Trials {
        guard image.pixelCount >= Self.sampleFrom, let (sample, fraction) = image.sampledBands(every: Self.sampleEvery) else {
            return try trials(planes: try JPEGEncoder().planes(image, fullChroma: fullChroma), maxBytes: maxBytes, start: start, prior: prior)
        }
        return try sampledTrials(sample: try JPEGEncoder().planes(sample, fullChroma: fullChroma), fraction: fraction,
                                 whole: { try JPEGEncoder().planes(image, fullChroma: fullChroma) }, maxBytes: maxBytes, start: start, prior: prior)
    }

    /// The same for an image already in planes (a hill-climb candidate, converted as soon as it is
    /// scaled so that its RGB is gone before any encode: 72 MP JPEG peak −12.5 MB at 2500 px). The
    /// sample is cut from the planes, identical to converting the sampled rows.
    func sampledTrials(planes: YUVPlanes, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil) throws -> Trials {
        guard planes.width * planes.height >= Self.sampleFrom,
              let (first, below) = SampleBands.sampling(height: planes.height, every: Self.sampleEvery) else {
            return try trials(planes: planes, maxBytes: maxBytes, start: start, prior: prior)
        }
        let sample = planes.everyBand(Self.sampleEvery, from: first, below: below)
        return try sampledTrials(sample: sample, fraction: Double(sample.height) / Double(planes.height), whole: { planes },
                                 maxBytes: maxBytes, start: start, prior: prior)
    }

    private func sampledTrials(sample: YUVPlanes, fraction: Double, whole: () throws -> YUVPlanes, maxBytes: Int, start: Int,
                               prior: RatePrior?) throws -> Trials {
        let header = 600.0  // markers and tables, not scaled with the rows
        let sampleBudget = Int((Double(maxBytes) - header) * fraction + header)
        let s = try trials(planes: sample, maxBytes: sampleBudget, start: start, prior: prior)
        let scaled = s.sizes.mapValues { Int((Double($0) - header) / fraction + header) }
        let slope = RateModel.slope(RateModel.points(scaled, near: log(Double(maxBytes)))) ?? prior?.slope ?? RateModel.defaultSlope
        let predicted = s.result?.quality ?? minQuality
        Trace.note("sample of \(sample.height) rows predicts q=\(predicted)")
        if floorOnly, s.result == nil, (scaled[minQuality] ?? 0) > maxBytes * 11 / 10 {
            return Trials(result: nil, sizes: scaled)  // the floor is clearly out of reach
        }
        return try trials(planes: try whole(), maxBytes: maxBytes, start: start, prior: RatePrior(quality: predicted, slope: slope))
    }

    /// Every 8th band: the whole-image round confirms the answer anyway, so the sample only has to
    /// land near it. Against every 4th, same outputs on both corpora; hard corpus 1.19–1.22 →
    /// 1.14–1.17 s (bench, 1 job, two runs each), easy unchanged (1.23 s); every 16th: 1.23–1.26 s.
    static let sampleEvery = 8
    /// Below this many pixels the whole image is searched directly (sampling would not pay).
    static let sampleFrom = 600_000

    /// - Parameter prior: where a rate model expects the answer; the first round probes it and
    ///   its neighbour, and while a side is open the model's slope extrapolates from the nearest
    ///   measurement (two adjacent qualities differ by 2–4 % in size: too close for a secant).
    func trials(planes yuv: YUVPlanes, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil) throws -> Trials {
        var fits: (q: Int, data: [UInt8])? = nil
        var over: (q: Int, size: Int)? = nil
        var encodes = 0
        var sizes: [Int: Int] = [:]  // quality → bytes for every quality measured
        func measure(_ qs: [Int]) throws {
            let unique = Array(Set(qs.filter { sizes[$0] == nil })).sorted()
            if unique.isEmpty { return }
            let out = try Parallel.map(unique.count, threads: threads) { i in
                try JPEGEncoder().encode(yuv, quality: unique[i], progressive: false)
            }
            encodes += unique.count
            for (q, d) in zip(unique, out) {
                sizes[q] = d.count
                if d.count <= maxBytes {
                    if q > (fits?.q ?? Int.min) { fits = (q, d) }
                } else if q < (over?.q ?? Int.max) {
                    over = (q, d.count)
                }
            }
        }
        let lo = minQuality, hi = maxQuality
        let first = min(max(start, lo), hi)
        let target = log(Double(maxBytes))
        // On one thread a round's second encode is paid in full, and it is wasted whenever the first
        // one decides the answer (the estimate over the budget, its neighbour then certainly too):
        // one probe a round then. 39 photos of 12 MP on one thread each: whole-image encodes 135 → 93,
        // sample and preview encodes 350 → 313, `--jobs 2` 1.95 → 1.70 s, the same outputs.
        let oneAtATime = threads <= 1
        // Only an answer at or above minQuality may be wanted: then probe it first, give up at once.
        if let p = prior {
            let q = min(max(p.quality, lo), hi - 1)
            try measure(oneAtATime ? [q] : [q, q + 1])
        } else if floorOnly {
            try measure(oneAtATime ? [lo] : [lo, first])
        } else {
            try measure(oneAtATime ? [first] : [first, hi])
        }
        if floorOnly && fits == nil && sizes[lo] != nil { return Trials(result: nil, sizes: sizes) }
        var openRounds = 0, bracketedRounds = 0
        // Bracket (fits.q, over.q), open at the ends we have not measured yet.
        while true {
            let below = fits?.q ?? lo - 1, above = over?.q ?? hi + 1
            if above - below <= 1 { break }
            let bracketed = fits != nil && over != nil
            var usedSlope = false
            var est = (below + above) / 2
            if let f = fits, let o = over {
                // Secant on (log S(q), log bytes) between the bracket's ends.
                est = Self.secant((f.q, f.data.count), (o.q, o.size), target: target) ?? est
            } else if let slope = prior?.slope ?? RateModel.slope(RateModel.points(sizes, near: target))
                        ?? (oneAtATime ? RateModel.defaultSlope : nil),
                      let (q0, s0) = sizes.min(by: { abs(log(Double($0.value)) - target) < abs(log(Double($1.value)) - target) }) {
                // The model's slope (or a fit over well-spread measurements) from the nearest point.
                est = Self.quality(forLogScale: Self.logScale(q0) + (target - log(Double(s0))) / slope)
                usedSlope = true
            } else {
                // Through the two measured points nearest the target (an extrapolation).
                let known = sizes.sorted { abs(log(Double($0.value)) - target) < abs(log(Double($1.value)) - target) }
                if known.count >= 2, let e = Self.secant((known[0].key, known[0].value), (known[1].key, known[1].value), target: target) {
                    est = e
                } else if fits == nil {
                    est = max(lo, below + 1, first - 20)
                }
            }
            if oneAtATime && bracketed {
                // A secant can creep along one end of a bent curve; halve the bracket after two tries.
                if bracketedRounds >= 2 { est = (below + above) / 2 }
                bracketedRounds += 1
            }
            est = min(max(est, below + 1), above - 1)
            // Once bracketed, the second probe is the estimate's neighbour, which usually settles
            // it. While a side is open it closes that side (an extrapolated estimate can miss),
            // at once without a prior, after two rounds with one.
            let closeOpenSide = !bracketed && (!usedSlope || openRounds >= 2)
            var closing: Int? = nil
            if closeOpenSide && fits == nil && sizes[lo] == nil { closing = lo }
            else if closeOpenSide && over == nil && sizes[hi] == nil { closing = hi }
            if !bracketed { openRounds += 1 }
            if oneAtATime {
                try measure([closing ?? est])
            } else {
                try measure([est, closing ?? (est + 1 < above ? est + 1 : max(below + 1, est - 1))])
            }
        }
        Trace.note("probes \(sizes.sorted { $0.key < $1.key }.map { "q\($0.key)=\($0.value)" }.joined(separator: " "))")
        return Trials(result: fits.map { Result(quality: $0.q, data: $0.data, encodes: encodes) }, sizes: sizes)
    }

    /// The quality where the line through two (quality, bytes) points in (log S, log bytes) meets the target.
    private static func secant(_ a: (Int, Int), _ b: (Int, Int), target: Double) -> Int? {
        let x1 = logScale(a.0), x2 = logScale(b.0), y1 = log(Double(a.1)), y2 = log(Double(b.1))
        guard y1 != y2 else { return nil }
        return quality(forLogScale: x1 + (target - y1) * (x2 - x1) / (y2 - y1))
    }
}

/// What a rate model expects at one size: the answer's quality, and d(log bytes)/d(log S) there.
struct RatePrior: Sendable {
    var quality: Int
    var slope: Double
}

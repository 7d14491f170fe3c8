import FoundationEssentials
import Glibc

/// Finds the highest JPEG quality whose output fits a byte budget, in few rounds.
///
/// Size grows monotonically with quality, so the answer is bracketed. libjpeg scales its
/// quantization tables by S = 5000/q (q < 50) or 200 − 2q, and JPEG size is close to linear in
/// log S, so the next probe is interpolated there (a secant step) rather than bisected. With two
/// threads each round tries two qualities at once, one per core: typically the estimate and the
/// one above it, which settles the answer in one round; on one thread, one quality a round. A try
/// is a measure (`JPEGMeasure`) on large planes, an encode on small ones.
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
        /// Files written.
        let encodes: Int
        /// Qualities measured without writing (`JPEGMeasure`).
        var measures = 0
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
    /// - Parameter beforeWhole: called when the whole image is about to be searched (the sample did not end it).
    func sampledTrials(_ image: PixelBuffer, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil,
                       beforeWhole: (() -> Void)? = nil) throws -> Trials {
        guard image.pixelCount >= Self.sampleFrom, let (sample, fraction) = image.sampledBands(every: Self.sampleEvery) else {
            beforeWhole?()
            return try trials(planes: try JPEGEncoder().planes(image, fullChroma: fullChroma), maxBytes: maxBytes, start: start, prior: prior)
        }
        return try sampledTrials(sample: try JPEGEncoder().planes(sample, fullChroma: fullChroma), fraction: fraction,
                                 whole: { beforeWhole?(); return try JPEGEncoder().planes(image, fullChroma: fullChroma) },
                                 maxBytes: maxBytes, start: start, prior: prior)
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
        let s = try estimate(planes: sample, maxBytes: sampleBudget, start: start, prior: prior)
        let scaled = s.sizes.mapValues { Int((Double($0) - header) / fraction + header) }
        let slope = RateModel.slope(RateModel.points(scaled, near: log(Double(maxBytes)))) ?? prior?.slope ?? RateModel.defaultSlope
        let predicted = s.fit ?? minQuality
        Trace.note("sample of \(sample.height) rows predicts q=\(predicted)")
        if floorOnly, s.fit == nil, (scaled[minQuality] ?? 0) > maxBytes * 11 / 10 {
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

    /// The highest quality whose file fits, exactly. Large planes are searched on measured sizes
    /// (`JPEGMeasure`: libjpeg quantizes, the Huffman symbols are counted, nothing is written) and
    /// only the answer, and a neighbour whose measure leaves it in doubt, are written; small ones
    /// are searched by writing each probe.
    /// - Parameter prior: where a rate model expects the answer; the first round probes it and
    ///   its neighbour, and while a side is open the model's slope extrapolates from the nearest
    ///   measurement (two adjacent qualities differ by 2–4 % in size: too close for a secant).
    func trials(planes yuv: YUVPlanes, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil) throws -> Trials {
        guard yuv.width * yuv.height >= Self.measureFrom else {
            let files = FileCache()
            let b = try bracket(maxBytes: maxBytes, start: start, prior: prior) { qs in
                try files.write(qs, yuv, threads: threads, measured: { _ in nil }).mapValues(\.count)
            }
            guard let q = b.fit, let data = files.files[q] else { return Trials(result: nil, sizes: b.sizes) }
            return Trials(result: Result(quality: q, data: data, encodes: files.files.count), sizes: b.sizes)
        }
        var measured: [Int: JPEGMeasure] = [:]
        let b = try bracket(maxBytes: maxBytes, start: start, prior: prior) { qs in
            let got = try measure(qs, yuv)
            for m in got { measured[m.quality] = m }
            return Dictionary(uniqueKeysWithValues: got.map { ($0.quality, $0.expected) })
        }
        return try written(yuv, maxBytes: maxBytes, from: b.fit ?? minQuality, measured: measured, sizes: b.sizes)
    }

    /// The answer on measured sizes alone (a sample's prediction): the highest quality expected to fit.
    func estimate(planes yuv: YUVPlanes, maxBytes: Int, start: Int = 92, prior: RatePrior? = nil) throws -> (fit: Int?, sizes: [Int: Int]) {
        guard yuv.width * yuv.height >= Self.measureFrom else {
            let t = try trials(planes: yuv, maxBytes: maxBytes, start: start, prior: prior)
            return (t.result?.quality, t.sizes)
        }
        return try bracket(maxBytes: maxBytes, start: start, prior: prior) { qs in
            Dictionary(uniqueKeysWithValues: try measure(qs, yuv).map { ($0.quality, $0.expected) })
        }
    }

    /// The qualities measured side by side.
    private func measure(_ qs: [Int], _ yuv: YUVPlanes) throws -> [JPEGMeasure] {
        try JPEGEncoder.measure(yuv, qualities: qs, threads: threads)
    }

    /// Below this many pixels every probe is written: a measure costs a small encode's set-up too,
    /// and the answer would be written after it anyway. From 20,000 rather than 100,000: a preview's
    /// searches at 384 px (92,160 pixels, 4–8 probes) took 0.4–1.7 ms less (elephants-3840's preview
    /// 6.2 → 4.5 ms), `prepare small.jpg` 8.9 → 7.6 ms (hyperfine, 30 runs); the same answers.
    static let measureFrom = 20_000

    /// Files written so far, by quality (a class: filled from inside the bracket's probe closure).
    private final class FileCache {
        var files: [Int: [UInt8]] = [:]
        /// Writes the qualities not written yet, side by side; their sizes.
        /// One file alone has the threads to itself: its rows split over them when its measure was (`encode(_:measured:threads:)`).
        func write(_ qs: [Int], _ yuv: YUVPlanes, threads: Int, measured: (Int) -> JPEGMeasure?) throws -> [Int: [UInt8]] {
            let todo = Array(Set(qs.filter { files[$0] == nil })).sorted()
            let t = todo.map(measured)
            let out = try Parallel.map(todo.count, threads: threads) { i in
                if todo.count == 1, let m = t[i] { return try JPEGEncoder().encode(yuv, measured: m, threads: threads) }
                return try JPEGEncoder().encode(yuv, quality: todo[i], progressive: false, tables: t[i]?.tables)
            }
            for (q, d) in zip(todo, out) { files[q] = d }
            return files.filter { qs.contains($0.key) }
        }
    }

    /// From the measured answer to the written one. A measure is exact but for the zero byte stuffed
    /// after each 0xFF of coded data (about 1 byte in 300): a quality whose measure without them is
    /// over the budget is over; one that may fit is written. Steps one quality at a time from `from`:
    /// up while the next fits, down until one does.
    private func written(_ yuv: YUVPlanes, maxBytes: Int, from: Int, measured: [Int: JPEGMeasure], sizes: [Int: Int]) throws -> Trials {
        var measured = measured, sizes = sizes
        let files = FileCache()
        func lower(_ q: Int) throws -> Int {
            if let m = measured[q] { return m.lower }
            let m = try JPEGEncoder.measure(yuv, qualities: [q], threads: threads)[0]
            measured[q] = m
            return m.lower
        }
        func fits(_ q: Int) throws -> Bool {
            if try lower(q) > maxBytes { return false }
            if files.files[q] == nil {
                // Beside it on the other core: the neighbour the next step will ask about, when it may be needed.
                var batch = [q]
                if threads > 1 {
                    if q < maxQuality, let up = measured[q + 1], up.lower <= maxBytes {
                        batch.append(q + 1)
                    } else if q > minQuality, let m = measured[q], m.expected > maxBytes {
                        batch.append(q - 1)
                    }
                }
                for (q, d) in try files.write(batch, yuv, threads: threads, measured: { measured[$0] }) { sizes[q] = d.count }
            }
            return (files.files[q]?.count ?? Int.max) <= maxBytes
        }
        var q = min(max(from, minQuality), maxQuality)
        var best: Int? = nil, over: Int? = nil
        while true {
            if try fits(q) {
                best = q
                if q == maxQuality || over == q + 1 { break }
                q += 1
            } else {
                over = q
                if q == minQuality || best == q - 1 { break }
                q -= 1
            }
        }
        Trace.note("measured \(measured.count) qualities, wrote \(files.files.keys.sorted().map { "q\($0)" }.joined(separator: " "))")
        guard let b = best, let data = files.files[b] else { return Trials(result: nil, sizes: sizes) }
        return Trials(result: Result(quality: b, data: data, encodes: files.files.count, measures: measured.count), sizes: sizes)
    }

    /// Bracket (fits, over) on the sizes `probe` gives for a set of qualities, run side by side.
    private func bracket(maxBytes: Int, start: Int, prior: RatePrior?, probe: ([Int]) throws -> [Int: Int]) throws -> (fit: Int?, sizes: [Int: Int]) {
        var fits: (q: Int, size: Int)? = nil
        var over: (q: Int, size: Int)? = nil
        var sizes: [Int: Int] = [:]  // quality → bytes for every quality measured
        func measure(_ qs: [Int]) throws {
            let unique = Array(Set(qs.filter { sizes[$0] == nil })).sorted()
            if unique.isEmpty { return }
            for (q, size) in try probe(unique) {
                sizes[q] = size
                if size <= maxBytes {
                    if q > (fits?.q ?? Int.min) { fits = (q, size) }
                } else if q < (over?.q ?? Int.max) {
                    over = (q, size)
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
        if floorOnly && fits == nil && sizes[lo] != nil { return (nil, sizes) }
        var openRounds = 0, bracketedRounds = 0
        // Bracket (fits.q, over.q), open at the ends we have not measured yet.
        while true {
            let below = fits?.q ?? lo - 1, above = over?.q ?? hi + 1
            if above - below <= 1 { break }
            let bracketed = fits != nil && over != nil
            var (est, usedSlope) = Self.estimate(fits: fits, over: over, sizes: sizes, target: target, prior: prior, oneAtATime: oneAtATime,
                                                 open: (below, above), fallback: max(lo, below + 1, first - 20))
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
        return (fits?.q, sizes)
    }

    /// The next quality to try inside (below, above), and whether a slope (the prior's, or fitted over
    /// the measurements) gave it.
    private static func estimate(fits: (q: Int, size: Int)?, over: (q: Int, size: Int)?, sizes: [Int: Int], target: Double,
                                 prior: RatePrior?, oneAtATime: Bool, open: (below: Int, above: Int), fallback: Int) -> (Int, Bool) {
        let middle = (open.below + open.above) / 2
        if let f = fits, let o = over {
            // Secant on (log S(q), log bytes) between the bracket's ends.
            return (secant((f.q, f.size), (o.q, o.size), target: target) ?? middle, false)
        }
        if let slope = prior?.slope ?? RateModel.slope(RateModel.points(sizes, near: target)) ?? (oneAtATime ? RateModel.defaultSlope : nil),
           let (q0, s0) = sizes.min(by: { abs(log(Double($0.value)) - target) < abs(log(Double($1.value)) - target) }) {
            // The model's slope (or a fit over well-spread measurements) from the nearest point.
            return (quality(forLogScale: logScale(q0) + (target - log(Double(s0))) / slope), true)
        }
        // Through the two measured points nearest the target (an extrapolation).
        let known = sizes.sorted { abs(log(Double($0.value)) - target) < abs(log(Double($1.value)) - target) }
        if known.count >= 2, let e = secant((known[0].key, known[0].value), (known[1].key, known[1].value), target: target) { return (e, false) }
        return (fits == nil ? fallback : middle, false)
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

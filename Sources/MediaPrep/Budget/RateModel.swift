import FoundationEssentials
import Glibc

/// Bytes as a function of size and quality, fitted from the encodes a budget search already made,
/// so the search at a new size starts next to its answer instead of bracketing from scratch.
///
/// Model: log bytes = A(size) + b · log S(q), with S libjpeg's table scale; A grows with
/// log pixels at rate c. Measured: b ≈ −0.93 and c ≈ 1.31 on garden-noisy-5640 (noise survives
/// at larger sizes, so bytes grow faster than pixels), c ≈ 1.06 on elephants-3840.
struct RateModel: Sendable {
    private var sizes: [(pixels: Int, bytes: [Int: Int])] = []
    static let defaultSlope = -0.9

    mutating func add(pixels: Int, _ bytes: [Int: Int]) {
        guard !bytes.isEmpty else { return }
        if let i = sizes.firstIndex(where: { $0.pixels == pixels }) {
            sizes[i].bytes.merge(bytes) { a, _ in a }
        } else {
            sizes.append((pixels, bytes))
        }
    }

    /// The expected highest quality fitting `maxBytes` at `pixels`, or nil before two sizes are measured.
    func prior(pixels: Int, maxBytes: Int, range: ClosedRange<Int> = 10...98) -> RatePrior? {
        let target = log(Double(maxBytes))
        let byDistance = sizes.sorted { abs(log(Double($0.pixels) / Double(pixels))) < abs(log(Double($1.pixels) / Double(pixels))) }
        // With one size measured, how bytes scale with pixels is a guess (c from 0.5 to 1.4 on the
        // corpora): a search starting from it took more rounds than one starting at q92 (LadyBird.jpg's
        // view: 4 sample rounds from a guessed q66 instead of 2), so no prior until c is measured.
        guard byDistance.count >= 2 else { return nil }
        // Slope from the size with the most points, over those within 4× of the budget (the curve
        // bends towards q98 and q10).
        let richest = sizes.max { $0.bytes.count < $1.bytes.count }
        let slope = richest.flatMap { Self.slope(Self.points($0.bytes, near: target)) } ?? Self.defaultSlope
        func offset(_ bytes: [Int: Int]) -> Double {
            let pts = Self.points(bytes, near: target)
            return pts.map { $0.y - slope * $0.x }.reduce(0, +) / Double(pts.count)
        }
        // c from the two sizes nearest to this one; the offset carried over from the nearest.
        let (nearest, next) = (byDistance[0], byDistance[1])
        let dn = log(Double(next.pixels) / Double(nearest.pixels))
        guard abs(dn) > 0.05 else { return nil }
        let nearestOffset = offset(nearest.bytes)
        let c = min(max((offset(next.bytes) - nearestOffset) / dn, 0.4), 1.6)
        let offsetHere = nearestOffset + c * log(Double(pixels) / Double(nearest.pixels))
        let q = QualitySearch.quality(forLogScale: (target - offsetHere) / slope)
        return RatePrior(quality: min(max(q, range.lowerBound), range.upperBound), slope: slope)
    }

    /// (log S, log bytes) of the measurements within 4× of the target, or all if fewer than two are.
    static func points(_ bytes: [Int: Int], near target: Double) -> [(x: Double, y: Double)] {
        let all = bytes.map { (x: QualitySearch.logScale($0.key), y: log(Double($0.value))) }
        let near = all.filter { abs($0.y - target) < log(4.0) }
        return near.count >= 2 ? near : all
    }

    /// Least-squares slope, or nil when the points do not determine a falling line.
    static func slope(_ pts: [(x: Double, y: Double)]) -> Double? {
        guard pts.count >= 2 else { return nil }
        let n = Double(pts.count)
        let mx = pts.map(\.x).reduce(0, +) / n, my = pts.map(\.y).reduce(0, +) / n
        let sxx = pts.map { ($0.x - mx) * ($0.x - mx) }.reduce(0, +)
        let sxy = pts.map { ($0.x - mx) * ($0.y - my) }.reduce(0, +)
        // Qualities a step or two apart differ by 2–4 % in size, mostly rounding: no slope from them.
        guard (pts.map(\.x).max() ?? 0) - (pts.map(\.x).min() ?? 0) > 0.15, sxx > 1e-9 else { return nil }
        let b = sxy / sxx
        return b < -0.2 ? b : nil
    }
}

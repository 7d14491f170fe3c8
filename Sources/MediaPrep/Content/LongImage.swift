/// Where a long screenshot stops fitting one readable image, and how it is cut.
///
/// Measured (legibility.py, the share of words still read): a 1179×8000 article (6.8:1) as one image
/// within 261,120 bytes reads 100% (864 px wide); a 1170×9000 one with 27 px text (7.7:1) reads 97%
/// (553 px); a 1179×20000 one (17:1) comes out 354 px wide. So parts are cut at most 6 widths tall,
/// and an image is split when it is taller than 12 widths.
enum LongImage {
    static let maxAspect = 12
    static let partAspect = 6

    /// Rows repeated at each cut, so a line split by it is whole in one part: 3% of the width.
    static func overlap(width: Int) -> Int { max(8, width * 3 / 100) }

    /// Row ranges of the parts, top to bottom: equal heights of at most `partAspect` widths, each
    /// overlapping the next by `overlap(width:)`.
    static func parts(width: Int, height: Int) -> [Range<Int>] {
        let overlap = overlap(width: width)
        let maxPart = partAspect * width
        let count = max(1, Int((Double(height - overlap) / Double(maxPart - overlap)).rounded(.up)))
        let step = Double(height - overlap) / Double(count)
        return (0..<count).map { i in
            let start = Int((Double(i) * step).rounded())
            let end = i == count - 1 ? height : min(height, Int((Double(i + 1) * step).rounded()) + overlap)
            return start..<end
        }
    }
}

/// Screenshots, documents and UI captures told from photos: flat graphics are few colours over
/// large flat areas, so a handful of colours covers almost every pixel.
///
/// Measured on a sample of every 8th row, colours quantised to 5 bits a channel: the 8 commonest
/// colours cover 0.955–0.999 of the phone corpus's screenshots and UI capture (chat, article, p3-ui)
/// and a 1170×9000 article, but at most 0.466 of any photo or wallpaper of the three corpora
/// (Flow-5120; smooth gradients such as MilkyWay share equal neighbours, 0.84, but not colours).
/// The line is drawn at 0.80. Gray: no sampled pixel's channels differ by more than 8.
package struct ContentDetector {
    package struct Verdict: Sendable, Equatable {
        /// Text or flat graphics: chroma is kept (4:4:4), or the image goes gray.
        package var isFlat: Bool
        /// Every sampled pixel is a gray: a one-channel JPEG carries it.
        package var isGray: Bool
        /// Share of sampled pixels in the 8 commonest colours.
        package var topColourShare: Double
    }

    static let flatShare = 0.80
    static let rowStep = 8

    package static func detect(_ image: PixelBuffer) -> Verdict {
        let channels = image.layout.channels
        guard image.layout != .gray else {
            let share = topShare(image)
            return Verdict(isFlat: share >= flatShare, isGray: true, topColourShare: share)
        }
        var histogram = [Int32](repeating: 0, count: 1 << 15)
        var gray = true
        var sampled = 0
        image.bytes.withUnsafeBufferPointer { px in
            var y = 0
            while y < image.height {
                var i = y * image.rowBytes
                let end = i + image.rowBytes
                while i < end {
                    let r = Int(px[i]), g = Int(px[i + 1]), b = Int(px[i + 2])
                    histogram[(r >> 3) << 10 | (g >> 3) << 5 | b >> 3] &+= 1
                    if gray && (abs(r - g) > 8 || abs(g - b) > 8) { gray = false }
                    i += channels
                }
                sampled += image.width
                y += rowStep
            }
        }
        let share = Double(top8(histogram)) / Double(max(1, sampled))
        return Verdict(isFlat: share >= flatShare, isGray: gray, topColourShare: share)
    }

    private static func topShare(_ image: PixelBuffer) -> Double {
        var histogram = [Int32](repeating: 0, count: 256)
        var sampled = 0
        for y in stride(from: 0, to: image.height, by: rowStep) {
            for x in 0..<image.width { histogram[Int(image.bytes[y * image.width + x])] &+= 1 }
            sampled += image.width
        }
        return Double(top8(histogram)) / Double(max(1, sampled))
    }

    /// The sum of the 8 largest counts.
    private static func top8(_ histogram: [Int32]) -> Int {
        var best = [Int32](repeating: 0, count: 8)
        for c in histogram where c > best[7] {
            var j = 7
            while j > 0 && best[j - 1] < c { best[j] = best[j - 1]; j -= 1 }
            best[j] = c
        }
        return best.reduce(0) { $0 + Int($1) }
    }
}

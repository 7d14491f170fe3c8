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

    /// - Parameter threads: 2 counts the upper and lower halves of the sampled rows side by side
    ///   (the same counts: milkyway-5120's check 2.3 → 1.3 ms, run alone on one core before).
    package static func detect(_ image: PixelBuffer, threads: Int = 1) -> Verdict {
        guard image.layout != .gray else {
            let share = topShare(image)
            return Verdict(isFlat: share >= flatShare, isGray: true, topColourShare: share)
        }
        let rows = (image.height + rowStep - 1) / rowStep  // sampled rows
        let parts = threads > 1 && image.pixelCount >= 1_000_000 ? 2 : 1
        // The jobs cannot throw; were a half lost, the rows are counted here (never an empty count,
        // which would read as a gray image).
        let counts = (try? Parallel.map(parts, threads: threads) { k in
            count(image, sampledRows: (k * rows / parts)..<((k + 1) * rows / parts))
        }) ?? [count(image, sampledRows: 0..<rows)]
        var histogram = [Int32](repeating: 0, count: 1 << 15)
        for c in counts { for i in histogram.indices { histogram[i] &+= c.histogram[i] } }
        let gray = counts.allSatisfy(\.gray)
        let share = Double(top8(histogram)) / Double(max(1, rows * image.width))
        return Verdict(isFlat: share >= flatShare, isGray: gray, topColourShare: share)
    }

    /// Colours (5 bits a channel) of the sampled rows `sampledRows` (the k-th is row k × `rowStep`),
    /// and whether every pixel there is a gray.
    private static func count(_ image: PixelBuffer, sampledRows: Range<Int>) -> (histogram: [Int32], gray: Bool) {
        let channels = image.layout.channels
        var histogram = [Int32](repeating: 0, count: 1 << 15)
        var gray = true
        image.bytes.withUnsafeBufferPointer { px in
            for k in sampledRows {
                var i = k * rowStep * image.rowBytes
                let end = i + image.rowBytes
                while i < end {
                    let r = Int(px[i]), g = Int(px[i + 1]), b = Int(px[i + 2])
                    histogram[(r >> 3) << 10 | (g >> 3) << 5 | b >> 3] &+= 1
                    if gray && (abs(r - g) > 8 || abs(g - b) > 8) { gray = false }
                    i += channels
                }
            }
        }
        return (histogram, gray)
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

/// Text and flat graphics of at most 256 colours from a lossless source (PNG, GIF, BMP, TIFF), lossless: an 8-bit gray PNG when every pixel is a
/// gray, else a palette PNG. Sent when it fits the budget at full size (nothing is blurred at all).
///
/// Phone corpus: screenshot-chat.png (1179×2556, 231 grays) is a 193,945-byte gray PNG, within
/// 261,120 (a JPEG would shrink it to 1153×2500 at q27); the 1179×8000 article needs 424,902 and
/// goes JPEG.
enum LosslessFlat {
    /// From a megapixel on, the whole PNG is made only when an eighth of its bands predicts at most
    /// this much over the budget: `PNGEncoder.estimate` was +0.5 to +3.4 % off on the hard corpus's
    /// PNGs made gray (gulp, aqua, arc), but +53 % on the 360×1000 screenshot fixture (headers
    /// and blank rows weigh more), which is cheap to encode whole anyway. The prediction comes
    /// before the whole image is indexed: gulp-rgba.png (1920×1200, flattened to grays) took 185 ms
    /// (a Dictionary per pixel, then a whole PNG that could not fit), 36 ms indexed first, 25 ms now.
    static let skipMargin = 1.15
    /// zlib level 1 wrote 1.1–1.6× the default's bytes on the hard corpus's PNGs.
    static let glanceMargin = 2.5
    static let estimateFrom = 1_000_000

    /// The PNG, or nil when the image has more than 256 colours or the PNG is over `maxBytes`.
    /// - Parameter threads: the predictions' sampled bands written in two halves side by side (`PNGEncoder.estimate`).
    static func encode(_ image: PixelBuffer, maxBytes: Int, threads: Int = 1) throws -> EncodedImage? {
        guard image.layout != .rgba else { return nil }  // transparency has its own PNG path
        // Every 8th row first: a photo or gradient shows its 257th colour there at an eighth of the cost.
        var index = ColourIndex()
        guard index.collect(image, everyRow: 8) else { return nil }
        if image.pixelCount >= estimateFrom {
            // Sampled bands only, written as the whole would be: gray while every colour so far is.
            var sampled = index
            let samples = PNGEncoder.sample(image, parts: threads > 1 ? 2 : 1)  // cut once, for the colours and both predictions
            for rows in samples { guard sampled.collect(rows, everyRow: 1) else { return nil } }
            let colours = sampled
            // A glance at zlib level 1 first, as for a transparent picture (BudgetSearch.encodePNG):
            // gulp-rgba.png flattened, 51 colours, glanced 0.94 MB against 0.83 MB at the default
            // level: the step 26 → 6 ms. Only a glance 2.5× past the skip line decides alone.
            let glance = try PNGEncoder.estimate(height: image.height, samples: samples, threads: threads) { rows in try size(rows, colours, level: 1) }
            guard Double(glance) <= Double(maxBytes) * skipMargin * glanceMargin else { return nil }
            let predicted = try PNGEncoder.estimate(height: image.height, samples: samples, threads: threads) { rows in try encoded(rows, colours).count }
            guard Double(predicted) <= Double(maxBytes) * skipMargin else { return nil }
        }
        guard index.collect(image, everyRow: 1) else { return nil }
        let data = try encoded(image, index)
        guard data.count <= maxBytes else { return nil }
        return EncodedImage(data: data, format: .png, width: image.width, height: image.height, quality: nil, score: nil)
    }

    /// The bytes `encoded` would write, at another zlib level.
    private static func size(_ image: PixelBuffer, _ index: ColourIndex, level: Int) throws -> Int {
        if index.gray { return try PNGEncoder.size(image.grayscale(), level: level) }
        return try PNGEncoder.size(indices: index.indices(image), width: image.width, height: image.height, palette: index.palette, level: level)
    }

    /// Exact grays as the gray channel itself, which deflates better than palette indices; other
    /// colours as a palette PNG.
    private static func encoded(_ image: PixelBuffer, _ index: ColourIndex) throws -> [UInt8] {
        if index.gray { return try PNGEncoder.encode(image.grayscale()) }  // r = g = b: luma is r exactly
        return try PNGEncoder.encodeIndexed(index.indices(image), width: image.width, height: image.height, palette: index.palette)
    }
}

/// Up to 256 colours → their palette index, by open addressing in 1024 slots (a quarter full at
/// most); the scans read raw pointers.
private struct ColourIndex: Sendable {
    private var keys = [UInt32](repeating: 0, count: 1024)  // colour + 1; 0 is an empty slot
    private var values = [UInt8](repeating: 0, count: 1024)
    private(set) var count = 0
    /// RGB triples in index order.
    private(set) var palette: [UInt8] = []
    /// Every colour so far is a gray.
    private(set) var gray = true

    private static func slot(_ key: UInt32) -> Int { Int((key &* 0x9E37_79B1) >> 22) }

    private static func key(_ px: UnsafePointer<UInt8>, _ channels: Int) -> UInt32 {
        channels >= 3 ? UInt32(px[0]) << 16 | UInt32(px[1]) << 8 | UInt32(px[2]) : UInt32(px[0]) &* 0x01_0101
    }

    private func find(_ key: UInt32) -> UInt8? {
        keys.withUnsafeBufferPointer { k in
            var i = Self.slot(key)
            while k[i] != 0 {
                if k[i] == key &+ 1 { return values[i] }
                i = (i + 1) & 1023
            }
            return nil
        }
    }

    private mutating func insert(_ key: UInt32) {
        var i = Self.slot(key)
        while keys[i] != 0 { i = (i + 1) & 1023 }
        keys[i] = key &+ 1
        values[i] = UInt8(count)
        count += 1
        let (r, g, b) = (UInt8(key >> 16), UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key))
        palette += [r, g, b]
        if r != g || g != b { gray = false }
    }

    /// Adds the colours of every `everyRow`-th row; false at the 257th.
    mutating func collect(_ image: PixelBuffer, everyRow: Int) -> Bool {
        let c = image.layout.channels, rowBytes = image.rowBytes
        return image.bytes.withUnsafeBufferPointer { buffer -> Bool in
            guard let px = buffer.baseAddress else { return true }
            var last: UInt32 = .max
            for y in stride(from: 0, to: image.height, by: everyRow) {
                for o in stride(from: y * rowBytes, to: (y + 1) * rowBytes, by: c) {
                    let key = Self.key(px + o, c)
                    guard key != last else { continue }
                    last = key
                    if find(key) == nil {
                        guard count < 256 else { return false }
                        insert(key)
                    }
                }
            }
            return true
        }
    }

    /// Each pixel's palette index, once every colour is collected.
    func indices(_ image: PixelBuffer) -> [UInt8] {
        let c = image.layout.channels
        return [UInt8](unsafeUninitializedCapacity: image.pixelCount) { out, initialized in
            image.bytes.withUnsafeBufferPointer { buffer in
                guard let px = buffer.baseAddress else { return }
                var last: UInt32 = .max, lastIndex: UInt8 = 0
                for i in 0..<image.pixelCount {
                    let key = Self.key(px + i * c, c)
                    if key != last {
                        lastIndex = find(key) ?? 0
                        last = key
                    }
                    out[i] = lastIndex
                }
            }
            initialized = image.pixelCount
        }
    }
}

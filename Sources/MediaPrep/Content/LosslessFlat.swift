/// Text and flat graphics of at most 256 colours from a lossless source (PNG, GIF, BMP, TIFF), lossless: an 8-bit gray PNG when every pixel is a
/// gray, else a palette PNG. Sent when it fits the budget at full size (nothing is blurred at all).
///
/// Phone corpus: screenshot-chat.png (1179×2556, 231 grays) is a 193,945-byte gray PNG, within
/// 261,120 (a JPEG would shrink it to 1153×2500 at q27); the 1179×8000 article needs 424,902 and
/// goes JPEG.
enum LosslessFlat {
    /// The PNG, or nil when the image has more than 256 colours or the PNG is over `maxBytes`.
    static func encode(_ image: PixelBuffer, maxBytes: Int) throws -> EncodedImage? {
        guard image.layout != .rgba else { return nil }  // transparency has its own PNG path
        let c = image.layout.channels
        var index: [UInt32: UInt8] = [:]
        var palette: [UInt8] = []
        var indices = [UInt8](repeating: 0, count: image.width * image.height)
        var gray = true
        let complete = image.bytes.withUnsafeBufferPointer { px -> Bool in
            var last: UInt32 = .max, lastIndex: UInt8 = 0
            for i in 0..<(image.width * image.height) {
                let o = i * c
                let r = px[o], g = c >= 3 ? px[o + 1] : px[o], b = c >= 3 ? px[o + 2] : px[o]
                let key = UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
                if key != last {
                    if let found = index[key] {
                        lastIndex = found
                    } else {
                        guard index.count < 256 else { return false }
                        lastIndex = UInt8(index.count)
                        index[key] = lastIndex
                        palette += [r, g, b]
                        if r != g || g != b { gray = false }
                    }
                    last = key
                }
                indices[i] = lastIndex
            }
            return true
        }
        guard complete else { return nil }
        let data: [UInt8]
        if gray {
            // Exact grays: the gray channel itself, which deflates better than palette indices.
            let values = indices.map { palette[Int($0) * 3] }
            data = try PNGEncoder.encode(PixelBuffer(width: image.width, height: image.height, layout: .gray, storage: values))
        } else {
            data = try PNGEncoder.encodeIndexed(indices, width: image.width, height: image.height, palette: palette)
        }
        guard data.count <= maxBytes else { return nil }
        return EncodedImage(data: data, format: .png, width: image.width, height: image.height, quality: nil, score: nil)
    }
}

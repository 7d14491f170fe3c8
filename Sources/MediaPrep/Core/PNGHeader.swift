/// The PNG IHDR fields a probe needs, read without libpng.
enum PNGHeader {
    /// Over the pixels any image is sent at (`ImageProfile.maxSentPixels`), with every chunk before
    /// the image data in `head`: such a PNG is always shrunk on load, so `prepare` streams it from
    /// the file instead of reading it whole (59 MP PNG, 17.7 MB: its peak memory less by that much).
    static func isStreamed(_ head: [UInt8]) -> Bool {
        guard let (w, h) = size(head), w * h > ImageProfile.simplex.maxSentPixels else { return false }
        return PNGChunks.reachesImageData(head)
    }

    static func size(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 24 else { return nil }
        func be32(_ o: Int) -> Int { head[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (w, h) = (be32(16), be32(20))
        // The PNG spec caps both at 2^31 − 1, which also keeps w × h within Int (found by fuzzing:
        // 0xFFFFFFFF × 0xFFFFFFFF overflowed the pixel-limit check).
        return w > 0 && h > 0 && w <= 0x7FFF_FFFF && h <= 0x7FFF_FFFF ? (w, h) : nil
    }

    /// Why a PNG is dearer to decode than its size says, as `check` words it, or nil: 8 bits a sample
    /// or fewer and a palette of at most 256 entries is what every recipient's decoder handles.
    static func decodeCost(_ head: [UInt8]) -> String? {
        guard head.count >= 26 else { return "no complete header" }
        if head[24] > 8 { return "16-bit samples brought to 8 bits" }
        if let plte = PNGChunks.chunks(head).first(where: { $0.type == "PLTE" }), plte.body.count > 768 {
            return "a palette over 256 entries re-encoded"
        }
        return nil
    }

    /// Colour types 4 and 6 carry alpha, as does a tRNS chunk (before IDAT, so in the head; libpng
    /// ignores one after it). Whether any pixel is really transparent is known only once decoded. The
    /// chunks are walked, not the bytes searched: a search read all of milkyway-5120.png's 10 MB, and
    /// "tRNS" may turn up inside compressed data.
    static func mayHaveAlpha(_ head: [UInt8]) -> Bool {
        head.count > 25 && (head[25] == 4 || head[25] == 6) || PNGChunks.beforeImageData(head).contains { $0.type == "tRNS" }
    }
}

import UploadPlanner

/// The inline preview: a data URI whose whole length stays within the message's budget.
package enum PreviewMaker {
    static let jpegPrefix = "data:image/jpg;base64,"
    static let pngPrefix = "data:image/png;base64,"
    /// Long sides tried, largest first; the first that reaches `minQuality` wins.
    static let sides = [384, 320, 272, 224, 192, 160, 128, 96, 64, 48, 32, 16]
    static let minQuality = 50
    /// An estimate this far over the budget is a miss whatever its error: on arc-transparent's
    /// 384 px preview it came within 0.4 % (24,510 against 24,610 bytes), but a small flat image's
    /// headers, scaled with its rows, inflate it (anim.png 2,388 against 1,565, sticker.webp 3,560
    /// against 2,164).
    static let clearMiss = 2.0

    /// The largest candidate's size, the one pass every preview starts with: a decoder may scale to
    /// it beside its rows, and `make` then starts from that.
    static func firstSize(width: Int, height: Int) -> (width: Int, height: Int) {
        Resizer.fit(width: width, height: height, maxSide: sides[0])
    }

    /// The size a JPEG's DCT scaling (1/2, 1/4, 1/8) gives when that lands between the first two
    /// sides: the preview is then cut from the decode as it comes, with no resize at all. A kept
    /// 640×480 JPEG (its preview 320 px at q78, where it was 384 px at q62): `prepare` 10.7–11.0 →
    /// 8.6 ms a process (hyperfine, alternated).
    static func dctScaled(width: Int, height: Int) -> (width: Int, height: Int)? {
        for d in [1, 2, 4, 8] {
            let (w, h) = ((width + d - 1) / d, (height + d - 1) / d)
            if max(w, h) <= sides[0] { return max(w, h) >= sides[1] ? (w, h) : nil }
        }
        return nil
    }

    /// Bicubic for a first pass from at least twice its size: Lanczos's six taps a source pixel and
    /// two `sin` a tap in each context's filters were the preview's largest cost (4 % of the hard
    /// corpus's CPU was swscale building Lanczos filters, two fifths of that for previews), and look no
    /// sharper at 384 px. Preview made from the 1600 px view (`--threads 1`, trace): garden-noisy
    /// 6.3–6.6 → 5.3–5.5 ms, elephants 9.0–10.4 → 8.0–8.1 ms; scores at the preview's own size
    /// (`quality.py --display 384`) within 0.001 of Lanczos's (garden-noisy 0.9753 both, elephants
    /// 0.8785 → 0.8776, yellowflower 0.9820 → 0.9823), where an area average lost up to 0.005.
    static func firstFilter(width: Int, height: Int) -> Resizer.Filter {
        max(width, height) >= 2 * sides[0] ? .bicubic : .lanczos
    }

    /// Bytes of JPEG/PNG that fit `maxLength` characters once base64-encoded with the prefix.
    static func byteBudget(maxLength: Int, prefix: String) -> Int {
        max(0, (maxLength - prefix.count) / 4 * 3)
    }

    /// - Parameter image: upright pixels; RGBA with real alpha gets a PNG preview when one fits.
    /// - Parameter fullChroma: 4:4:4, for colours converted from a wide gamut or HDR (see `BudgetSearch.fullChroma`).
    /// - Parameter threads: 1 inside a batch that fills the cores (its search then probes one quality a
    ///   round, its resizes take no slice threads), as the image's own search does.
    package static func make(from full: PixelBuffer, maxLength: Int = SimplexLimits.simplex.maxPreviewLength,
                             fullChroma: Bool = false, threads: Int = 2) throws -> String {
        // One pass down to the largest candidate; the smaller ones are cut from that.
        let top = firstSize(width: full.width, height: full.height)
        let image = try Resizer.resize(full, width: top.width, height: top.height, threads: threads,
                                       filter: firstFilter(width: full.width, height: full.height))
        if AlphaOps.hasRealAlpha(image), let png = try pngPreview(image, maxLength: maxLength, threads: threads) { return png }
        let opaque = AlphaOps.flattenOnWhite(image)
        let budget = byteBudget(maxLength: maxLength, prefix: jpegPrefix)
        var search = QualitySearch(minQuality: 20, maxQuality: 90)
        search.fullChroma = fullChroma
        search.threads = threads
        var fallback: [UInt8]? = nil
        for side in sides where side <= max(opaque.width, opaque.height) || side == sides.last {
            let s = Resizer.fit(width: opaque.width, height: opaque.height, maxSide: side)
            let small = try Resizer.resize(opaque, width: s.width, height: s.height, threads: threads)
            guard let r = try search.search(small, maxBytes: budget, start: 70) else { continue }
            if r.quality >= minQuality { return jpegPrefix + Base64.encode(r.data) }
            if fallback == nil { fallback = r.data }
        }
        if let f = fallback { return jpegPrefix + Base64.encode(f) }
        // Even 16 px failed at q20 (cannot happen for real images): a 1 px white JPEG.
        let dot = try JPEGEncoder().encode(PixelBuffer(width: 1, height: 1, layout: .rgb, storage: [255, 255, 255]), quality: 50)
        return jpegPrefix + Base64.encode(dot)
    }

    static func pngPreview(_ image: PixelBuffer, maxLength: Int, threads: Int = 2) throws -> String? {
        let budget = byteBudget(maxLength: maxLength, prefix: pngPrefix)
        // PNG bytes follow the pixel count: after a miss, skip to the side that count says fits
        // (arc-transparent.png: 384, 224, then 192 px, where walking the list encoded seven sizes).
        var limit = max(image.width, image.height)
        func skip(from side: Int, bytes: Int) -> Int {
            min(side - 1, Int(Double(side) * (Double(budget) / Double(bytes)).squareRoot() * 0.97))
        }
        // The first side only estimated (every 4th band of 16 rows) when that clearly misses: a
        // transparent photo's 384 px PNG is several times the budget (arc-transparent: 24,610
        // bytes against 10,482, encoded in 8 ms; the preview 14.7 → 9.4 ms, the same bytes).
        if image.height >= 16 * 4 * 2 {
            let estimate = try PNGEncoder.estimate(image, every: 4)
            if Double(estimate) > Double(budget) * Self.clearMiss { limit = skip(from: limit, bytes: estimate) }
        }
        // With a core to spare, each side tried is written beside the next one down the list, which
        // a miss usually skips to (arc-transparent: 224 then 192 px); a guess the skip passes over is
        // dropped unread. In a full batch, one side at a time.
        let tried = sides.filter { $0 >= 64 }
        var next: (side: Int, data: [UInt8])? = nil
        for (i, side) in tried.enumerated() where side <= limit {
            let pair = [side] + (threads > 1 && i + 1 < tried.count ? [tried[i + 1]] : [])
            let guessed: [[UInt8]]? = next.flatMap { $0.side == side ? [$0.data] : nil }
            let made = try guessed ?? Parallel.map(pair.count, threads: threads) { k in
                let s = Resizer.fit(width: image.width, height: image.height, maxSide: pair[k])
                return try PNGEncoder.encode(try Resizer.resize(image, width: s.width, height: s.height, threads: 1))
            }
            let data = made[0]
            next = made.count > 1 ? (pair[1], made[1]) : nil
            if data.count <= budget { return pngPrefix + Base64.encode(data) }
            limit = skip(from: side, bytes: data.count)
        }
        return nil
    }
}

/// Standard base64 (RFC 4648, with padding), without Foundation's Data round trip.
enum Base64 {
    static let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ d: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((d.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < d.count {
            let n = UInt32(d[i]) << 16 | UInt32(d[i + 1]) << 8 | UInt32(d[i + 2])
            out += [table[Int(n >> 18)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], table[Int(n & 63)]]
            i += 3
        }
        let rest = d.count - i
        if rest == 1 {
            let n = UInt32(d[i]) << 16
            out += [table[Int(n >> 18)], table[Int(n >> 12 & 63)], 61, 61]
        } else if rest == 2 {
            let n = UInt32(d[i]) << 16 | UInt32(d[i + 1]) << 8
            out += [table[Int(n >> 18)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], 61]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import FoundationEssentials
import Glibc
import CJpeg

/// JPEG through TurboJPEG, shrinking in the DCT when the caller needs fewer pixels.
package enum JPEGDecoder {
    /// The stored-orientation size a view of `profile` needs: what shrink-on-load may go down to.
    static func minimumSize(_ h: JPEGHeader, orientation: ExifOrientation, profile: ImageProfile) -> (width: Int, height: Int) {
        let (dw, dh) = orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
        let view = profile.viewSize(width: dw, height: dh)
        return orientation.swapsDimensions ? (view.height, view.width) : (view.width, view.height)
    }

    /// The size the pipeline decodes this JPEG at: shrunk on load to no less than the profile's view.
    static func decodedSize(_ j: JPEGSource, profile: ImageProfile) -> (width: Int, height: Int) {
        let (mw, mh) = minimumSize(j.header, orientation: j.orientation, profile: profile)
        return decodedSize(j.header, options: DecodeOptions(minimumWidth: mw, minimumHeight: mh))
    }

    /// The size `decode` produces for this header and these options (after DCT scaling).
    static func decodedSize(_ h: JPEGHeader, options: DecodeOptions) -> (width: Int, height: Int) {
        let d = scaleDenominator(width: h.width, height: h.height, options: options)
        return ((h.width + d - 1) / d, (h.height + d - 1) / d)
    }

    /// Whether halving by Lanczos (`DecodeOptions.lanczosShrink`) is worth reading the file whole:
    /// when it holds so much fine detail that the scaled IDCT mangles it. Measured as entropy-coded
    /// bytes a pixel, counted at q90's quantisation (the luma table's mean, 11.5 at q90, 1 at q100;
    /// bytes taken to scale as its −0.25 power, q100 holding 1.8× q90's). Gain and cost, whole
    /// process: garden-noisy-5640 (0.58) +0.019 SSIM for 15 % more time, elephants-3840 (0.55)
    /// +0.009 for 7 %; 12 MP photos (0.32–0.39) only +0.002–0.004 for a third more CPU a photo
    /// (39 photos, `--jobs 2`: 1.97 → 2.60 s), a 24 MP photo (0.39) +0.0005; smooth wallpapers
    /// (0.11–0.14) nothing. The line sits at 0.45: the noisy and the densely detailed.
    static func holdsFineDetail(_ src: JPEGSource, fileBytes: Int) -> Bool {
        let pixels = Double(src.header.width) * Double(src.header.height)
        guard pixels > 0, let q = src.lumaQuantisation else { return false }
        let headers = src.markers.segments.reduce(0) { $0 + $1.payload.count + 4 }
        let perPixel = Double(max(0, fileBytes - headers)) / pixels
        return perPixel / pow(11.5 / max(q, 1), 0.25) >= 0.45
    }

    /// Over the pixels any image is sent at (`ImageProfile.maxSentPixels`) and decoded a scanline at a
    /// time (baseline, Huffman): such a file is always shrunk on load, so `prepare` lets the decoder
    /// read it from the file as it goes instead of reading it whole first (a 72 MP JPEG: its 23.7 MB
    /// were held beside the decode). Progressive and multi-scan files hold every coefficient anyway,
    /// and the split decode needs their scans' places in the whole file.
    static func isStreamed(_ h: JPEGHeader) -> Bool {
        h.width * h.height > ImageProfile.simplex.maxSentPixels && !h.costsFullSize
    }

    /// Whether the budget search will scale this image to `view`, so the view is best scaled beside
    /// the decode: surely when even after DCT scaling it is over twice the view's long side (below
    /// that, the source size is tried first); nearly surely when the file's bytes for the decoded
    /// pixels are over twice the budget, which is also when its rows come slower than one thread
    /// scales them (Huffman-bound: garden-noisy-5640 holds 4.9 bits a pixel, 3.04 MB for its
    /// 2820 px decode; 188 against 198 ms a pass). Were the source size to fit after all, only a
    /// spare core's time is lost. Not for a file read at a quarter or less (a 72 MP JPEG peaked at
    /// 61.6 against 50.4 MiB with the view's planes beside its decoder's buffers), nor a
    /// progressive one, whose rows come only after its scans, as fast as they are scaled.
    static func scalesView(_ h: JPEGHeader, fileBytes: Int, maxBytes: Int, options: DecodeOptions, view: (width: Int, height: Int)) -> Bool {
        let d = decodedSize(h, options: options)
        if max(d.width, d.height) > 2 * max(view.width, view.height) { return true }
        let share = Double(d.width * d.height) / Double(max(1, h.width * h.height))
        return share > 0.2 && !h.costsFullSize && Double(fileBytes) * share > 2 * Double(maxBytes)
    }

    /// Whether a decode halved from its planes leaves its scaling thread mostly idle, so the climb's
    /// candidates can be made beside it: a baseline file of ≥ 3 bits a pixel is Huffman-bound
    /// (garden-noisy-5640, 4.9 bits: the scaling thread busy 26 of 98 ms with the view beside it; its
    /// two candidates, 2000 and 2500 px, add about 40 ms on that thread and save 23 ms after).
    /// A progressive file's rows come only after its scans, as fast as they are scaled.
    static func leavesScalerIdle(_ h: JPEGHeader, fileBytes: Int) -> Bool {
        !h.costsFullSize && Double(fileBytes) * 8 >= 3 * Double(h.width) * Double(h.height)
    }

    /// The power-of-two DCT scale (1, 1/2, 1/4, 1/8) that keeps both sides at or above the minimum.
    static func scaleDenominator(width: Int, height: Int, options: DecodeOptions) -> Int {
        guard let mw = options.minimumWidth, let mh = options.minimumHeight else { return 1 }
        var best = 1
        for d in [2, 4, 8] {
            let sw = (width + d - 1) / d, sh = (height + d - 1) / d
            if sw >= mw && sh >= mh { best = d }
        }
        return best
    }

    /// - Parameter lumaOnly: decode just Y (JPEG's full-range BT.601 luma, the metric's "L"),
    ///   skipping chroma entirely; what scoring needs, at a fraction of the cost.
    package static func decode(_ data: [UInt8], parsed: JPEGSource? = nil, options: DecodeOptions = DecodeOptions(),
                              lumaOnly: Bool = false) throws -> DecodedImage {
        try decodeWhileResizing(data, parsed: parsed, options: options, lumaOnly: lumaOnly, to: nil).decoded
    }

    /// The same for a file whose start `head` is (every segment before the first scan): the rest is
    /// read from `file` as the decoder goes (`isStreamed`).
    static func decode(_ head: [UInt8], file: InputFile?, parsed: JPEGSource, options: DecodeOptions) throws -> DecodedImage {
        try decodeWhileResizing(head, file: file, parsed: parsed, options: options, to: nil).decoded
    }

    /// - Parameter size: a size to scale the decoded (stored-orientation) pixels to while later rows
    ///   are still being decoded (`RowPipeline`); not for CMYK, which is converted afterwards.
    /// - Parameter candidates: hill-climb sizes whose 4:2:0 planes are made beside a decode halved from
    ///   its planes (`halvedFromPlanes`); any other decode makes none.
    static func decodeWhileResizing(_ data: [UInt8], file: InputFile? = nil, parsed: JPEGSource? = nil, options: DecodeOptions,
                                    lumaOnly: Bool = false, candidates: [ClimbSize] = [],
                                    to size: ((Int, Int) -> (width: Int, height: Int)?)?) throws -> ResizedDecode {
        let src = try parsed ?? JPEGSource(data)
        let hdr = src.header
        let d = scaleDenominator(width: hdr.width, height: hdr.height, options: options)
        let (w, ht) = decodedSize(hdr, options: options)
        try checkHeader(hdr, fileBytes: file?.size ?? data.count, decoded: w * ht, limit: options.maxPixels)
        let gray = hdr.isGray || (lumaOnly && !hdr.isCMYK)
        let layout: PixelLayout = gray ? .gray : .rgb
        let space = hdr.isCMYK ? cjpeg_space_cmyk() : (gray ? cjpeg_space_gray() : cjpeg_space_rgb())
        let channels = hdr.isCMYK ? 4 : layout.channels
        // The reader refuses a frame header that claims more 8×8 blocks than the data has bits
        // (65000×65000 in 43 KB) before anything is allocated here.
        // libjpeg's own buffers at the limit: every coefficient of 4:4:4 at the pixel limit, plus room.
        let maxMemory = options.maxPixels * 6 + 64 << 20
        // Two decoders hold every coefficient each: only up to the pixels sent at most (4096², 48 MB
        // of coefficients each), so a larger progressive file keeps its single decode's memory.
        let split = file == nil && options.threads > 1 && hdr.isProgressive && !hdr.isArithmetic && !gray && !hdr.isCMYK
            && hdr.width * hdr.height <= ImageProfile.simplex.maxSentPixels ? ProgressiveSplit(data, markers: src.markers) : nil
        // Read whole and halved by Lanczos as the rows come (`lanczosShrink`). Only from the full
        // size: a 72 MP photo read at 1/2 for 1/4 held its planes beside the RGB (peak 82 → 96 MiB,
        // vips 53) for 0.0022 SSIM; a 24 MP one read whole for 1/2 held 4 MiB more.
        let halves = options.lanczosShrink && d == 2 && !hdr.isCMYK && !lumaOnly
        let readScale = halves ? d / 2 : d
        let (rw, rh) = ((hdr.width + readScale - 1) / readScale, (hdr.height + readScale - 1) / readScale)
        // A colour file halved is read as its Y, Cb and Cr planes (`halvedFromPlanes`).
        let readSpace = halves && !gray ? cjpeg_space_raw() : space
        var planes: [Int: YUVPlanes] = [:]
        let (out, scaler): ([UInt8], PackingSliceResizer?) = try JPEGDecoder.withReader(data, file: file, scale: readScale, space: readSpace, width: rw, height: rh,
                                                                                 channels: channels, maxMemory: maxMemory, split: split) { reader in
            if reader.isSplit { Trace.note("luma and chroma scans decoded at once") }
            let view = hdr.isCMYK ? nil : size?(w, ht).flatMap { s in (s.width, s.height) != (w, ht) ? s : nil }
            if !reader.planes.isEmpty {
                Trace.note("read whole as Y, Cb, Cr and halved by Lanczos")
                let (halved, scaler, beside) = try halvedFromPlanes(reader, to: (w, ht), view: view, candidates: candidates, threads: options.threads)
                for c in beside { planes[c.long] = try c.planes() }
                return (halved.bytes, scaler)
            }
            let scaler = try view.map { try PackingSliceResizer(width: w, height: ht, layout: layout, toWidth: $0.width, height: $0.height, band: RowPipeline.band) }
            guard halves else {
                var out = PixelBuffer.storage(w * ht * channels)
                try out.withUnsafeMutableBufferPointer { p in
                    guard let base = p.baseAddress else { return }
                    try RowPipeline.run(reader, into: base, scaler: scaler)
                }
                return (out, scaler)
            }
            // The view beside is scaled from the halved rows as they are packed: the same pixels
            // as scaling the halved image afterwards, as a decode on one thread does.
            let work = try PackingSliceResizer(width: rw, height: rh, layout: layout, toWidth: w, height: ht, band: RowPipeline.band)
            try RowPipeline.run(reader, threads: options.threads) { rows, count in
                try work.feed(rows, count: count, then: scaler.map { s in { try s.feed($0, count: $1) } })
            }
            return (try work.pixels().bytes, scaler)
        }
        let pixels: PixelBuffer
        if hdr.isCMYK {
            let inverted = hasAdobeMarker(data, src.markers)
            if let c = options.colour, c.isCMYK {
                pixels = try CMYKConverter.toRGB(out, width: w, height: ht, profile: c.profile, adobeInverted: inverted)
            } else {
                pixels = CMYKConverter.toRGB(out, width: w, height: ht, adobeInverted: inverted)
            }
        } else {
            pixels = PixelBuffer(width: w, height: ht, layout: layout, storage: out)
        }
        let decoded = DecodedImage(pixels: pixels, format: .jpeg, sourceWidth: hdr.width, sourceHeight: hdr.height,
                                   orientation: src.orientation)
        return ResizedDecode(decoded: decoded, scaled: scaler, planes: planes)
    }

    /// What decoding will cost, checked before anything is allocated: Huffman coding spends at least one
    /// bit per 8×8 block (a header claiming more is cut off or forged, as the reader also refuses); the
    /// decoded size within `limit`, and the full size too when decoding costs it (`costsFullSize`).
    static func checkHeader(_ h: JPEGHeader, fileBytes: Int, decoded: Int, limit: Int) throws {
        let blocks = Double((h.width + 7) / 8) * Double((h.height + 7) / 8)
        if !h.isArithmetic, Double(fileBytes) * 8 < blocks {
            throw MediaPrepError(.truncated, "JPEG data is damaged: the frame header claims \(h.width)x\(h.height), more than \(fileBytes) bytes can hold")
        }
        if decoded > limit {
            throw MediaPrepError(.tooManyPixels, "\(h.width)×\(h.height) is over the \(limit)-pixel limit")
        }
        if h.costsFullSize, h.width * h.height > limit {
            let why = h.isArithmetic ? "an arithmetic-coded" : "a progressive or multi-scan"
            throw MediaPrepError(.tooManyPixels, "\(h.width)×\(h.height) is over the \(limit)-pixel limit (\(why) JPEG is decoded at its full size)")
        }
    }

    /// A reader whose output has the size and channels the header promised.
    private static func withReader<R>(_ data: [UInt8], file: InputFile?, scale: Int, space: Int32, width: Int, height: Int, channels: Int,
                                      maxMemory: Int, split: ProgressiveSplit? = nil, _ body: (JPEGRowReader) throws -> R) throws -> R {
        try JPEGRowReader.with(data, file: file, scale: scale, space: space, maxMemory: maxMemory, split: split) { reader in
            if let y = reader.planes.first {
                guard y.width == width, y.height == height else {
                    throw MediaPrepError(.corrupt, "decoder output \(y.width)×\(y.height) luma, expected \(width)×\(height)")
                }
                return try body(reader)
            }
            guard reader.width == width, reader.height == height, reader.channels == channels else {
                throw MediaPrepError(.corrupt, "decoder output \(reader.width)×\(reader.height)×\(reader.channels), expected \(width)×\(height)×\(channels)")
            }
            return try body(reader)
        }
    }

    /// - Parameter data: the file, or only its head when it is read from the file as it decodes: a
    ///   segment past what `data` holds is not looked at (found by fuzzing, a head cut short).
    private static func hasAdobeMarker(_ data: [UInt8], _ markers: JPEGMarkers) -> Bool {
        let adobe = Array("Adobe".utf8)
        return markers.segments.contains { s in
            s.marker == 0xEE && s.payload.count >= 5 && s.payload.lowerBound + 5 <= data.count
                && Array(data[s.payload.lowerBound..<s.payload.lowerBound + 5]) == adobe
        }
    }
}

/// CMYK JPEGs (print workflows): through their profile when they carry one (Little CMS), else the
/// naive product, which is what browsers and Pillow show for an untagged file.
enum CMYKConverter {
    static func toRGB(_ cmyk: [UInt8], width: Int, height: Int, profile: [UInt8], adobeInverted: Bool) throws -> PixelBuffer {
        let t = try ColourTransform(profile: profile, input: adobeInverted ? .cmykInverted : .cmyk)
        var rgb = PixelBuffer.storage(width * height * 3)
        cmyk.withUnsafeBytes { s in rgb.withUnsafeMutableBytes { d in
            if let sb = s.baseAddress, let db = d.baseAddress { t.run(sb, db, count: width * height) }
        } }
        return PixelBuffer(width: width, height: height, layout: .rgb, storage: rgb)
    }

    static func toRGB(_ cmyk: [UInt8], width: Int, height: Int, adobeInverted: Bool) -> PixelBuffer {
        var rgb = PixelBuffer.storage(width * height * 3)
        Parallel.pixels(width * height, from: cmyk, into: &rgb, threads: 2) { s, d, range in
            for i in range {
                // Adobe writes inverted CMYK: a stored value is already 255 − ink.
                var c = Int(s[i * 4]), m = Int(s[i * 4 + 1]), y = Int(s[i * 4 + 2]), k = Int(s[i * 4 + 3])
                if !adobeInverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                d[i * 3] = AlphaOps.div255(c * k + 127)
                d[i * 3 + 1] = AlphaOps.div255(m * k + 127)
                d[i * 3 + 2] = AlphaOps.div255(y * k + 127)
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb, storage: rgb)
    }
}

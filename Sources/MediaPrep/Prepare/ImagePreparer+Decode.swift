/// Decoding for `ImagePreparer`: with a core to spare, the view-size image is scaled from the rows
/// as they are decoded.
extension ImagePreparer {
    /// The decoded image and, when they were made on the side, the same pixels scaled to the view and
    /// the climb's candidates.
    ///
    /// A PNG's rows come slower than one thread scales them (free in wall time); a JPEG's come
    /// faster, so only JPEGs that will need the view and whose rows come slowly do it
    /// (`JPEGDecoder.scalesView`; measured: Shell-5120.jpg 141 → 151 ms, YellowFlower.jpg 128 →
    /// 151 ms when every JPEG did), and the Huffman-bound ones the climb's candidates too
    /// (`leavesScalerIdle`). Sources scaled in another orientation or to another size give neither.
    /// Shrink-on-load only needs to keep the view size: a JPEG's minimum decoded size.
    /// - Parameter hdrStill: an HDR HEIF's size: halved on load while it stays at least the view (`HDRStill`).
    func decodeOptions(_ jpeg: JPEGSource?, webp: WebPDecoder.Header? = nil, colour: SourceColour?, fileBytes: Int,
                       hdrStill: (width: Int, height: Int)? = nil) -> DecodeOptions {
        var options = decode
        options.colour = colour
        options.threads = threads
        if let j = jpeg {
            options.lanczosShrink = JPEGDecoder.holdsFineDetail(j, fileBytes: fileBytes)
            (options.minimumWidth, options.minimumHeight) = JPEGDecoder.minimumSize(j.header, orientation: j.orientation, profile: profile)
        } else if let w = webp {
            options = WebPDecoder.shrinkingOnLoad(w, profile: profile, options)
        } else if let s = hdrStill {
            let view = profile.viewSize(width: s.width, height: s.height)
            (options.minimumWidth, options.minimumHeight) = (view.width, view.height)
        }
        return options
    }

    /// The decode `prepare` makes of this source, as fast as `prepare` makes it (shrink-on-load, and a
    /// progressive file's scans and a Lanczos halving on `threads`), with nothing scaled beside it:
    /// the floor `bench` reads the whole pipeline's time against. A file the plan keeps is decoded
    /// as its proof is: a JPEG at the preview's scale, a PNG by libpng's zlib.
    package func decodeOnly(source: ProbedSource) throws -> DecodedImage {
        if let route = try keptRoute(source), [.png, .jpeg].contains(source.probe.format) {
            var data = source.data ?? []
            if !source.isWhole { data = try InputFile(source.probe.path).whole(after: data) }
            if let j = source.jpeg { return try provingDecode(jpeg: data, j, parsed: route == .untouched) }
            return try provingDecode(png: data, scalingPreview: false).decoded
        }
        let options = decodeOptions(source.jpeg, webp: source.webp, colour: source.colour, fileBytes: source.probe.bytes,
                                    hdrStill: source.hdrSize)
        var alone = self
        alone.threads = 1  // no view scaled beside the decode
        let stream = [.png, .jpeg].contains(source.probe.format) && !source.isWhole ? source.probe.path : nil
        return try alone.decodeScalingToView(source.data ?? [], stream: stream, jpeg: source.jpeg, format: source.probe.format,
                                             already: try predecoded(source, data: source.data ?? []), options: options).decoded
    }

    /// The picture the probe decoded already (GIF, BMP, TIFF, JPEG 2000), or a raw photo's, whose
    /// demosaic waits for here: LibRaw in its child process, halved on load while that keeps the view.
    /// A TIFF is decoded here, from its file, halved on load while it keeps the view when it is too
    /// large to be sent at its own size (`shrinking`: not for a long picture cut into parts).
    func predecoded(_ source: borrowing ProbedSource, data: [UInt8], shrinking: Bool = true) throws -> DecodedImage? {
        if let first = source.firstFrame { return first }
        if let t = source.tiff {
            var options = decode
            if shrinking, t.width * t.height > profile.maxSentPixels, let w = source.probe.width, let h = source.probe.height {
                let view = profile.viewSize(width: w, height: h)
                (options.minimumWidth, options.minimumHeight) = (view.width, view.height)
            }
            let path = source.probe.path
            return try Trace.time("decode (libtiff)") { try TIFFDecoder.decode(try InputFile(path), options: options) }
        }
        guard let raw = source.raw else { return nil }
        return try Trace.time("decode (LibRaw, in its own process)") {
            try RawDecoder.decode(data, header: raw, format: source.probe.format, options: decode, profile: profile)
        }
    }

    /// Whether a PNG's view is scaled beside its decode: not for one that may be transparent and is
    /// tried at its own size first. Transparent, its view serves only the PNG trials, whose glance
    /// scales just its own rows (`encodePNG`); opaque, its own size is tried first.
    private func scalesViewBeside(png data: [UInt8], search: BudgetSearch?) -> Bool {
        guard PNGHeader.mayHaveAlpha(data), let search, let (w, h) = PNGHeader.size(data) else { return true }
        return !search.triesSourceFirst(work: (w, h), view: profile.viewSize(width: w, height: h))
    }

    /// - Parameter stream: a PNG's or JPEG's path when `data` is only its head: shrunk on load from
    ///   the file, or (a PNG the row reader cannot take) read whole after all.
    /// - Parameter climb: the image's search, whose sizes above the view a Huffman-bound JPEG's
    ///   decode makes beside it (none without it).
    func decodeScalingToView(_ head: [UInt8], stream: String? = nil, jpeg: JPEGSource?, format: MediaFormat,
                             already: DecodedImage?, options: DecodeOptions, climb search: BudgetSearch? = nil) throws -> ResizedDecode {
        if let already { return ResizedDecode(decoded: already, scaled: nil) }
        var data = head
        // Colours converted after decoding cannot be scaled beside it (a CMYK JPEG converts inside the decoder).
        let converts = options.colour.map { !$0.isCMYK } ?? false
        let profile = self.profile
        var result: ResizedDecode? = nil
        // Only what can never be sent at its own size: anything smaller may still go lossless.
        let file = try stream.map { try InputFile($0) }
        if format == .png, let (pw, ph) = PNGHeader.size(data), pw * ph > profile.maxSentPixels {
            result = try Trace.time("decode, shrinking on load") {
                try PNGDecoder.decodeShrinking(data, file: file, options: options, threads: threads) { w, h in
                    // Halved while it stays at least the view, as a JPEG's DCT scaling or libvips's
                    // shrink-on-load would (8870×6650 → 2218×1663 for a 1600 px view).
                    let v = profile.viewSize(width: w, height: h)
                    var long = max(w, h)
                    while long / 2 >= max(v.width, v.height) { long /= 2 }
                    return (ImageProfile.scaled(width: w, height: h, longSide: long), converts ? nil : (v.width, v.height))
                }
            }
        }
        // Streamed only if the row reader could take it: one that needs the simplified API is read whole now.
        if result == nil, format == .png, let file { data = try file.whole(after: data) }
        if result != nil {
            // shrunk on load
        } else if threads > 1, !converts, format == .png, scalesViewBeside(png: data, search: search) {
            result = try Trace.time("decode, resizing to view beside it") {
                try PNGDecoder.decodeWhileResizing(data, options: options) { w, h in
                    let v = profile.viewSize(width: w, height: h)
                    return (v.width, v.height)
                }
            }
        } else if threads > 1, !converts, let j = jpeg, !j.header.isCMYK, j.orientation == .up,
                  case let (v, fileBytes) = (profile.viewSize(width: j.header.width, height: j.header.height), file?.size ?? data.count),
                  JPEGDecoder.scalesView(j.header, fileBytes: fileBytes, maxBytes: profile.maxBytes, options: options, view: v) {
            let climb = JPEGDecoder.leavesScalerIdle(j.header, fileBytes: fileBytes)
                ? search?.sidesAbove(work: JPEGDecoder.decodedSize(j.header, options: options), view: v) ?? [] : []
            result = try Trace.time("decode, resizing to view beside it") {
                try JPEGDecoder.decodeWhileResizing(data, file: file, parsed: j, options: options, candidates: climb) { _, _ in (v.width, v.height) }
            }
        }
        guard let r = result else {
            return ResizedDecode(decoded: try Trace.time("decode") {
                if let j = jpeg { return try JPEGDecoder.decode(data, file: file, parsed: j, options: options) }
                return try ImageLoader.load(data: data, path: nil, options: options)
            }, scaled: nil)
        }
        let view = profile.viewSize(width: r.decoded.displayWidth, height: r.decoded.displayHeight)
        let usable = r.decoded.orientation == .up && r.scaled.map { ($0.width, $0.height) == (view.width, view.height) } == true
        return ResizedDecode(decoded: r.decoded, scaled: usable ? r.scaled : nil, planes: r.decoded.orientation == .up ? r.planes : [:])
    }
}

/// Photo or picture in, the file SimpleX would send out: within budget, upright, no metadata.
package struct ImagePreparer: Sendable {
    package var profile: ImageProfile
    package var decode: DecodeOptions
    /// Threads one image may use; a batch that already fills the cores sets 1.
    package var threads = 2
    /// Checked between stages, so an interrupted batch stops within one stage.
    package var cancellation: CancellationFlag?
    /// A kept JPEG is the photo in its original quality (`--quality original`): any size, its colour
    /// profile kept, a turn that cannot be perfect trimmed rather than re-encoded.
    package var keepsOriginal = false

    package init(profile: ImageProfile = .simplex, maxPixels: Int = 100_000_000) {
        self.profile = profile
        decode = DecodeOptions(maxPixels: maxPixels)
    }

    package func prepare(path: String) throws -> PreparedImage {
        try prepare(source: try MediaProbe.source(path: path, depth: .preparing, maxPixels: decode.maxPixels))
    }

    /// Plans as `prepare` does (keep or encode), then carries it out; consumes `source` as below.
    package func prepare(source: consuming ProbedSource) throws -> PreparedImage {
        let keep = try keptRoute(source)
        return try prepare(source: consume source, keep: keep)
    }

    /// The route by which the plan keeps this file, or nil when it is encoded.
    func keptRoute(_ source: borrowing ProbedSource) throws -> PrepareRoute? {
        var rules = SendRules()
        (rules.profile, rules.maxPixels) = (profile, decode.maxPixels)
        let plan = SendPlanner.plan(source, rules)
        if let e = plan.error { throw e }
        if case .keepOriginal(let route) = plan.action { return route }
        return nil
    }

    package func prepare(data: [UInt8], path: String?) throws -> PreparedImage {
        let format = FormatSniffer.sniff(data)
        switch format {
        case .jpeg, .png:
            return try prepare(source: try MediaProbe.source(data: data, name: path ?? "the data"))
        default:
            let decoded = try ImageLoader.load(data: data, path: path, options: decode)
            return try prepare(data: data, jpeg: nil, keep: nil, format: format, decoded: decoded)
        }
    }

    /// From the one pass `MediaProbe.source` made (nothing is read or parsed again), as the plan
    /// says: `keep` a JPEG by that route (re-encoded if a rotation cannot be done perfectly), or encode.
    /// Consumes `source`: its bytes are released once decoded (a 72 MP JPEG's 23.7 MB are then
    /// reused by the search instead of added to it).
    package func prepare(source: consuming ProbedSource, keep: PrepareRoute?) throws -> PreparedImage {
        guard source.probe.kind == .image || source.probe.kind == .animatedImage else {
            throw MediaPrepError(.unsupportedFormat, "not an image this tool decodes (\(source.probe.format.rawValue))")
        }
        var rest = consume source
        var data = rest.takeData()
        var stream: String? = nil
        if [.png, .jpeg].contains(rest.probe.format), !rest.isWhole {
            // Only the head was read (`ProbeDepth.preparing`): streamed if shrunk on load, else read now.
            if keep == nil { stream = rest.probe.path } else { data = try InputFile(rest.probe.path).whole(after: data) }
        }
        let already = try predecoded(rest, data: data)
        if rest.raw != nil { data = [] }  // its pixels are all that is used from here
        return try prepare(data: data, stream: stream, fileBytes: rest.probe.bytes, jpeg: rest.jpeg, webp: rest.webp, keep: keep,
                           format: rest.probe.format, decoded: already, colour: rest.colour, hdrStill: rest.hdrSize)
    }

    /// - Parameters:
    ///   - stream: the PNG's or JPEG's path when `data` is only its head (the decoder reads the rest).
    ///   - fileBytes: the file's size (`data`'s when nil).
    private func prepare(data: consuming [UInt8], stream: String? = nil, fileBytes: Int? = nil, jpeg: JPEGSource?, webp: WebPDecoder.Header? = nil,
                         keep: PrepareRoute?, format: MediaFormat, decoded already: DecodedImage?, colour: SourceColour? = nil,
                         hdrStill: (width: Int, height: Int)? = nil) throws -> PreparedImage {
        try cancellation?.check()
        if let route = keep, let kept = try kept(data, jpeg: jpeg, format: format, route) { return kept }
        let options = decodeOptions(jpeg, webp: webp, colour: colour, fileBytes: fileBytes ?? data.count, hdrStill: hdrStill)
        // One search for the image: the decode makes the climb's candidates its sizes name.
        var search = BudgetSearch(profile: profile)
        let made = try decodeScalingToView(data, stream: stream, jpeg: jpeg, format: format, already: already, options: options, climb: search)
        var (decoded, scaled, candidates) = (made.decoded, made.scaled, made.planes)
        _ = consume data
        if let c = colour, !c.isCMYK {
            // Before anything is resized: a view scaled beside the decode would carry the old colours.
            decoded.pixels = try Trace.time("colours to sRGB") { try c.toSRGB(decoded.pixels, threads: threads) }
            (scaled, candidates) = (nil, [:])
        }
        try cancellation?.check()
        var upright = Trace.time("orient") { Orienter.apply(decoded.orientation, to: decoded.pixels) }
        // From here on the pixels live in `work` alone, so the search can let them go (see `encodeJPEG`).
        let decodedWhole = decoded.pixels.pixelCount == decoded.sourceWidth * decoded.sourceHeight
        let shrunk = decoded.sourceWidth * decoded.sourceHeight / max(1, decoded.pixels.pixelCount)
        decoded.pixels = PixelBuffer(width: 0, height: 0, layout: .rgb, storage: [])
        let view = profile.viewSize(width: decoded.displayWidth, height: decoded.displayHeight)
        let converted = colour != nil
        configure(&search, format: format, shrunk: shrunk, converted: converted)

        var work = Trace.time("alpha check") { AlphaOps.droppingOpaqueAlpha(upright) }
        upright = PixelBuffer(width: 0, height: 0, layout: .rgb, storage: [])
        // The view-size pixels the decode already produced, packed as `work` is (alpha kept only if
        // real); packed only when used.
        let keepAlpha = work.layout == .rgba
        var atView = scaled.map { s in LazyView { try Trace.time("pack view") { try s.pixels(keepAlpha: keepAlpha) } } }
        var encoded: EncodedImage? = nil
        let previewMaxLength = profile.previewMaxLength
        // A transparent image's preview is made while its PNG is deflated (one core), when one is tried.
        var pngPreview: Pending<String>? = nil
        var flattenedOnto: UInt32? = nil
        if work.layout == .rgba {
            (encoded, pngPreview, flattenedOnto) = try transparentStage(&work, &atView, &search, view: view, fullChroma: converted)
        }
        // Text and flat graphics keep their chroma, or go as one gray channel (ContentDetector).
        var content: ContentDetector.Verdict? = nil
        if encoded == nil {
            let lossless = [.png, .gif, .bmp, .tiff].contains(format) || webp?.isLossless == true
            (content, encoded) = try contentStage(&work, &atView, &search, losslessSource: lossless, decodedWhole: decodedWhole)
        }
        let fullChroma = converted || search.fullChroma
        try cancellation?.check()
        // The preview needs only these pixels, not the search's answer: with a core to spare it is
        // made beside the search, from the view-size image as soon as the search has one (the
        // decoder's, or its own), or from `work` when it goes on at the source size (`PreviewStarter`;
        // not before: a view packed early, for a source then sent at its size, is 5 MB more at peak
        // for a 59 MP PNG).
        let previewJob = encoded == nil && threads > 1 ? PreviewStarter(maxLength: previewMaxLength, fullChroma: fullChroma) : nil
        let previewSource: PixelBuffer?
        let result: EncodedImage
        if let png = encoded {
            (result, previewSource) = (png, work)
        } else {
            // Handed over: the search may free the pixels before its last candidate's encodes.
            let handing = BudgetSearch.Handover(consume work, planes: candidates)
            candidates = [:]
            let outcome = try Trace.time("budget search") {
                try search.encodeJPEG(handing: handing, view: view, atView: atView?.pixels, keepPreviewSource: previewJob == nil,
                                      preview: previewJob.map { job in { job.start($0) } })
            }
            (result, previewSource) = (outcome.image, outcome.previewSource)
        }
        guard result.data.count <= profile.maxBytes else {
            throw MediaPrepError(.overLimit, "internal: \(result.data.count) bytes over \(profile.maxBytes)")
        }
        try cancellation?.check()
        if encoded == nil, let stale = pngPreview { _ = try? stale.wait() }  // made for a PNG that did not fit
        let preview = try preview(madeBeside: encoded != nil ? pngPreview : previewJob?.job, from: previewSource, fullChroma: fullChroma)
        var prepared = PreparedImage(data: result.data, format: result.format, width: result.width, height: result.height,
                                     quality: result.quality, route: .encoded, preview: preview, sourceFormat: format,
                                     content: content)
        prepared.flattenedOnto = flattenedOnto
        return prepared
    }

    /// A JPEG or PNG the plan keeps, as it is or without its metadata; nil when it must be encoded.
    private func kept(_ data: [UInt8], jpeg: JPEGSource?, format: MediaFormat, _ route: PrepareRoute) throws -> PreparedImage? {
        if let j = jpeg { return try Trace.time("keep the JPEG as it is") { try keepJPEG(data, j, route) } }
        if format == .png { return try Trace.time("keep the PNG as it is") { try keepPNG(data, route) } }
        return nil
    }

    /// The search's threads and turns. A PNG shrunk on load, and a JPEG read at a quarter or less,
    /// have their trials take turns. Chosen when every trial was a two-pass encode holding 2 bytes a
    /// sample of coefficients (59 MP PNG 85 → 68 MiB, 72 MP JPEG 79 → 73 MiB); trials are measured in
    /// one pass now, and side by side they would cost the same time and 0.3–1.5 MiB more (three runs
    /// each). At a half (12 MP photos, garden-noisy) the second core is worth more than the memory.
    private func configure(_ search: inout BudgetSearch, format: MediaFormat, shrunk: Int, converted: Bool) {
        search.threads = threads
        if (format == .png && shrunk > 1) || shrunk >= 16 { search.encodesAtOnce = 1 }
        search.fullChroma = converted
    }

    /// The preview: the one made beside the PNG's deflate or the search, else made now from the pixels left.
    private func preview(madeBeside job: Pending<String>?, from source: PixelBuffer?, fullChroma: Bool) throws -> String {
        if let job { return try Trace.time("preview (made beside the search)") { try job.wait() } }
        return try Trace.time("preview") {
            guard let source else { throw MediaPrepError(.encodeFailed, "internal: no pixels left for the preview") }
            return try PreviewMaker.make(from: source, maxLength: profile.previewMaxLength, fullChroma: fullChroma, threads: threads)
        }
    }

    /// A transparent picture: a PNG in the budget (its preview made beside the deflate, with a core to
    /// spare), else flattened onto the profile's background for a JPEG.
    private func transparentStage(_ work: inout PixelBuffer, _ atView: inout LazyView?, _ search: inout BudgetSearch, view: (width: Int, height: Int),
                                  fullChroma: Bool) throws -> (EncodedImage?, Pending<String>?, UInt32?) {
        var pngPreview: Pending<String>? = nil
        let rgbaView = threads > 1 ? try atView?.pixels() : nil
        let previewMaxLength = profile.previewMaxLength
        let png = try Trace.time("png trials") { [work] in
            try search.encodePNG(work: work, view: view, atView: rgbaView) { [threads] v in
                if threads > 1 { pngPreview = Pending { try PreviewMaker.make(from: v, maxLength: previewMaxLength, fullChroma: fullChroma) } }
            }
        }
        if let png { return (png, pngPreview, nil) }
        work = Trace.time("flatten") { [work] in AlphaOps.flatten(work, onto: profile.background) }
        atView = nil  // flattening then scaling is not scaling then flattening
        return (nil, pngPreview, profile.background)
    }

    /// What the picture is (ContentDetector), and what that asks: flat graphics captured losslessly
    /// sent as a lossless PNG when one fits, gray ones made one channel, other flat ones keeping their chroma.
    private func contentStage(_ work: inout PixelBuffer, _ atView: inout LazyView?, _ search: inout BudgetSearch,
                              losslessSource: Bool, decodedWhole: Bool) throws -> (ContentDetector.Verdict, EncodedImage?) {
        let verdict = Trace.time("content check") { ContentDetector.detect(work, threads: threads) }
        let withinSide = max(work.width, work.height) <= (profile.maxSide ?? Int.max)
        // Lossless only for what was captured losslessly (screenshots are PNG, some lossless WebP):
        // a JPEG, HEIC, AVIF or lossy WebP carries its codec's noise, which a JPEG keeps as cheaply;
        // and only at its own size: a PNG shrunk on load was resampled already.
        let withinPixels = work.pixelCount <= profile.maxSentPixels && decodedWhole
        if verdict.isFlat, withinSide, withinPixels, losslessSource,
           let png = try Trace.time("lossless flat PNG", { [work] in try LosslessFlat.encode(work, maxBytes: profile.maxBytes, threads: threads) }) {
            return (verdict, png)
        }
        if verdict.isFlat && verdict.isGray && work.layout != .gray {
            work = Trace.time("to gray") { [work] in work.grayscale(threads: threads) }
            if let v = atView { atView = LazyView { [threads] in try v.pixels().grayscale(threads: threads) } }
        } else if verdict.isFlat {
            search.fullChroma = true
        }
        return (verdict, nil)
    }

    /// A JPEG the plan keeps: as it is, with its metadata segments cut out, or turned upright in the
    /// DCT domain when Exif rotates it (nil when its edges do not allow a perfect transform).
    func keepJPEG(_ data: [UInt8], _ j: JPEGSource, _ route: PrepareRoute) throws -> PreparedImage? {
        if keepsOriginal { return try keepOriginalJPEG(data, j, route) }
        let kept: [UInt8]?
        switch route {
        case .rotated: kept = try JPEGRotator.upright(data, orientation: j.orientation).flatMap { $0.count <= profile.maxBytes ? $0 : nil }
        case .stripped where j.header.isArithmetic:
            // Huffman-coded losslessly (`jpegtran -copy none`): most decoders cannot read arithmetic coding.
            kept = try JPEGRotator.upright(data, orientation: .up).flatMap { $0.count <= profile.maxBytes ? $0 : nil }
        case .stripped: kept = JPEGStripper.strip(data, markers: j.markers, tail: j.tail)
        default: kept = data
        }
        guard let out = kept else { return nil }
        let (w, ht) = j.displaySize
        let small = try Trace.time("decode (proves it whole)") { try provingDecode(jpeg: out, j, parsed: route == .untouched) }
        let preview = try Trace.time("preview") { try PreviewMaker.make(from: small.pixels, maxLength: profile.previewMaxLength) }
        return PreparedImage(data: out, format: .jpeg, width: w, height: ht, quality: nil,
                             route: route, preview: preview, sourceFormat: .jpeg)
    }

    /// The photo in its original quality: its own entropy-coded data, metadata gone but its colour
    /// profile, turned upright in the DCT domain (the coefficients moved, none changed; the partial
    /// blocks a turn cannot move trimmed, at most 15 columns or rows), arithmetic coding made Huffman.
    func keepOriginalJPEG(_ data: [UInt8], _ j: JPEGSource, _ route: PrepareRoute) throws -> PreparedImage? {
        var out: [UInt8]
        switch route {
        case .rotated,
             .stripped where j.header.isArithmetic:
            let orientation = route == .rotated ? j.orientation : .up
            guard let turned = try JPEGRotator.upright(data, orientation: orientation, trimming: true) else { return nil }
            out = JPEGRotator.withProfile(turned, from: data, markers: j.markers)
        case .stripped:
            guard let stripped = JPEGStripper.strip(data, markers: j.markers, tail: j.tail, keepingProfile: true) else { return nil }
            out = stripped
        default: out = data
        }
        let header = try JPEGHeader(out)
        let parsed = try JPEGSource(out, isWhole: true)
        let small = try Trace.time("decode (proves it whole)") { try provingDecode(jpeg: out, parsed, parsed: true) }
        let preview = try Trace.time("preview") { try PreviewMaker.make(from: small.pixels, maxLength: profile.previewMaxLength) }
        return PreparedImage(data: out, format: .jpeg, width: header.width, height: header.height, quality: nil,
                             route: route, preview: preview, sourceFormat: .jpeg)
    }

    /// A long screenshot cut at `ranges` (rows of the upright image), each part prepared as any picture
    /// is, top to bottom. Decoded once; colours converted once.
    package func prepareParts(source: ProbedSource, ranges: [Range<Int>]) throws -> [PreparedImage] {
        var options = decode
        options.colour = source.colour
        var data = source.data ?? []
        if [.png, .jpeg].contains(source.probe.format), !source.isWhole { data = try InputFile(source.probe.path).whole(after: data) }
        var decoded = try predecoded(source, data: data, shrinking: false) ?? Trace.time("decode") {
            if let j = source.jpeg { return try JPEGDecoder.decode(data, parsed: j, options: options) }
            return try ImageLoader.load(data: data, path: source.probe.path, options: options)
        }
        if let c = source.colour, !c.isCMYK { decoded.pixels = try c.toSRGB(decoded.pixels, threads: threads) }
        let upright = Orienter.apply(decoded.orientation, to: decoded.pixels)
        return try ranges.map { rows in
            try cancellation?.check()
            let part = try upright.rows(rows)
            let d = DecodedImage(pixels: part, format: source.probe.format, sourceWidth: part.width, sourceHeight: part.height, orientation: .up)
            return try prepare(data: [], jpeg: nil, webp: source.webp, keep: nil, format: source.probe.format, decoded: d)
        }
    }

    /// A PNG the plan keeps (within the budget, sRGB, upright): its own image data, metadata chunks
    /// cut out; decoded once, which proves it whole and gives the preview.
    func keepPNG(_ data: [UInt8], _ route: PrepareRoute) throws -> PreparedImage? {
        guard let out = route == .untouched ? data : PNGStripper.strip(data) else { return nil }
        let resized = try Trace.time("decode (proves it whole)") { try provingDecode(png: out, scalingPreview: true) }
        let pixels = AlphaOps.droppingOpaqueAlpha(resized.decoded.pixels)
        let start = try resized.scaled?.pixels(keepAlpha: pixels.layout == .rgba) ?? pixels
        let preview = try Trace.time("preview") { try PreviewMaker.make(from: start, maxLength: profile.previewMaxLength) }
        return PreparedImage(data: out, format: .png, width: pixels.width, height: pixels.height, quality: nil,
                             route: route, preview: preview, sourceFormat: .png)
    }

    /// The decode that proves a kept JPEG whole: at the preview's scale, which is cheap.
    func provingDecode(jpeg out: [UInt8], _ j: JPEGSource, parsed: Bool) throws -> DecodedImage {
        let (w, ht) = j.displaySize
        let least = PreviewMaker.dctScaled(width: w, height: ht) ?? (min(w, PreviewMaker.sides[0]), min(ht, PreviewMaker.sides[0]))
        return try JPEGDecoder.decode(out, parsed: parsed ? j : nil,
                                      options: DecodeOptions(maxPixels: decode.maxPixels, minimumWidth: least.width, minimumHeight: least.height))
    }

    /// The decode that proves a kept PNG whole: libpng's own zlib (`DecodeOptions.sentAsItIs`), with
    /// the preview's first size scaled beside the rows when asked (the same pixels as scaling
    /// afterwards: arc-transparent.png, 2140×1200 RGBA, 48.9 → 44.1 ms a process, its 10 ms resize on
    /// the other core).
    func provingDecode(png out: [UInt8], scalingPreview: Bool) throws -> ResizedDecode {
        var strict = decode
        strict.sentAsItIs = true
        let resized = try PNGDecoder.decodeWhileResizing(out, options: strict, filter: PreviewMaker.firstFilter) { w, h in
            scalingPreview ? PreviewMaker.firstSize(width: w, height: h) : nil
        }
        // What `decode` falls back to.
        return try resized ?? ResizedDecode(decoded: PNGDecoder.decodeSimplified(out, options: strict), scaled: nil)
    }
}

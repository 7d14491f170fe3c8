/// Chooses output size and JPEG quality together to look best under a byte budget.
///
/// At the view size (what the phone shows full screen) the highest fitting quality is found
/// first; if it is high, that is the answer (smooth photos: measured best on the whole corpus).
/// Otherwise size is hill-climbed by measured SSIM, since for detailed or noisy images a
/// different size at another quality can win (see scripts/budget-grid.py).
package struct BudgetSearch: Sendable {
    package let profile: ImageProfile
    /// At or above this quality at view size, resizing cannot pay for itself.
    package var acceptQuality = 88
    /// A decoded image at most twice the view size (the source itself, or a large JPEG after
    /// DCT shrink-on-load) is sent at that size when this quality fits: the viewer's downscale
    /// then averages JPEG error away and no extra resample blurs it (corpus: 2560 px at q83–84
    /// scored 0.997–0.998 against 0.993–0.995 at 1600; at q71 the 1600 version won). Above 2×
    /// the crossover was not consistent, so larger images always go to the view size first.
    package var sourceSideQuality = 80
    /// Each size step multiplies the long side by this (or its inverse).
    package var sideStep = 1.25
    package var maxSizeSteps = 4
    /// Sizes below the view are tried only when the view's quality is under this. Measured over
    /// the corpora, p40, photos200 and the phone corpus at 60 KB, 120 KB and the default budget: a
    /// step down never won at q ≥ 84 (0 of 170, each lost 0.0004–0.0046); below, it won 22 of 46
    /// times, at q 13–69 (+0.0003 to +0.03) and twice at q 82–83 (+0.0001, +0.0004). A 12 MP
    /// photo at q 84–87 saves a 1280 px candidate: resize, whole-image encodes, decode and score.
    package var stepDownBelow = 84
    /// Threads one image may use (encodes side by side, swscale slices); a full batch sets 1.
    package var threads = 2
    /// Trials at once (at most `threads`); a large image shrunk on load has them take turns (`ImagePreparer`).
    package var encodesAtOnce = 2
    /// 4:4:4 chroma. Colours converted from a wide gamut are saturated at their edges, where 4:2:0
    /// bleeds (phone corpus, wide-p3.jpg at 261,120 bytes: ΔE2000 mean 1.19 → 0.85, p95 3.0 → 2.0
    /// with 4:4:4 at the size the search then picks; luma SSIM 0.973 → 0.96).
    package var fullChroma = false

    package init(profile: ImageProfile) {
        self.profile = profile
    }

    /// The chosen JPEG, and a small RGB image the preview can be cut from cheaply.
    package struct Outcome: Sendable {
        package let image: EncodedImage
        /// Nil when not asked for (`keepPreviewSource`).
        package let previewSource: PixelBuffer?
        /// Long sides whose SSIM the hill-climb measured, in order (none when it did not climb).
        package var sidesScored: [Int] = []
    }

    /// - Parameters:
    ///   - work: upright, opaque pixels at least as large as the view (shrink-on-load output).
    ///   - view: the size the phone shows full screen.
    ///   - atView: `work` scaled to `view`, when the decoder made it on the side (asked for only if needed).
    package func encodeJPEG(work: PixelBuffer, view: (width: Int, height: Int), atView: (() throws -> PixelBuffer)? = nil) throws -> Outcome {
        try encodeJPEG(handing: Handover(work), view: view, atView: atView, keepPreviewSource: true)
    }

    /// Pixels handed to the search, which lets them go once no candidate can need them: the last
    /// candidate's encodes then reuse their memory (a 72 MP JPEG's 1/4-scale decode, 13.5 MB, beside
    /// a 2500 px candidate's coefficients, 12.5 MB). Used by one thread at a time.
    package final class Handover: @unchecked Sendable {
        fileprivate var pixels: PixelBuffer?
        /// Climb candidates' 4:2:0 planes a decoder made beside it (`sidesAbove`), by long side; each
        /// let go once taken, and used only where the search would make the same (RGB work, 4:2:0).
        fileprivate var planes: [Int: YUVPlanes]
        package init(_ pixels: consuming PixelBuffer, planes: [Int: YUVPlanes] = [:]) {
            self.pixels = pixels
            self.planes = planes
        }
        /// Whether the search let the pixels go (its last candidate was scaled).
        package var isLetGo: Bool { pixels == nil }

        fileprivate func get() throws -> PixelBuffer {
            guard let p = pixels else { throw MediaPrepError(.resizeFailed, "internal: the pixels were already let go") }
            return p
        }
    }

    /// The size of handed-over pixels, kept when they are let go.
    private struct WorkSize {
        let width: Int, height: Int
        var pixelCount: Int { width * height }
        init(_ p: PixelBuffer) { (width, height) = (p.width, p.height) }
    }

    /// Whether an image of `work`'s size is tried at that size before the view (`sourceSideQuality`).
    func triesSourceFirst(work: (width: Int, height: Int), view: (width: Int, height: Int)) -> Bool {
        let viewLong = max(view.width, view.height), workLong = max(work.width, work.height)
        return workLong > viewLong && workLong <= 2 * viewLong && workLong <= profile.maxSide ?? Int.max
    }

    /// As `encodeJPEG(work:…)`, on pixels the caller keeps no other reference to.
    /// - Parameters:
    ///   - keepPreviewSource: false when the caller has its preview already: the view-size
    ///     RGB then goes once its luma is taken (a 72 MP JPEG's climb: 5.1 MB less).
    ///   - preview: handed the pixels a preview is best made from, as soon as they exist: the source
    ///     when its search gets past the sample (it may be sent at that size), else the view-size image.
    package func encodeJPEG(handing: Handover, view: (width: Int, height: Int), atView: (() throws -> PixelBuffer)? = nil,
                            keepPreviewSource: Bool, preview: ((PixelBuffer) -> Void)? = nil) throws -> Outcome {
        // Optimized-Huffman baseline throughout; progressive measured not worth it (QualitySearch).
        let work = try WorkSize(handing.get())
        if try handing.get().layout != .rgb || fullChroma { handing.planes = [:] }
        var search = QualitySearch()
        search.threads = min(threads, encodesAtOnce)
        search.fullChroma = fullChroma
        var model = RateModel()
        let viewLong = max(view.width, view.height)
        if triesSourceFirst(work: (work.width, work.height), view: view),
           let done = try atSource(handing, work, &model, keepPreviewSource: keepPreviewSource, preview: preview) {
            return done
        }
        // Resize in RGB (through swscale's planar path), then TurboJPEG's own color conversion:
        // scaling straight into 4:2:0 was measured too, and lost 0.0005 SSIM on the 5120 px PNGs
        // (swscale's RGB→Y inside its scaler is less precise) without being faster end to end.
        let ref = try atView?() ?? Trace.time("resize to view") { try Resizer.resize(handing.get(), width: view.width, height: view.height, threads: threads) }
        preview?(ref)
        let viewTrials = try Trace.time("quality search at view") {
            try search.sampledTrials(ref, maxBytes: profile.maxBytes,
                                     prior: model.prior(pixels: ref.pixelCount, maxBytes: profile.maxBytes))
        }
        model.add(pixels: ref.pixelCount, viewTrials.sizes)
        let first = viewTrials.result
        Trace.note("view \(view.width)x\(view.height) q=\(first?.quality ?? -1) encodes=\(first?.encodes ?? 0)")
        if let f = first, f.quality >= acceptQuality {
            let image = EncodedImage(data: f.data, format: .jpeg, width: view.width, height: view.height, quality: f.quality, score: nil)
            return Outcome(image: image, previewSource: keepPreviewSource ? ref : nil)
        }
        // Hill-climb the long side on measured SSIM.
        let refLuma = Trace.time("view luma") { ref.luma(threads: threads) }
        let previewSource = keepPreviewSource ? ref : nil
        _ = consume ref
        var cache: [Int: EncodedImage?] = [:]
        var scored: [Int] = []
        /// - Parameter last: no candidate can follow this one, so the pixels go once it is scaled.
        func candidate(_ long: Int, last: Bool = false) throws -> EncodedImage? {
            if let c = cache[long] { return c }
            let size = ImageProfile.scaled(width: work.width, height: work.height, longSide: long)
            var r: QualitySearch.Result?
            if long == viewLong {
                r = first  // already searched
            } else {
                // Straight into planes: no packed RGB of the candidate is ever held.
                let made = handing.planes.removeValue(forKey: long).flatMap { ($0.width, $0.height) == (size.width, size.height) ? $0 : nil }
                let planes = try made ?? Trace.time("resize \(long)") {
                    try Resizer.resizeToPlanes(handing.get(), width: size.width, height: size.height, fullChroma: fullChroma, threads: threads)
                }
                if made != nil { Trace.note("\(long) made beside the decode") }
                if last { handing.pixels = nil }
                let pixelCount = size.width * size.height
                let prior = model.prior(pixels: pixelCount, maxBytes: profile.maxBytes)
                let t = try Trace.time("quality \(long)") {
                    try search.sampledTrials(planes: planes, maxBytes: profile.maxBytes, prior: prior)
                }
                model.add(pixels: pixelCount, t.sizes)
                r = t.result
                Trace.note("\(long) predicted q=\(prior?.quality ?? -1) got q=\(r?.quality ?? -1) encodes=\(r?.encodes ?? 0)")
            }
            var result: EncodedImage? = nil
            if let r {
                let seen = try Trace.time("decode \(long), back to view") { try Self.seen(r.data, at: view, larger: size.width >= view.width && size.height >= view.height, threads: threads) }
                let score = Trace.time("ssim") { SSIM.mean(refLuma, SSIM.luma(seen), width: view.width, height: view.height, threads: threads) }
                Trace.note("\(long) ssim=\(score)")
                result = EncodedImage(data: r.data, format: .jpeg, width: size.width, height: size.height, quality: r.quality, score: score)
            }
            cache[long] = result
            if result != nil { scored.append(long) }
            return result
        }
        let maxLong = min(max(work.width, work.height), profile.maxSide ?? Int.max)
        let current = try climb(from: viewLong, maxLong: maxLong, downToo: (first?.quality ?? 0) < stepDownBelow, candidate)
        return Outcome(image: current, previewSource: previewSource, sidesScored: scored)
    }

    /// The whole picture at its own size, when the view is most of it: its JPEG if one fits at
    /// `sourceSideQuality` or better, else nil (and what it measured goes into `model`).
    private func atSource(_ handing: Handover, _ work: WorkSize, _ model: inout RateModel, keepPreviewSource: Bool,
                          preview: ((PixelBuffer) -> Void)?) throws -> Outcome? {
        var atLeast = QualitySearch(minQuality: sourceSideQuality, floorOnly: true, threads: min(threads, encodesAtOnce))
        atLeast.fullChroma = fullChroma
        let whole = try Trace.time("quality search at source") {
            try atLeast.sampledTrials(handing.get(), maxBytes: profile.maxBytes, start: 88, beforeWhole: { if let p = try? handing.get() { preview?(p) } })
        }
        model.add(pixels: work.pixelCount, whole.sizes)
        Trace.note("source \(work.width)x\(work.height) q=\(whole.result?.quality ?? -1)")
        guard let w = whole.result, w.quality >= sourceSideQuality else { return nil }
        let image = EncodedImage(data: w.data, format: .jpeg, width: work.width, height: work.height, quality: w.quality, score: nil)
        return Outcome(image: image, previewSource: keepPreviewSource ? try handing.get() : nil)
    }

    /// The hill climb on measured SSIM: from the view's long side (down first until something fits),
    /// up a step while the score rises, then down when going up never did and `downToo`.
    private func climb(from viewLong: Int, maxLong: Int, downToo: Bool,
                       _ candidate: (_ long: Int, _ last: Bool) throws -> EncodedImage?) throws -> EncodedImage {
        var bestLong = viewLong
        var best = try candidate(viewLong, false)
        // Too big even at the lowest quality: shrink until something fits.
        var steps = 0
        while best == nil && bestLong > 16 {
            bestLong = Int(Double(bestLong) / sideStep)
            best = try candidate(bestLong, false)
        }
        guard var current = best else {
            throw MediaPrepError(.overLimit, "cannot fit this image in \(profile.maxBytes) bytes")
        }
        let directions = downToo ? [sideStep, 1 / sideStep] : [sideStep]
        for (d, direction) in directions.enumerated() {
            var long = bestLong
            func step(_ from: Int) -> Int? { Self.nextSide(from, direction, maxLong: maxLong) }
            while steps < maxSizeSteps, let next = step(long) {
                steps += 1
                // Whatever it scores, nothing follows: no step after it, and no way back down.
                let last = (steps >= maxSizeSteps || step(next) == nil) && (d == directions.count - 1 || bestLong != viewLong)
                guard let c = try candidate(next, last), (c.score ?? 0) > (current.score ?? 0) else { break }
                current = c
                long = next
                bestLong = next
            }
            if bestLong != viewLong { break }  // moved up: no need to look down
        }
        return current
    }

    /// A candidate's luma as the viewer sees it: decoded, and scaled to the view. With a core to
    /// spare, a larger one is scaled down as its rows are decoded (the same pixels: `RowPipeline`),
    /// which ran after the decode, on one core while it decoded: garden-noisy's 2000 and 2500 px
    /// candidates 3.4 + 2.5 → 3.7 and 4.5 + 3.7 → 5.0 ms. One below the view is scaled up after.
    static func seen(_ jpeg: [UInt8], at view: (width: Int, height: Int), larger: Bool, threads: Int) throws -> PixelBuffer {
        guard threads > 1, larger else {
            let decoded = try JPEGDecoder.decode(jpeg, lumaOnly: true).pixels
            return try Resizer.resize(decoded, width: view.width, height: view.height, threads: threads)
        }
        let r = try JPEGDecoder.decodeWhileResizing(jpeg, options: DecodeOptions(), lumaOnly: true) { _, _ in (view.width, view.height) }
        return try r.scaled?.pixels() ?? r.decoded.pixels
    }

    /// The climb's next long side from `from`, one step in `direction`, or nil past the end.
    private static func nextSide(_ from: Int, _ direction: Double, maxLong: Int) -> Int? {
        let next = Int((Double(from) * direction).rounded())
        return next != from && next <= maxLong && next >= 16 ? next : nil
    }

    /// The sizes the climb may try above the view, in its order, for an upright `work`: what
    /// `encodeJPEG` asks a decoder to make beside it (`Handover.planes`).
    package func sidesAbove(work: (width: Int, height: Int), view: (width: Int, height: Int)) -> [ClimbSize] {
        let maxLong = min(max(work.width, work.height), profile.maxSide ?? Int.max)
        var sides: [ClimbSize] = []
        var long = max(view.width, view.height)
        while sides.count < maxSizeSteps, let next = Self.nextSide(long, sideStep, maxLong: maxLong) {
            let size = ImageProfile.scaled(width: work.width, height: work.height, longSide: next)
            sides.append(ClimbSize(long: next, width: size.width, height: size.height))
            long = next
        }
        return sides
    }

    /// PNG keeps transparency when it fits at ≥ `minSideFraction` of the view size; else nil
    /// and the caller flattens on white and goes the JPEG way.
    ///
    /// Decided before encoding: the view-size PNG is predicted from an eighth of its rows
    /// (`PNGEncoder.estimate`). If even the smallest allowed size would be well over the budget,
    /// no full encode is made; otherwise the first trial is the side the prediction says fits.
    ///
    /// - Parameter willEncode: called once, when the prediction says a full PNG encode (one core,
    ///   zlib) is worth trying, with the view-size pixels: the caller may start work of its own on
    ///   the other core.
    package func encodePNG(work: PixelBuffer, view: (width: Int, height: Int), atView scaled: PixelBuffer? = nil,
                          minSideFraction: Double = 2.0 / 3.0, willEncode: ((PixelBuffer) -> Void)? = nil) throws -> EncodedImage? {
        let viewLong = max(view.width, view.height)
        var scaledView = scaled
        func viewPixels() throws -> PixelBuffer {
            if let v = scaledView { return v }
            let v = try Trace.time("resize to view") { try Resizer.resize(work, width: view.width, height: view.height, threads: threads) }
            scaledView = v
            return v
        }
        // PNG bytes follow pixel count, a little denser when smaller (scaled-down detail):
        // at 2/3 of the side expect ≥ 4/9 × 1.1 of the view-size bytes.
        let atSmallest = minSideFraction * minSideFraction * 1.1
        // A glance first: the same rows at zlib level 1, ~5× faster on photo-like rows (kay-radial-alpha:
        // 18 against 98 ms) and never smaller (1.24× the default's bytes there, 1.57× on arc-transparent).
        // Only a glance 2.5× past the skip line decides alone: an image that would have stayed PNG
        // would need level 1 to write > 3× what the default does. It reads every 16th band when
        // there are enough: gulp-rgba 21 → 11 ms, kay-radial-alpha 11 → 6 ms, predictions within
        // 0.5 % of every 8th band's, far inside that margin.
        let every = view.height >= 16 * 16 * 2 ? 16 : 8
        // Without a view scaled beside the decode, only the glance's rows are scaled (the same
        // pixels as those rows of the whole view): a glance that rules PNG out needs no view at
        // all. gulp-rgba and kay-radial-alpha, whose JPEGs then fit at their own size, scaled a
        // 1600 px RGBA view beside their decode for this alone: their decode stage 38 → 17 and
        // 55 → 37 ms.
        let glance = try Trace.time("png glance") {
            if scaledView == nil, let picked = PNGEncoder.sampleBands(height: view.height, every: every, parts: threads > 1 ? 2 : 1) {
                let samples = try Resizer.resizeBands(work, width: view.width, height: view.height, parts: picked)
                return try PNGEncoder.estimate(height: view.height, samples: samples, threads: threads) { try PNGEncoder.size($0, level: 1) }
            }
            return try PNGEncoder.estimate(try viewPixels(), every: every, level: 1, threads: threads)
        }
        Trace.note("png glance \(glance) bytes at \(viewLong) px (zlib level 1)")
        let clearlyOver = Double(glance) * atSmallest > 2.5 * Double(profile.maxBytes) * Self.pngSkipMargin
        let predicted = clearlyOver ? glance : try Trace.time("png estimate") { try PNGEncoder.estimate(try viewPixels(), threads: threads) }
        let smallest = Double(predicted) * atSmallest
        Trace.note("png predicted \(predicted) bytes at \(viewLong) px, ≥ \(Int(smallest)) at the smallest allowed side")
        if smallest > Double(profile.maxBytes) * Self.pngSkipMargin { return nil }
        var long = predicted <= profile.maxBytes ? viewLong
            : Int(Double(viewLong) * (Double(profile.maxBytes) / Double(predicted)).squareRoot() * 0.97)
        let atView = try viewPixels()
        willEncode?(atView)
        var tries = 0
        while Double(long) >= Double(viewLong) * minSideFraction - 0.5, tries < 6 {
            tries += 1
            let size = ImageProfile.scaled(width: work.width, height: work.height, longSide: long)
            let pixels = long == viewLong ? atView : try Trace.time("png resize") { try Resizer.resize(work, width: size.width, height: size.height, threads: threads) }
            let data = try Trace.time("png encode \(size.width)x\(size.height)") { try PNGEncoder.encode(pixels) }
            if data.count <= profile.maxBytes {
                return EncodedImage(data: data, format: .png, width: size.width, height: size.height, quality: nil, score: nil)
            }
            // PNG size is roughly proportional to pixel count; aim a little under.
            let shrink = (Double(profile.maxBytes) / Double(data.count)).squareRoot() * 0.97
            long = min(long - 1, Int(Double(long) * shrink))
        }
        return nil
    }

    /// How far over the budget the smallest allowed PNG may be predicted and still be tried: well
    /// clear of the estimate's error (+1.1 % on arc-transparent.png) and of the 1.1 density guess.
    static let pngSkipMargin = 1.25
}

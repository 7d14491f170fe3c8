import Foundation
import Testing
@testable import MediaPrep

@Suite struct PrepareImageTests {
    static let imageFixtures = [
        "photo.jpg", "small.jpg", "progressive.jpg", "cmyk.jpg", "gray.jpg", "orient-3.jpg", "orient-6.jpg",
        "rgb.png", "rgba.png", "rgba-opaque.png", "palette.png", "rgb16.png", "interlaced.png", "gray.png",
        "sticker.png", "image.webp", "image.bmp", "image.tiff", "still.gif",
    ]
    static let profiles: [ImageProfile] = [
        .simplex, .bluesky, ImageProfile(name: "tight", maxBytes: 40_000, maxSide: 500),
    ]

    @Test(arguments: imageFixtures, profiles.indices)
    func everyFixtureFitsEveryProfile(name: String, profileIndex: Int) throws {
        let profile = Self.profiles[profileIndex]
        let p = try ImagePreparer(profile: profile).prepare(path: Fixture.path(name))
        #expect(p.data.count <= profile.maxBytes)
        #expect(max(p.width, p.height) <= profile.maxSide ?? Int.max)
        // The output is a valid image of the stated size, with no metadata.
        let back = try ImageLoader.load(data: p.data, path: nil)
        #expect(back.pixels.width == p.width && back.pixels.height == p.height)
        #expect(back.orientation == .up)
        if p.format == .jpeg {
            #expect(JPEGMarkers(p.data).metadataSegments(in: p.data).isEmpty)
        } else {
            #expect(Set(PNGChunks.chunks(p.data).map(\.type)).isDisjoint(with: ["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]))
        }
        #expect(p.preview.count <= profile.previewMaxLength)
    }

    @Test func theFloorOfAKeptFileIsTheDecodeThatProvesIt() throws {
        // `bench` reads the pipeline against `decodeOnly`: for a file the plan keeps, that is the
        // proof's decode (a JPEG at the preview's scale, a PNG by libpng's zlib), not an encode's.
        let preparer = ImagePreparer()
        let jpeg = try MediaProbe.source(path: Fixture.path("small.jpg"), depth: .preparing)
        #expect(try preparer.keptRoute(jpeg) == .untouched)
        let small = try preparer.decodeOnly(source: jpeg)
        let least = try #require(PreviewMaker.dctScaled(width: 640, height: 480))
        #expect((small.pixels.width, small.pixels.height) == (least.width, least.height) && least.width < 640)
        let png = try MediaProbe.source(path: Fixture.path("palette.png"), depth: .preparing)
        #expect(try preparer.keptRoute(png) == .untouched)
        let whole = try preparer.decodeOnly(source: png)
        #expect(whole.pixels == (try preparer.provingDecode(png: Fixture.bytes("palette.png"), scalingPreview: false).decoded.pixels))
        // Encoded files keep the encode's decode: photo.jpg at its own size.
        let photo = try MediaProbe.source(path: Fixture.path("photo.jpg"), depth: .preparing)
        #expect(try preparer.keptRoute(photo) == nil)
        #expect(try preparer.decodeOnly(source: photo).pixels.width == 1440)
    }

    @Test func bigPhotoIsSqueezedIntoTheSimplexLimit() throws {
        let source = try Fixture.bytes("photo.jpg")
        #expect(source.count > ImageProfile.simplex.maxBytes)
        let p = try ImagePreparer().prepare(path: Fixture.path("photo.jpg"))
        #expect(p.route == .encoded)
        #expect(p.data.count <= 261_120)
        // A budget search uses the room it has: within 10 % of the limit, not far below it.
        #expect(p.data.count > 261_120 * 9 / 10)
        #expect(!p.data.contains(subsequence: Array("GPS".utf8)))
        #expect(!p.data.contains(subsequence: Array("TestCam".utf8)))
    }

    @Test func tightBudgetHillClimbsSizeOnMeasuredSSIM() throws {
        // photo.jpg is noise-like: at 60 KB its view-size quality is far below acceptQuality, so
        // the search measures SSIM at neighbouring sizes and keeps the best.
        let work = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels
        let profile = ImageProfile(name: "tight", maxBytes: 60_000)
        let search = BudgetSearch(profile: profile)
        let r = try search.encodeJPEG(work: work, view: (1440, 1080)).image
        #expect(r.data.count <= 60_000)
        let score = try #require(r.score)
        #expect(score > 0.2 && score < 1)
        #expect((r.quality ?? 100) < search.acceptQuality)
        // Whatever size won, it beat (or tied) the plain view-size answer on the same metric.
        let ref = work  // 1440×1080 is already the view size
        let plain = try #require(try QualitySearch().search(ref, maxBytes: 60_000))
        let seen = try JPEGDecoder.decode(plain.data).pixels
        let plainScore = SSIM.mean(SSIM.luma(ref), SSIM.luma(seen), width: ref.width, height: ref.height)
        #expect(score >= plainScore - 1e-9)
    }

    /// A Huffman-bound JPEG halved on load with both cores has its view and the climb's candidates
    /// made beside its decode: what it sends is byte for byte what one thread (which makes them in
    /// the search) sends. Noisy detail at q95, a small view and budget so the
    /// search climbs through both candidates (320 → 400 → 500 px).
    @Test func candidatesMadeBesideTheDecodeSendTheSameImage() throws {
        let (w, h) = (1000, 700)
        var bytes = [UInt8](repeating: 0, count: w * h * 3)
        var seed: UInt32 = 5
        for i in 0..<(w * h) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let grain = Int(seed >> 26)  // 0–63
            bytes[i * 3] = UInt8(min(255, i % w / 5 + grain))
            bytes[i * 3 + 1] = UInt8(min(255, i / w / 4 + grain))
            bytes[i * 3 + 2] = UInt8(min(255, 96 + grain))
        }
        let jpeg = try JPEGEncoder().encode(PixelBuffer(width: w, height: h, layout: .rgb, storage: bytes), quality: 95)
        let src = try JPEGSource(jpeg)
        #expect(JPEGDecoder.leavesScalerIdle(src.header, fileBytes: jpeg.count))
        let profile = ImageProfile(name: "small", maxBytes: 6_000, displaySide: 320)
        var two = ImagePreparer(profile: profile), one = two
        (two.threads, one.threads) = (2, 1)
        let sides = BudgetSearch(profile: profile).sidesAbove(work: (500, 350), view: profile.viewSize(width: w, height: h))
        #expect(sides.map(\.long) == [400, 500])
        let a = try two.prepare(data: jpeg, path: nil), b = try one.prepare(data: jpeg, path: nil)
        #expect(a.data == b.data, "\(a.width) px q\(a.quality ?? -1) against \(b.width) px q\(b.quality ?? -1)")
        #expect(a.width > 320, "the search climbed to \(a.width) px")
    }

    /// A candidate's luma as the viewer sees it, scaled down as its rows are decoded on two threads:
    /// the pixels of decoding and then scaling (the score the climb compares); a smaller candidate
    /// is scaled up after its decode.
    @Test func aCandidateScaledBesideItsDecodeIsSeenAsBefore() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        for (w, h) in [(1440, 1080), (1001, 751), (600, 450)] {
            let jpeg = try JPEGEncoder().encode(try Resizer.resize(photo, width: w, height: h), quality: 60)
            let view = (width: 800, height: 600)
            let larger = w >= view.width && h >= view.height
            let two = try BudgetSearch.seen(jpeg, at: view, larger: larger, threads: 2)
            let one = try BudgetSearch.seen(jpeg, at: view, larger: larger, threads: 1)
            #expect(two == one && (two.width, two.height) == (800, 600) && two.layout == .gray, "\(w)×\(h)")
        }
    }

    @Test func noStepDownFromAHighViewQuality() throws {
        let work = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080: the view
        // A budget whose view-size answer is q84–87: under acceptQuality, so the search climbs, but
        // above `stepDownBelow`, where a smaller size never won on the corpora.
        let budget = try #require(try stride(from: 150_000, through: 900_000, by: 25_000).first { b in
            (84..<88).contains(try QualitySearch().search(work, maxBytes: b)?.quality ?? 0)
        })
        var search = BudgetSearch(profile: ImageProfile(name: "high", maxBytes: budget))
        let high = try search.encodeJPEG(work: work, view: (1440, 1080))
        #expect(high.sidesScored == [1440], "budget \(budget)")  // nothing above the source; nothing below tried
        search.stepDownBelow = 101
        let always = try search.encodeJPEG(work: work, view: (1440, 1080))
        #expect(always.sidesScored.first == 1440 && always.sidesScored.count > 1)
        #expect(always.image.data == high.image.data)  // the step down lost here too
    }

    @Test func qualitySearchFindsTheHighestFittingQuality() throws {
        let pixels = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels
        let search = QualitySearch()
        let budget = 120_000
        let r = try #require(try search.search(pixels, maxBytes: budget))
        #expect(r.data.count <= budget)
        let above = try JPEGEncoder().encode(pixels, quality: r.quality + 1)
        #expect(above.count > budget)
        #expect(r.encodes <= 10)  // a search, not a walk over 88 qualities
        // Impossible budgets give nil rather than an oversized file.
        #expect(try search.search(pixels, maxBytes: 500) == nil)
    }

    @Test func qualitySearchIsExactAcrossBudgets() throws {
        // A deterministic sweep (8 KB to 200 KB, both search modes): the answer always fits and
        // one quality more never does; measured cost 2–9 encodes, mostly 2–6, in pairs per round.
        let pixels = try Resizer.resize(try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels, width: 480, height: 360)
        let enc = try JPEGEncoder()
        var encodes: [Int] = []
        for floor in [false, true] {
            for budget in stride(from: 8_000, through: 200_000, by: 3_000) {
                let search = QualitySearch(minQuality: floor ? 80 : 10, floorOnly: floor)
                guard let r = try search.search(pixels, maxBytes: budget, start: floor ? 88 : 92) else {
                    #expect(try enc.encode(pixels, quality: floor ? 80 : 10).count > budget)
                    continue
                }
                #expect(r.data.count <= budget)
                if r.quality < 98 { #expect(try enc.encode(pixels, quality: r.quality + 1).count > budget, "budget \(budget)") }
                encodes.append(r.encodes)
            }
        }
        #expect((encodes.max() ?? 0) <= 10)
        #expect(encodes.filter { $0 <= 6 }.count * 4 >= encodes.count * 3)  // ≥ 75 % within 3 rounds
        // A preview's sizes (384×240, 200×150), measured too since `measureFrom` is 20,000 pixels:
        // the preview's own search (20–90), at budgets around its 10,482 bytes.
        for (w, h) in [(384, 240), (200, 150)] {
            let small = try Resizer.resize(pixels, width: w, height: h)
            #expect(w * h >= QualitySearch.measureFrom)
            for budget in stride(from: 2_000, through: 20_000, by: 750) {
                guard let r = try QualitySearch(minQuality: 20, maxQuality: 90).search(small, maxBytes: budget, start: 70) else {
                    #expect(try enc.encode(small, quality: 20).count > budget)
                    continue
                }
                let same = try r.data == enc.encode(enc.planes(small), quality: r.quality)  // what writing each probe wrote
                #expect(r.data.count <= budget && same)
                if r.quality < 90 { #expect(try enc.encode(small, quality: r.quality + 1).count > budget, "\(w)×\(h), budget \(budget)") }
            }
        }
    }

    /// On one thread the search probes one quality a round: the same answer, fewer encodes. The
    /// sweep covers the floor check, the open start and a prior from the rate model.
    @Test func oneProbeARoundFindsWhatPairsFind() throws {
        let pixels = try Resizer.resize(try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels, width: 480, height: 360)
        let planes = try JPEGEncoder().planes(pixels)
        var paired = 0, single = 0, rounds: [Int] = []
        for floor in [false, true] {
            for budget in stride(from: 8_000, through: 200_000, by: 6_000) {
                for prior in [nil, RatePrior(quality: 60, slope: -0.9)] {
                    var two = QualitySearch(minQuality: floor ? 80 : 10, floorOnly: floor)
                    var one = two
                    two.threads = 2
                    one.threads = 1
                    let a = try two.trials(planes: planes, maxBytes: budget, start: floor ? 88 : 92, prior: prior)
                    let b = try one.trials(planes: planes, maxBytes: budget, start: floor ? 88 : 92, prior: prior)
                    #expect(a.result?.quality == b.result?.quality && a.result?.data == b.result?.data, "budget \(budget), floor \(floor)")
                    paired += a.sizes.count
                    single += b.sizes.count
                    rounds.append(b.sizes.count)
                }
            }
        }
        #expect(single < paired, "\(single) vs \(paired)")
        #expect((rounds.max() ?? 0) <= 9)
    }

    /// Handed over, the pixels go once no candidate can follow (a climb that reached its top step),
    /// and the answer is the one the search gives on pixels the caller keeps; without a preview
    /// source asked for, the view's RGB is not returned either.
    @Test func handedPixelsGoAfterTheLastCandidate() throws {
        let work = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        var letGo = 0
        let budgets = [30_000, 60_000, 120_000]
        for budget in budgets {
            var search = BudgetSearch(profile: ImageProfile(name: "climb", maxBytes: budget))
            search.sourceSideQuality = 101  // never sent at its own size: the climb is what is tested
            let kept = try search.encodeJPEG(work: work, view: (720, 540))
            let handing = BudgetSearch.Handover(work)
            let handed = try search.encodeJPEG(handing: handing, view: (720, 540), keepPreviewSource: false)
            #expect(handed.image.data == kept.image.data && handed.sidesScored == kept.sidesScored, "budget \(budget)")
            #expect(handed.previewSource == nil && kept.previewSource != nil)
            // None could follow: from 720 px up to 1406 (the last step below 1440), or every step taken.
            let noneCouldFollow = kept.sidesScored.contains(1406) || kept.sidesScored.count == 1 + search.maxSizeSteps
            #expect(handing.isLetGo == noneCouldFollow, "budget \(budget): sides \(kept.sidesScored)")
            if handing.isLetGo { letGo += 1 }
        }
        #expect(letGo > 0 && letGo < budgets.count)  // 30 KB takes every step; 60 KB stops at 1125 of 1440
    }

    @Test func exifRotationIsAppliedToTheOutput() throws {
        let p = try ImagePreparer().prepare(path: Fixture.path("orient-6.jpg"))
        let d = try JPEGDecoder.decode(p.data)
        Quadrants.check(d.pixels, tolerance: 28)
    }

    @Test func cleanSmallJPEGPassesThroughUntouched() throws {
        let source = try Fixture.bytes("small.jpg")
        let p = try ImagePreparer().prepare(path: Fixture.path("small.jpg"))
        #expect(p.route == .untouched)
        #expect(p.data == source)
    }

    @Test func smallJPEGWithMetadataIsStrippedLosslessly() throws {
        let clean = try Fixture.bytes("small.jpg")
        var tagged = clean
        let gps = Array("Exif\0\0MM\0*\0\0\0\u{8}GPS 48.8584 N 2.2945 E".utf8)
        tagged.insert(contentsOf: [0xFF, 0xE1, 0, UInt8(gps.count + 2)] + gps, at: 2)
        let p = try ImagePreparer().prepare(data: tagged, path: nil)
        #expect(p.route == .stripped)
        #expect(p.data == clean)  // bit-identical pixels: only the segment is gone
    }

    @Test(arguments: 2...8)
    func rotatedSmallJPEGIsTurnedLosslessly(n: Int) throws {
        let source = try Fixture.bytes("orient-\(n).jpg")
        let p = try ImagePreparer().prepare(path: Fixture.path("orient-\(n).jpg"))
        #expect(p.route == .rotated)
        #expect(p.width == 64 && p.height == 48)
        #expect(p.data.count <= 261_120)
        #expect(ExifOrientation.fromJPEG(p.data) == .up)
        #expect(JPEGMarkers(p.data).metadataSegments(in: p.data).isEmpty)
        // The same pixels as decoding then turning them, up to IDCT/upsampling rounding.
        let turned = Orienter.apply(ExifOrientation(rawValue: n) ?? .up, to: try JPEGDecoder.decode(source).pixels)
        #expect(psnr(try JPEGDecoder.decode(p.data).pixels, turned) > 38)
    }

    @Test func rotatedPhotoStaysAboutItsOwnSize() throws {
        // 640×480 (whole MCUs) tagged "rotate 90": turned in the DCT domain, no bigger than before.
        var jpeg = try Fixture.bytes("small.jpg")
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        jpeg.insert(contentsOf: [0xFF, 0xE1, 0, UInt8(tiff.count + 8)] + Array("Exif\0\0".utf8) + tiff, at: 2)
        let p = try ImagePreparer().prepare(data: jpeg, path: nil)
        #expect(p.route == .rotated)
        #expect(p.width == 480 && p.height == 640)
        #expect(p.data.count <= jpeg.count)
    }

    @Test func rotationNeedingTrimFallsBackToReencoding() throws {
        // 100×75 is not a whole number of 16×16 MCUs: a perfect transform is impossible.
        let src = try JPEGDecoder.decode(try Fixture.bytes("progressive.jpg")).pixels
        let odd = try Resizer.resize(src, width: 100, height: 75)
        var jpeg = try JPEGEncoder().encode(odd, quality: 90)
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let app1: [UInt8] = [0xFF, 0xE1, 0, UInt8(tiff.count + 8)] + Array("Exif\0\0".utf8) + tiff
        jpeg.insert(contentsOf: app1, at: 2)
        #expect(ExifOrientation.fromJPEG(jpeg) == .right)
        let p = try ImagePreparer().prepare(data: jpeg, path: nil)
        #expect(p.route == .encoded)
        #expect(p.width == 75 && p.height == 100)
    }

    @Test func sideCapIsHonoured() throws {
        let profile = ImageProfile(name: "capped", maxBytes: 1_000_000, maxSide: 300)
        let p = try ImagePreparer(profile: profile).prepare(path: Fixture.path("small.jpg"))
        #expect(p.width == 300 && p.height == 225)
    }

    // Alpha rule: PNG keeps transparency when it fits at ≥ 2/3 of the view size; otherwise
    // the image is flattened on white and goes the JPEG way.
    @Test func transparentPNGThatFitsStaysPNG() throws {
        let p = try ImagePreparer().prepare(path: Fixture.path("rgba.png"))
        #expect(p.format == .png)
        let back = try PNGDecoder.decode(p.data)
        #expect(AlphaOps.hasRealAlpha(back.pixels))
        #expect(p.preview.hasPrefix("data:image/png;base64,"))
    }

    @Test func transparentPNGTooBigForPNGIsFlattenedToJPEG() throws {
        let profile = ImageProfile(name: "tight", maxBytes: 60_000)
        let p = try ImagePreparer(profile: profile).prepare(path: Fixture.path("sticker.png"))
        #expect(p.format == .jpeg)
        #expect(p.data.count <= 60_000)
        // Transparent corners became white, not black.
        let corner = try JPEGDecoder.decode(p.data).pixels.rgba(x: 2, y: 2)
        #expect(corner.r > 240 && corner.g > 240 && corner.b > 240)
    }

    // The decision is made from a prediction, not from trial encodes; these pin it.
    @Test func pngEstimateIsCloseToTheEncode() throws {
        let sticker = try PNGDecoder.decode(try Fixture.bytes("sticker.png")).pixels
        let small = try Resizer.resize(sticker, width: 400, height: 400)
        for image in [sticker, small] {
            let predicted = try PNGEncoder.estimate(image), actual = try PNGEncoder.encode(image).count
            #expect(abs(Double(predicted) / Double(actual) - 1) < 0.08, "predicted \(predicted), encoded \(actual)")
        }
    }

    /// A transparent picture's PNG glance without a view scaled beside its decode scales only the
    /// rows it samples: those rows are the whole view's, so the glance is the same number.
    @Test func theGlanceScalesOnlyItsRowsAndAgrees() throws {
        var rng = SystemRandomNumberGenerator()
        let (w, h) = (700, 1100)
        let rgba = try PixelBuffer(width: w, height: h, layout: .rgba, bytes: (0..<(w * h * 4)).map { i in
            i % 4 == 3 ? UInt8(i / (w * 4) % 256) : UInt8(truncatingIfNeeded: (i / 4) % w / 3 + Int(rng.next() % 8)) })
        for (vw, vh) in [(582, 915), (560, 880), (300, 471)] {
            for parts in [1, 2] {
                let every = vh >= 512 ? 16 : 8
                let whole = try Resizer.resize(rgba, width: vw, height: vh, threads: 2)
                let picked = try #require(PNGEncoder.sampleBands(height: vh, every: every, parts: parts))
                let rows = try Resizer.resizeBands(rgba, width: vw, height: vh, parts: picked)
                let cut = PNGEncoder.sample(whole, every: every, parts: parts)
                #expect(rows.map(\.bytes) == cut.map(\.bytes), "\(vw)×\(vh), \(parts) parts")
                let glance = try PNGEncoder.estimate(height: vh, samples: rows, threads: parts) { try PNGEncoder.size($0, level: 1) }
                #expect(glance == (try PNGEncoder.estimate(whole, every: every, level: 1, threads: parts)))
            }
        }
    }

    @Test func transparentPNGThatFitsOnlySmallerStaysPNG() throws {
        // sticker.png encodes to ~590 KB at 520 px; 420,000 bytes fit at ~425 px, above 2/3 of 520.
        let profile = ImageProfile(name: "mid", maxBytes: 420_000)
        let p = try ImagePreparer(profile: profile).prepare(path: Fixture.path("sticker.png"))
        #expect(p.format == .png && p.data.count <= 420_000)
        #expect(p.width < 520 && p.width >= 347, "\(p.width) px")
        #expect(AlphaOps.hasRealAlpha(try PNGDecoder.decode(p.data).pixels))
    }

    @Test func transparentPNGPredictedTooBigGoesStraightToJPEG() throws {
        // At 2/3 of the side the PNG would still be ~290 KB: over 200,000 without any trial encode.
        let s = BudgetSearch(profile: ImageProfile(name: "small", maxBytes: 200_000))
        let sticker = try PNGDecoder.decode(try Fixture.bytes("sticker.png")).pixels
        #expect(try s.encodePNG(work: sticker, view: (520, 520)) == nil)
        let p = try ImagePreparer(profile: ImageProfile(name: "small", maxBytes: 200_000)).prepare(path: Fixture.path("sticker.png"))
        #expect(p.format == .jpeg && p.width == 520 && p.data.count <= 200_000)
    }

    /// The glance before a transparent picture's PNG reads every 16th band of a view tall enough
    /// for it, and predicts what every 8th band does (within 5 %; gulp-rgba: 0.15 %).
    @Test func pngGlanceOnEverySixteenthBandPredictsAsEveryEighth() throws {
        let sticker = try PNGDecoder.decode(try Fixture.bytes("sticker.png")).pixels  // 520×520 RGBA
        let tall = try Resizer.resize(sticker, width: 1040, height: 1040)
        let sixteenth = try PNGEncoder.estimate(tall, every: 16, level: 1)
        let eighth = try PNGEncoder.estimate(tall, every: 8, level: 1)
        #expect(abs(Double(sixteenth) / Double(eighth) - 1) < 0.05, "\(sixteenth) against \(eighth)")
        let s = BudgetSearch(profile: ImageProfile(name: "small", maxBytes: 100_000))
        #expect(try s.encodePNG(work: tall, view: (1040, 1040)) == nil)
    }

    /// On two threads the sample is written as two PNGs side by side, its upper and lower halves:
    /// the prediction within 0.5 % of one PNG's, at any level, and the whole image when too short.
    @Test func aSampleWrittenInTwoHalvesPredictsAsOne() throws {
        let sticker = try PNGDecoder.decode(try Fixture.bytes("sticker.png")).pixels  // 520×520 RGBA
        let tall = try Resizer.resize(sticker, width: 1040, height: 1040)
        for (every, level) in [(16, 1), (8, 1), (8, 6)] {
            let one = try PNGEncoder.estimate(tall, every: every, level: level)
            let two = try PNGEncoder.estimate(tall, every: every, level: level, threads: 2)
            #expect(abs(Double(two) / Double(one) - 1) < 0.005, "every \(every), level \(level): \(two) against \(one)")
        }
        let halves = PNGEncoder.sample(tall, every: 8, parts: 2)
        #expect(halves.count == 2 && halves[0].height + halves[1].height == PNGEncoder.sample(tall, every: 8)[0].height)
        #expect(try PNGEncoder.estimate(sticker, every: 32, level: 1, threads: 2) == (try PNGEncoder.size(sticker, level: 1)))  // 520 rows: whole
    }

    @Test func detailedPhotoSizeAndQualityChoice() throws {
        // The size search on a detailed picture: at 60,000 bytes a smaller picture at q74 scores
        // above the full 1440 px at a lower quality; at 120,000 the full size keeps q72.
        let tight = try ImagePreparer(profile: ImageProfile(name: "t", maxBytes: 60_000)).prepare(path: Fixture.path("photo.jpg"))
        #expect(tight.width == 922 && tight.height == 691 && tight.quality == 74 && tight.data.count <= 60_000)
        let roomier = try ImagePreparer(profile: ImageProfile(name: "r", maxBytes: 120_000)).prepare(path: Fixture.path("photo.jpg"))
        #expect(roomier.width == 1440 && roomier.quality == 72 && roomier.data.count <= 120_000)
    }

    @Test func opaqueRGBAGoesJPEG() throws {
        // Over the side cap (so not kept as it is): an alpha channel that is all 255 is no reason for PNG.
        let p = try ImagePreparer(profile: ImageProfile(name: "t", maxBytes: 261_120, maxSide: 32)).prepare(path: Fixture.path("rgba-opaque.png"))
        #expect(p.format == .jpeg)
        #expect(p.preview.hasPrefix("data:image/jpg;base64,"))
    }

    @Test func aPNGWithinTheBudgetIsSentWithItsOwnData() throws {
        let source = try FileBytes.read(Fixture.path("rgba-opaque.png"))
        let p = try ImagePreparer().prepare(path: Fixture.path("rgba-opaque.png"))
        #expect(p.format == .png && p.route == .untouched && p.data == source)
        #expect(p.preview.hasPrefix("data:image/jpg;base64,"))  // opaque: a JPEG preview
        // With text and a timestamp in it: those chunks go, the image data stays byte for byte.
        let withText = Array(source[0..<33]) + PNGTestChunk.make("tEXt", Array("Comment\0secret comment".utf8))
            + PNGTestChunk.make("tIME", [7, 234, 11, 23, 12, 0, 0]) + Array(source[33...])
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(withText).write(to: URL(fileURLWithPath: dir + "/t.png"))
        let stripped = try ImagePreparer().prepare(path: dir + "/t.png")
        #expect(stripped.route == .stripped && stripped.data == source)
        let plan = SendCheck().check(path: dir + "/t.png")
        #expect(plan.verdict == .afterPreparation && plan.reasons.contains("text, timestamp metadata removed"))
    }
}

@Suite struct PreviewTests {
    @Test(arguments: ["photo.jpg", "sticker.png", "small.jpg", "rgba.png", "gray.jpg"])
    func previewIsADataURIWithinTheCap(name: String) throws {
        let image = try UprightImage.load(path: Fixture.path(name))
        let uri = try PreviewMaker.make(from: image)
        #expect(uri.count <= 14_000)
        let isPNG = uri.hasPrefix("data:image/png;base64,")
        #expect(isPNG || uri.hasPrefix("data:image/jpg;base64,"))
        let payload = String(uri.dropFirst(22))
        let bytes = try #require(Data(base64Encoded: payload))
        let decoded = try ImageLoader.load(data: [UInt8](bytes), path: nil)
        #expect(decoded.pixels.width >= 16)
    }

    @Test func detailedPhotoUsesMostOfTheCap() throws {
        let uri = try PreviewMaker.make(from: try UprightImage.load(path: Fixture.path("photo.jpg")))
        #expect(uri.count > 10_000)  // as sharp as the budget allows, not a tiny thumbnail
    }

    @Test func tighterCapIsRespected() throws {
        let uri = try PreviewMaker.make(from: try UprightImage.load(path: Fixture.path("photo.jpg")), maxLength: 3000)
        #expect(uri.count <= 3000)
    }

    /// A transparent photo's first PNG side is only estimated, and skipped when clearly too big:
    /// the preview is the one encoding that side first would give (each miss skips to the side the
    /// pixel count says fits).
    @Test func transparentPhotoPreviewSkipsTheFirstSideOnItsEstimate() throws {
        var bytes = [UInt8]()
        var seed: UInt32 = 7
        for i in 0..<(800 * 450) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let x = i % 800
            bytes += [UInt8(truncatingIfNeeded: seed >> 24), UInt8(truncatingIfNeeded: seed >> 16), UInt8(x * 255 / 799), UInt8(x * 255 / 799)]
        }
        let image = PixelBuffer(width: 800, height: 450, layout: .rgba, storage: bytes)
        let uri = try PreviewMaker.make(from: image)
        #expect(uri.count <= 14_000 && uri.hasPrefix(PreviewMaker.pngPrefix))
        // The walk with every side encoded, one after another (the preview writes each side beside
        // the next one down the list, which a miss usually skips to: the same answer).
        let budget = PreviewMaker.byteBudget(maxLength: 14_000, prefix: PreviewMaker.pngPrefix)
        let top = try Resizer.resize(image, width: 384, height: 216, filter: PreviewMaker.firstFilter(width: 800, height: 450))
        var limit = 384, expected: [UInt8]? = nil, tried: [Int] = []
        for side in PreviewMaker.sides where side <= limit && side >= 64 {
            tried.append(side)
            let s = Resizer.fit(width: 384, height: 216, maxSide: side)
            let data = try PNGEncoder.encode(try Resizer.resize(top, width: s.width, height: s.height))
            if data.count <= budget { expected = data; break }
            #expect(side != 384 || data.count > 2 * budget)  // so the estimate skips it
            limit = min(side - 1, Int(Double(side) * (Double(budget) / Double(data.count)).squareRoot() * 0.97))
        }
        let png = try #require(expected)
        #expect(uri == PreviewMaker.pngPrefix + Base64.encode(png))
        #expect(tried.count >= 2, "sides walked: \(tried)")
    }

    /// The PNG preview writes each side beside the next one down the list: the answer is the walk's
    /// one side at a time, over noise from faint to strong (some end at their first side, some
    /// after a miss whose skip lands on the guess, some skip past it).
    @Test func aPNGPreviewWrittenTwoSidesAtATimeIsTheWalksAnswer() throws {
        let budget = PreviewMaker.byteBudget(maxLength: 14_000, prefix: PreviewMaker.pngPrefix)
        func walk(_ image: PixelBuffer) throws -> (String?, sides: [Int]) {
            var limit = max(image.width, image.height), encodes: [Int] = []
            func skip(_ side: Int, _ bytes: Int) -> Int { min(side - 1, Int(Double(side) * (Double(budget) / Double(bytes)).squareRoot() * 0.97)) }
            let estimate = try PNGEncoder.estimate(image, every: 4)
            if Double(estimate) > Double(budget) * PreviewMaker.clearMiss { limit = skip(limit, estimate) }
            for side in PreviewMaker.sides where side <= limit && side >= 64 {
                let s = Resizer.fit(width: image.width, height: image.height, maxSide: side)
                let data = try PNGEncoder.encode(try Resizer.resize(image, width: s.width, height: s.height))
                encodes.append(side)
                if data.count <= budget { return (PreviewMaker.pngPrefix + Base64.encode(data), encodes) }
                limit = skip(side, data.count)
            }
            return (nil, encodes)
        }
        // Faint noise only in bands the estimate does not sample (it reads every 4th band of 16 rows
        // from the first), so the walk starts at 384 px, misses, and skips by the bytes it wrote.
        var guessed = 0, walked: [[Int]] = []
        for amplitude in 1...16 {
            var bytes = [UInt8](repeating: 0, count: 384 * 288 * 4), seed = UInt32(amplitude)
            for y in 0..<288 {
                for x in 0..<384 {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    let n = (y / 16) % 4 == 2 ? Int(seed >> 24) * amplitude / 255 : 0
                    let i = (y * 384 + x) * 4
                    (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) = (UInt8(x / 2 + n / 2), UInt8(n), UInt8(200 - y / 2), UInt8(x * 255 / 383))
                }
            }
            let image = PixelBuffer(width: 384, height: 288, layout: .rgba, storage: bytes)
            let (expected, sides) = try walk(image)
            #expect(try PreviewMaker.pngPreview(image, maxLength: 14_000) == expected, "noise \(amplitude)")
            walked.append(sides)
            if sides.starts(with: [384, 320]) { guessed += 1 }
        }
        #expect(guessed > 0 && guessed < walked.count, "sides walked: \(walked)")
    }

    /// A kept JPEG whose DCT scaling lands between the first two preview sides has its preview cut
    /// from that decode, unresized.
    @Test func aKeptJPEGsPreviewIsItsDCTScaledDecode() throws {
        #expect(PreviewMaker.dctScaled(width: 640, height: 480)! == (320, 240))
        #expect(PreviewMaker.dctScaled(width: 720, height: 1280)! == (180, 320))
        #expect(PreviewMaker.dctScaled(width: 1000, height: 750) == nil)  // 500 px, then 250
        #expect(PreviewMaker.dctScaled(width: 300, height: 200) == nil)  // under the second side: as it is
        let p = try ImagePreparer().prepare(path: Fixture.path("small.jpg"))
        #expect(p.route == .untouched && p.width == 640)
        let jpeg = try #require(Data(base64Encoded: String(p.preview.dropFirst(PreviewMaker.jpegPrefix.count))))
        let preview = try JPEGDecoder.decode([UInt8](jpeg)).pixels
        #expect(preview.width == 320 && preview.height == 240)
    }

    @Test func base64MatchesFoundation() {
        for n in 0..<20 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 0xFF) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }
}

@Suite struct SSIMTests {
    @Test func identicalIsOneAndNoiseLowersIt() throws {
        let image = try JPEGDecoder.decode(try Fixture.bytes("progressive.jpg")).pixels
        let y = SSIM.luma(image)
        #expect(abs(SSIM.mean(y, y, width: image.width, height: image.height) - 1) < 1e-6)
        let worse = try JPEGDecoder.decode(try JPEGEncoder().encode(image, quality: 10)).pixels
        let better = try JPEGDecoder.decode(try JPEGEncoder().encode(image, quality: 90)).pixels
        let s10 = SSIM.mean(y, SSIM.luma(worse), width: image.width, height: image.height)
        let s90 = SSIM.mean(y, SSIM.luma(better), width: image.width, height: image.height)
        #expect(s10 < s90 && s90 < 1 && s10 > 0.2)
    }
}

/// A PNG chunk with its length and CRC, for building test inputs.
enum PNGTestChunk {
    static func make(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        var crc: UInt32 = 0xFFFF_FFFF
        for b in t + body {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return be(UInt32(body.count)) + t + body + be(crc)
    }
}

/// A picture's metadata is reported in one vocabulary, from the walk its stripper cuts by: a PNG says
/// the same whether it goes with its own image data or is re-encoded, in the words a JPEG's are said in.
@Suite struct PictureMetadataWordsTests {
    static func png() throws -> [UInt8] {
        let source = try Fixture.bytes("rgba-opaque.png")
        let exif = TIFFBuilder.make(big: false, width: 2, height: 2, gps: TIFFBuilder.gpsTags)
        return Array(source[0..<33]) + PNGTestChunk.make("eXIf", exif) + PNGTestChunk.make("tEXt", Array("Author\0Jane Sender".utf8))
            + PNGTestChunk.make("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta/>".utf8)) + PNGTestChunk.make("tIME", [7, 234, 11, 23, 12, 0, 0])
            + PNGTestChunk.make("zzZz", [1, 2, 3]) + Array(source[33...])
    }

    @Test func aPNGSaysTheSameKeptOrReEncoded() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let words = ["GPS location removed", "Exif, XMP, text, timestamp, other chunks metadata removed"]
        let path = try Fixture.write(try Self.png(), "tagged.png", in: dir)
        // Within the budget (its own image data) and over a smaller one (re-encoded): the same words.
        var small = ImageProfile.simplex
        small.maxBytes = 300
        for (profile, route) in [(ImageProfile.simplex, PrepareRoute.stripped), (small, .encoded)] {
            let check = SendCheck(profile: profile).check(path: path)
            for w in words { #expect(check.reasons.contains(w), "\(route): \(check.reasons)") }
            let item = AttachmentPreparer(profile: profile, outputDirectory: dir + "/\(route)", timestamp: 0).prepare(path: path)
            #expect(item.route == route)
            let out = try FileBytes.read(try #require(item.output))
            #expect(!Bytes.contains(out, "Jane Sender") && !Bytes.contains(out, "xmpmeta") && !PictureMetadata(png: out).changesFile)
        }
        // Chunks that describe the pixels go without being called metadata (here an sRGB cHRM).
        var described = PictureMetadata(png: Array(try Fixture.bytes("rgba-opaque.png")[0..<33])
            + PNGTestChunk.make("cHRM", [UInt8](repeating: 0, count: 32)) + Array(try Fixture.bytes("rgba-opaque.png")[33...]))
        #expect(described.changesFile && described.removals.isEmpty)
        described.other = true
        #expect(described.removals == ["other chunks metadata removed"])
    }
}

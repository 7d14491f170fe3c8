import Foundation
import Testing
@testable import MediaPrep
import UploadPlanner

/// Screenshots, documents and panoramas stay readable: the view follows the shape, flat content is
/// told from photos, a PNG that fits goes as it is, and a screenshot too long for one image is split.
@Suite struct ScreenshotTests {
    @Test func theViewFollowsTheShape() {
        let p = ImageProfile.simplex
        #expect(p.viewSize(width: 4000, height: 3000) == (1600, 1200))        // a photo: looked at whole
        #expect(p.viewSize(width: 1080, height: 2700) == (640, 1600))         // 2.5:1 is still whole
        #expect(p.viewSize(width: 1179, height: 8000) == (1080, 7328))        // longer: a phone's width
        #expect(p.viewSize(width: 16000, height: 2000) == (8640, 1080))       // a panorama: its height
        #expect(p.viewSize(width: 600, height: 4000) == (600, 4000))          // never upscaled
        #expect(ImageProfile.bluesky.viewSize(width: 16000, height: 2000) == (2000, 250))  // Bluesky's 2000 px cap stays
    }

    static func verdict(_ name: String) throws -> ContentDetector.Verdict {
        ContentDetector.detect(try ImageLoader.load(data: Fixture.bytes(name), path: Fixture.path(name)).pixels)
    }

    /// Text and UI captures are flat; every photo-like fixture (plasma fractals, noise) stays a photo.
    @Test func detectorTellsScreenshotsFromPhotos() throws {
        for flat in ["screenshot.png", "screenshot-long.png"] {
            let v = try Self.verdict(flat)
            #expect(v.isFlat && v.isGray, "\(flat): \(v)")
        }
        for photo in ["photo.jpg", "small.jpg", "progressive.jpg", "p3-photo.jpg", "sticker.png", "panorama.jpg"] {
            let v = try Self.verdict(photo)
            #expect(!v.isFlat, "\(photo) taken for a screenshot: \(v)")
        }
        // Flat colour graphics (the quadrants) are flat but not gray: they keep their chroma.
        let q = try Self.verdict("rgb.png")
        #expect(q.isFlat && !q.isGray)
        // Counted in two halves side by side: the same verdict, share and all (a megapixel or more).
        for name in ["photo.jpg", "screenshot-long.png", "panorama.jpg"] {
            let pixels = try ImageLoader.load(data: Fixture.bytes(name), path: Fixture.path(name)).pixels
            let tall = try Resizer.resize(pixels, width: pixels.width * 2, height: pixels.height * 2)
            #expect(ContentDetector.detect(tall, threads: 2) == ContentDetector.detect(tall), "\(name)")
        }
    }

    @Test func aScreenshotPNGThatFitsGoesAsItIs() throws {
        let source = try Fixture.bytes("screenshot.png")
        let p = try ImagePreparer().prepare(path: Fixture.path("screenshot.png"))
        #expect(p.format == .png && p.route == .untouched && p.data == source)
        #expect(SendCheck().check(path: Fixture.path("screenshot.png")).verdict == .asIs)
    }

    @Test func aScreenshotOverTheBudgetGoesLosslessGrayWhenThatFits() throws {
        // The 33 KB RGB PNG of 228 grays at 20,000 bytes: an 8-bit gray PNG, pixel for pixel.
        let p = try ImagePreparer(profile: ImageProfile(name: "t", maxBytes: 20_000)).prepare(path: Fixture.path("screenshot.png"))
        #expect(p.format == .png && p.data.count <= 20_000 && p.width == 360 && p.height == 1000)
        let source = try ImageLoader.load(data: Fixture.bytes("screenshot.png"), path: nil).pixels.grayscale()
        let sent = try PNGDecoder.decode(p.data).pixels
        #expect(sent.layout == .gray && sent.bytes == source.bytes)
    }

    @Test func aLargeFlatImageIsPredictedBeforeItIsEncodedWhole() throws {
        // 1280×900 (over the megapixel where prediction starts): 64 grays and 64 colours in
        // bands of text-like noise. Its PNG fits a large budget; a budget the prediction shows far
        // off gets nil, and one just above the PNG's size still gets the PNG.
        var rng = SystemRandomNumberGenerator()
        for colour in [false, true] {
            let (w, h) = (1280, 900)
            var px = [UInt8](repeating: 255, count: w * h * 3)
            for y in 0..<h where (y / 8) % 3 != 0 {
                for x in 0..<w {
                    let v = UInt8(Int.random(in: 0..<64, using: &rng) * 4)
                    px[(y * w + x) * 3 ..< (y * w + x) * 3 + 3] = colour ? [v, 255 - v, v / 2] : [v, v, v]
                }
            }
            let image = PixelBuffer(width: w, height: h, layout: .rgb, storage: px)
            let whole = try #require(try LosslessFlat.encode(image, maxBytes: 10_000_000))
            #expect(whole.format == .png && whole.width == w)
            #expect(try PNGDecoder.decode(whole.data).pixels.rgba(x: 5, y: 9).r == px[(9 * w + 5) * 3])
            #expect(try LosslessFlat.encode(image, maxBytes: whole.data.count / 2) == nil)
            #expect(try LosslessFlat.encode(image, maxBytes: whole.data.count)?.data == whole.data)
            for budget in [whole.data.count / 2, whole.data.count, whole.data.count * 2] {  // its predictions on two threads
                #expect(try LosslessFlat.encode(image, maxBytes: budget, threads: 2)?.data == LosslessFlat.encode(image, maxBytes: budget)?.data)
            }
        }
    }

    @Test func aScreenshotThatNoPNGFitsGoesGrayJPEG() throws {
        let p = try ImagePreparer(profile: ImageProfile(name: "t", maxBytes: 8_000)).prepare(path: Fixture.path("screenshot.png"))
        #expect(p.format == .jpeg && p.data.count <= 8_000)
        #expect(p.content?.isFlat == true && p.content?.isGray == true)
        #expect(try JPEGDecoder.decode(p.data).pixels.layout == .gray)
    }

    @Test func flatColourGraphicsGoPalettePNG() throws {
        // The quadrants (4 colours) as an over-budget input: a palette PNG with the same pixels.
        let size = try Fixture.bytes("rgb.png").count  // 147 bytes: one under, so it is not kept as it is
        let p = try ImagePreparer(profile: ImageProfile(name: "t", maxBytes: size - 1)).prepare(path: Fixture.path("rgb.png"))
        #expect(p.format == .png && p.route == .encoded && p.data.count < size)
        let source = try ImageLoader.load(data: Fixture.bytes("rgb.png"), path: nil).pixels
        let sent = try ImageLoader.load(data: p.data, path: nil).pixels
        #expect(sent.width == source.width && sent.height == source.height)
        for (x, y) in [(5, 5), (60, 5), (5, 40), (60, 40)] { #expect(sent.rgba(x: x, y: y) == source.rgba(x: x, y: y)) }
    }

    @Test func aPanoramaIsNotCappedAt1600() throws {
        // 2000×200 is viewed at its own height (10:1), scored there, and comes out whole when it can.
        #expect(ImageProfile.displaySize(width: 2000, height: 200, displaySide: 1600) == (2000, 200))
        let p = try ImagePreparer(profile: ImageProfile(name: "t", maxBytes: 35_000)).prepare(path: Fixture.path("panorama.jpg"))
        #expect(p.width == 2000 && p.data.count <= 35_000, "\(p.width)×\(p.height)")
        #expect(p.content?.isFlat == false)
    }

    @Test func partsOverlapAndCoverEveryRow() {
        let ranges = LongImage.parts(width: 100, height: 1500)
        #expect(ranges.count == 3)
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == 1500)
        for (a, b) in zip(ranges, ranges.dropFirst()) {
            #expect(a.upperBound - b.lowerBound == LongImage.overlap(width: 100))  // overlap
            #expect(a.count <= LongImage.partAspect * 100)
        }
        // Just over the limit: one part would do; exactly 12:1 is not split at all.
        #expect(LongImage.parts(width: 100, height: 600).count == 1)
    }

    @Test func aLongScreenshotIsSplitIntoAnAlbumInOrder() async throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = BatchOptions(outputDirectory: dir)
        options.text = "the article"
        let result = await BatchPreparer(options).prepare([Fixture.path("screenshot-long.png"), Fixture.path("small.jpg")])
        let items = result.items.map { (b: BatchItem) in b.item }
        #expect(items.count == 4)
        #expect(items.prefix(3).map { $0.part?.index } == [1, 2, 3] && items.prefix(3).allSatisfy { $0.part?.of == 3 })
        #expect(items[3].input.hasSuffix("small.jpg") && items[3].part == nil)
        let source = try ImageLoader.load(data: Fixture.bytes("screenshot-long.png"), path: nil).pixels
        let ranges = LongImage.parts(width: 100, height: 1500)
        for (it, rows) in zip(items.prefix(3), ranges) {
            let out = try #require(it.output)
            #expect(out.contains("_part\(it.part?.index ?? 0)."))
            let bytes = try FileBytes.read(out)
            #expect(bytes.count <= SimplexLimits.simplex.maxImageSize)
            // Each part holds its own rows of the source, in order (same height for the same width).
            let part = try ImageLoader.load(data: bytes, path: out).pixels
            #expect(part.width == 100 && part.height == rows.count)
            let expected = try source.rows(rows)
            var diff = 0
            for i in stride(from: 0, to: min(part.bytes.count, expected.bytes.count), by: part.layout.channels) {
                diff += abs(Int(part.bytes[i]) - Int(expected.bytes[i * expected.layout.channels / part.layout.channels]))
            }
            #expect(Double(diff) / Double(part.width * part.height) < 12, "part \(it.part?.index ?? 0) is not rows \(rows)")
        }
        // Four messages in one album; the text on the last.
        #expect(result.messages.count == 1)
        let album = result.messages.first ?? []
        #expect(album.count == 4 && album.last?.json.serialized.contains("the article") == true)
        #expect(album.first?.json.serialized.contains("the article") == false)
        #expect(result.summary.inputs == 2 && result.summary.prepared == 2)
    }

    @Test func longImagesFileAndShrinkAreChosenByTheSender() throws {
        var rules = SendRules()
        let source = try MediaProbe.source(path: Fixture.path("screenshot-long.png"))
        if case .splitImage(let parts) = SendPlanner.plan(source, rules).action { #expect(parts.count == 3) } else { Issue.record("not split") }
        rules.media.longImages = .file
        let file = SendPlanner.plan(source, rules)
        #expect(file.kind == .file && file.reasons[0].contains("sent as a file"))
        rules.media.longImages = .shrink
        let shrink = SendPlanner.plan(source, rules)
        #expect(shrink.kind == .image)
        if case .splitImage = shrink.action { Issue.record("--long-images shrink split it") }
        // check says which.
        var check = SendCheck()
        #expect(check.check(path: Fixture.path("screenshot-long.png")).reasons[0].contains("split into 3 parts"))
        check.media.longImages = .file
        #expect(check.check(path: Fixture.path("screenshot-long.png")).kind == .file)
    }
}


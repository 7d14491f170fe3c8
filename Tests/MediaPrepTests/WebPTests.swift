import Testing
@testable import MediaPrep

@Suite struct WebPTests {
    @Test func aStillIsProbedFromItsHeaderAndDecodedOnceByLibwebp() throws {
        let s = try MediaProbe.source(path: Fixture.path("image.webp"), depth: .preparing)
        #expect(s.probe.kind == .image)
        #expect(s.probe.width == Quadrants.width && s.probe.height == Quadrants.height)
        #expect(s.webp != nil)
        #expect(s.firstFrame == nil)  // nothing decoded while probing
        let d = try ImageLoader.load(path: Fixture.path("image.webp"))
        #expect(d.format == .webp)
        Quadrants.check(d.pixels, tolerance: 40)  // lossy: flat colours stay close
        let fromMemory = try ImageLoader.load(data: try Fixture.bytes("image.webp"), path: nil)
        #expect(fromMemory.pixels == d.pixels)
    }

    @Test func libwebpAndFFmpegSeeTheSamePicture() throws {
        let ours = try WebPDecoder.decode(try Fixture.bytes("p3.webp"), options: DecodeOptions())
        let ffmpeg = try FFmpegImageDecoder.decode(path: Fixture.path("p3.webp"), format: .webp).image
        #expect(ours.pixels.width == ffmpeg.pixels.width && ours.pixels.height == ffmpeg.pixels.height)
        #expect(ours.pixels.layout == .rgb && ffmpeg.pixels.layout == .rgb)
        // The same VP8 data; only the chroma upsampling differs (libwebp's "fancy" one).
        #expect(psnr(ours.pixels, ffmpeg.pixels) > 30)
        // The ICCP chunk is the profile FFmpeg reported as side data, byte for byte.
        let chunk = WebPChunks.iccProfile(try Fixture.bytes("p3.webp"))
        #expect(chunk != nil)
        #expect(chunk == ffmpeg.iccProfile)
        let probed = try MediaProbe.source(path: Fixture.path("p3.webp"))
        #expect(probed.colour?.description.contains("P3") == true)
    }

    @Test func transparencyIsDecodedAsRGBA() throws {
        let d = try WebPDecoder.decode(try Fixture.bytes("alpha-still.webp"), options: DecodeOptions())
        #expect(d.pixels.layout == .rgba && d.pixels.width == 96 && d.pixels.height == 64)
        #expect(d.pixels.rgba(x: 2, y: 2).a == 0)  // outside the box
        let inside = d.pixels.rgba(x: 24, y: 32)
        #expect(inside.a == 255 && inside.r > 200 && inside.g < 80)
        let s = try MediaProbe.source(path: Fixture.path("alpha-still.webp"))
        #expect(s.probe.hasAlpha)
    }

    @Test func onlyAWebPTooLargeToSendIsShrunkOnLoad() throws {
        let profile = ImageProfile.simplex
        // 20 MP: halved while at least the view (1600 px on the long side).
        let big = WebPDecoder.Header(width: 5000, height: 4000, hasAlpha: false, isAnimated: false, isLossless: false)
        #expect(WebPDecoder.decodedSize(big, profile: profile) == (2500, 2000))
        // 12 MP: sendable at its own size, decoded whole (libwebp's rescaler loses detail Lanczos keeps).
        let photo = WebPDecoder.Header(width: 4000, height: 3000, hasAlpha: false, isAnimated: false, isLossless: false)
        #expect(WebPDecoder.decodedSize(photo, profile: profile) == (4000, 3000))
        // A decode shrunk by libwebp keeps the picture: image.webp at a quarter.
        var options = DecodeOptions()
        (options.minimumWidth, options.minimumHeight) = (16, 12)
        let d = try WebPDecoder.decode(try Fixture.bytes("image.webp"), options: options)
        #expect(d.pixels.width == 16 && d.pixels.height == 12)
        #expect(d.sourceWidth == 64 && d.sourceHeight == 48)
        let corner = d.pixels.rgba(x: 2, y: 2)
        #expect(corner.r > 200 && corner.g < 60 && corner.b < 60)  // still the red quadrant
        // A 1×1 minimum ends at a pixel, not in a loop.
        (options.minimumWidth, options.minimumHeight) = (1, 1)
        let dot = try WebPDecoder.decode(try Fixture.bytes("image.webp"), options: options)
        #expect(dot.pixels.width >= 1 && dot.pixels.height >= 1)
    }

    /// One halving rule for the decoders that halve on load (WebP, HDR stills, raws): sides rounded
    /// up, either way round, capped where asked, and a zero minimum ends at a pixel.
    @Test func shrinkOnLoadHalvesWhileThePictureKeepsTheMinimum() {
        #expect(DecodeOptions.halving(width: 5000, height: 4000, minimum: (1600, 1280)) == 2)
        #expect(DecodeOptions.halving(width: 5000, height: 4000, minimum: (1280, 1600)) == 2)  // as shown, turned
        #expect(DecodeOptions.halving(width: 3199, height: 2000, minimum: (1600, 1000)) == 2)  // 1600×1000, rounded up
        #expect(DecodeOptions.halving(width: 3198, height: 2000, minimum: (1600, 1000)) == 1)
        #expect(DecodeOptions.halving(width: 12800, height: 8000, minimum: (1600, 1000)) == 8)
        #expect(DecodeOptions.halving(width: 12800, height: 8000, minimum: (1600, 1000), most: 2) == 2)
        #expect(DecodeOptions.halving(width: 64, height: 48, minimum: (0, 0)) == 64)
        #expect(DecodeOptions.halving(width: 64, height: 48, minimum: nil) == 1)
    }

    @Test func aHeaderClaimingTooManyPixelsIsRefusedBeforeDecoding() throws {
        // VP8X claiming a 16384×16384 canvas, with nothing after it.
        var data = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
        data += [0, 0, 0, 0] + [0xFF, 0x3F, 0] + [0xFF, 0x3F, 0]
        let h = try WebPDecoder.header(data)
        #expect(h.width == 16384 && h.height == 16384)
        #expect(throws: MediaPrepError.self) { try WebPDecoder.decode(data, options: DecodeOptions(maxPixels: 100_000_000)) }
        do {
            _ = try WebPDecoder.decode(data, options: DecodeOptions(maxPixels: 100_000_000))
        } catch let e as MediaPrepError {
            #expect(e.code == .tooManyPixels)
        }
    }

    @Test func aDamagedStillIsAnErrorNotAPicture() throws {
        let whole = try Fixture.bytes("p3.webp")
        for cut in [12, 30, whole.count / 2, whole.count - 10] {
            do {
                _ = try WebPDecoder.decode(Array(whole.prefix(cut)), options: DecodeOptions())
                Issue.record("\(cut) of \(whole.count) bytes decoded")
            } catch let e as MediaPrepError {
                #expect([.truncated, .corrupt].contains(e.code), "\(cut): \(e)")
            }
        }
        #expect(throws: MediaPrepError.self) { try WebPDecoder.header(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPjunk".utf8)) }
        #expect(throws: MediaPrepError.self) { try MediaProbe.source(path: Fixture.path("image.webp") + ".missing") }
    }

    @Test func aLosslessWebPOfFlatGraphicsGoesLosslessALossyOneAsJPEG() throws {
        let lossless = try ImagePreparer().prepare(path: Fixture.path("lossless.webp"))
        #expect(lossless.format == .png)
        let pixels = try PNGDecoder.decode(lossless.data).pixels
        Quadrants.check(pixels, tolerance: 0)  // every pixel as it was
        let lossy = try ImagePreparer().prepare(path: Fixture.path("image.webp"))
        #expect(lossy.format == .jpeg)
        let planned = { (name: String) in SendPlanner.plan(try MediaProbe.source(path: Fixture.path(name)), SendRules()).reasons.first ?? "" }
        #expect(try planned("lossless.webp").contains("lossless PNG if it is flat graphics"))
        #expect(try planned("image.webp") == "webp re-encoded as JPEG")
        #expect(try planned("alpha-still.webp").contains("PNG if the transparency fits"))
        #expect(try ImagePreparer().prepare(path: Fixture.path("alpha-still.webp")).format == .png)
    }

    @Test func anAnimatedWebPGivesItsFirstFrameAsAStill() throws {
        let d = try ImageLoader.load(data: try Fixture.bytes("anim-sticker.webp"), path: nil)
        #expect(d.pixels.width == 96 && d.pixels.height == 64)
        #expect(throws: MediaPrepError.self) { try WebPDecoder.decode(try Fixture.bytes("anim-sticker.webp"), options: DecodeOptions()) }
    }
}

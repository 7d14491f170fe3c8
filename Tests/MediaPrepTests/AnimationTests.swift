import CFFmpeg
import Foundation
import Testing
import CPng
@testable import MediaPrep
import UploadPlanner

/// Animated WebP and APNG become animated GIFs (SimpleX animates GIF only): every frame, its delay,
/// the loop count and transparency kept, within the budget, with the first frame as preview.
@Suite struct AnimationTests {
    /// A GIF's frames and their delays (ms) as FFmpeg's GIF decoder reads them back, and its plays.
    static func readBack(_ path: String) throws -> (frames: [PixelBuffer], delays: [Int], plays: Int) {
        let probe = try MediaProbe.source(path: path)
        #expect(probe.probe.format == .gif)
        let animation = try #require(probe.animation)
        var frames: [PixelBuffer] = [], delays: [Int] = []
        try animation.forEachFrame { frames.append($0); delays.append($1) }
        return (frames, delays, AnimationHeaders.gifPlays(try FileBytes.read(path)))
    }

    static func prepare(_ name: String, media: MediaOptions = MediaOptions()) throws -> (PreparedItem, String) {
        let dir = try Fixture.scratch()
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media = media
        return (preparer.prepare(path: Fixture.path(name)), dir)
    }

    @Test func animatedWebPIsProbedAsAnAnimation() throws {
        let s = try MediaProbe.source(path: Fixture.path("anim-sticker.webp"))
        #expect(s.probe.kind == .animatedImage && s.probe.frameCount == 4 && s.probe.hasAlpha)
        #expect((s.probe.width, s.probe.height) == (96, 64))
        #expect(s.metadata?.gps == true)
        #expect(SendPlanner.plan(s, SendRules()).verdict == .afterPreparation)
    }

    @Test func animatedWebPBecomesAGIFWithItsFramesDelaysLoopAndTransparency() throws {
        let (item, dir) = try Self.prepare("anim-sticker.webp")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .animatedImage && item.format == .gif && out.hasSuffix(".gif"))
        #expect(item.bytes ?? .max <= SimplexLimits.simplex.maxImageSize)
        let gif = try Self.readBack(out)
        #expect(gif.frames.count == 4)
        #expect(gif.delays == [80, 80, 160, 80])
        #expect(gif.plays == 3)
        // Frame 3's box (hue 180: cyan) sits at x 44…76; the corner stays transparent.
        let f = gif.frames[2]
        #expect(f.rgba(x: 0, y: 0).a == 0)
        let c = f.rgba(x: 60, y: 30)
        #expect(c.a == 255 && c.r < 60 && c.g > 180 && c.b > 180, "\(c)")
        // The preview is the first frame, a PNG (it has transparency).
        #expect(item.preview?.hasPrefix("data:image/png;base64,") == true)
        #expect(!(try FileBytes.read(out)).contains(sequence: Array("Test Phone".utf8)))
    }

    @Test func apngBecomesAGIFThatPlaysTwice() throws {
        let (item, dir) = try Self.prepare("anim-apng.png")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .animatedImage && item.format == .gif)
        let gif = try Self.readBack(out)
        #expect(gif.frames.count == 4 && gif.delays == [200, 200, 200, 200] && gif.plays == 2)
        #expect(gif.frames[0].rgba(x: 0, y: 0).a == 0)
    }

    /// An animated AVIF (an image sequence, as browsers and `avifenc` make one) went as a JPEG of its
    /// still: it becomes a GIF of its frames and delays, as an animated WebP or APNG does. The quadrants
    /// AVIF, a still, stays one.
    @Test func anAnimatedAVIFBecomesAGIFOfItsFrames() throws {
        let (item, dir) = try Self.prepare("anim.avif")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .animatedImage && item.format == .gif && item.width == 32 && item.height == 24)
        let gif = try Self.readBack(out)
        #expect(gif.frames.count == 4 && gif.delays == [250, 250, 250, 250])
        // Each frame's white bar 8 px further right, on its own hue.
        for (i, frame) in gif.frames.enumerated() {
            let bar = frame.rgba(x: i * 8 + 4, y: 12), beside = frame.rgba(x: (i * 8 + 20) % 32, y: 12)
            #expect(bar.r > 200 && bar.g > 200 && bar.b > 200, "frame \(i): \(bar)")
            #expect(min(beside.r, beside.g, beside.b) < 80, "frame \(i): \(beside)")
        }
        #expect(SendCheck().check(path: Fixture.path("anim.avif")).reasons.first?.hasPrefix("animated AVIF made an animated GIF") == true)
        #expect(try MediaProbe.source(path: Fixture.path("quadrants.avif")).probe.kind == .image)
    }

    /// exiftool writes its text and eXIf chunks between an APNG's first `fcTL` and its `IDAT`, where
    /// FFmpeg 5.1's demuxer stops ("Not yet implemented"): such a file was refused as holding no
    /// complete frame. It now becomes the same GIF as the file without them, and none of it is sent.
    @Test func anAPNGTaggedBetweenItsFrameHeaderAndDataStillPlays() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = try Fixture.bytes("anim-apng.png")
        let idat = try #require(PNGChunks.chunks(plain).first { $0.type == "IDAT" })
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = typed.withUnsafeBufferPointer { b in PNGLibrary.zlib.crc32(0, b.baseAddress, UInt32(b.count)) }
            return Bytes.be32(body.count) + typed + Bytes.be32(Int(crc))
        }
        let tags = chunk("tEXt", Array("Author\0Jane Sender".utf8)) + chunk("tIME", [7, 234, 6, 1, 10, 0, 0])
        let tagged = Array(plain[..<(idat.body.lowerBound - 8)]) + tags + Array(plain[(idat.body.lowerBound - 8)...])
        let preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        let item = preparer.prepare(path: try Fixture.write(tagged, "tagged.png", in: dir))
        let out = try FileBytes.read(try #require(item.output, "\(item.error?.description ?? "")"))
        let plainOut = try FileBytes.read(try #require(preparer.prepare(path: Fixture.path("anim-apng.png")).output))
        #expect(item.format == .gif && out == plainOut && !out.contains(sequence: Array("Jane".utf8)))
    }

    @Test func checkSaysWhatHappensToEach() {
        let webp = SendCheck().check(path: Fixture.path("anim-sticker.webp"))
        #expect(webp.kind == .animatedImage && webp.verdict == .afterPreparation)
        #expect(webp.reasons.contains("GPS location removed"))
        #expect(webp.reasons.first?.contains("animated WebP made an animated GIF") == true)
        let apng = SendCheck().check(path: Fixture.path("anim-apng.png"))
        #expect(apng.kind == .animatedImage && apng.reasons.first?.contains("APNG") == true)
        // A still PNG stays a still.
        #expect(SendCheck().check(path: Fixture.path("rgba.png")).kind == .image)
    }

    @Test func aGIFOverTheSendersCapIsMadeSmaller() throws {
        var media = MediaOptions()
        media.animatedMaxBytes = 100  // anim.gif is larger: re-encoded
        let (item, dir) = try Self.prepare("anim.gif", media: media)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .encoded && item.kind == .animatedImage)
        #expect(try Self.readBack(out).frames.count == 3)
        // Without the cap it goes as it is.
        let (plain, dir2) = try Self.prepare("anim.gif")
        defer { try? FileManager.default.removeItem(atPath: dir2) }
        #expect(plain.route == .original)
        #expect(MediaOptions.autoReceive().animatedMaxBytes == SimplexLimits.simplex.maxImageSizeAutoReceive)
    }

    /// Noise frames: the worst case for GIF, made in memory.
    final class Noise: AnimationSource {
        let width: Int, height: Int, plays = 0, frames: Int, ms: Int
        init(_ w: Int, _ h: Int, frames: Int, ms: Int = 100) { (width, height, self.frames, self.ms) = (w, h, frames, ms) }
        func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
            var state: UInt32 = 12345
            for _ in 0..<frames {
                var bytes = [UInt8](repeating: 255, count: width * height * 4)
                for i in stride(from: 0, to: bytes.count, by: 4) {
                    state = state &* 1_664_525 &+ 1_013_904_223
                    let v = UInt8(truncatingIfNeeded: state >> 24)
                    (bytes[i], bytes[i + 1], bytes[i + 2]) = (v, v &+ 85, v &+ 170)
                }
                try body(try PixelBuffer(width: width, height: height, layout: .rgba, bytes: bytes), ms)
            }
        }
    }

    @Test func theBudgetDropsFramesBeforeGoingBelowChatSize() throws {
        // 200×200 × 8 frames of noise is ~320 KB as GIF: already below 320 px, so frames go first.
        let r = try AnimationBudget.fit(Noise(200, 200, frames: 8), maxBytes: 261_120, autoReceiveBytes: 522_240)
        #expect(r.fits && r.gif.data.count <= 261_120)
        #expect(r.gif.step == 2 && r.gif.frames == 4 && r.gif.width == 200)
    }

    /// Frames are dropped by as many as the last try's bytes say, so a 30 fps animation still reaches
    /// sizes below the chat side within its tries: 360×360 × 16 frames of noise (every 7th frame at most,
    /// 4.3 a second) went 360 px, then 320 px every 1st, 2nd… 7th frame, and ran out of tries 307 KB
    /// over; it now goes 320 px every frame (stopped, 1.6 MB by its frames so far), every 7th, smaller.
    @Test func framesAreDroppedByWhatTheLastTrySays() throws {
        let r = try AnimationBudget.fit(Noise(360, 360, frames: 16, ms: 33), maxBytes: 261_120, autoReceiveBytes: 522_240)
        #expect(r.fits && r.gif.data.count <= 261_120)
        #expect(r.gif.step == 7 && r.gif.width < AnimationBudget.chatSide && r.gif.width > AnimationBudget.floorSide)
        #expect(r.tries == 4 && r.stopped == 2)
        // The jump is taken from where the frames passed the watch, so a try run whole decides the same.
        let whole = try AnimationBudget.fit(Noise(360, 360, frames: 16, ms: 33), maxBytes: 261_120, autoReceiveBytes: 522_240, stopping: false)
        #expect(whole.gif.data == r.gif.data && whole.tries == 4 && whole.stopped == 0)
    }

    /// When nothing fits, the frame steps jumped over are tried towards the auto-receive size: what goes
    /// is what stepping one at a time chose (every 5th of 24 frames of noise, 5 frames, about 450 KB),
    /// not the jump's every 7th (4 frames).
    @Test func whatCannotFitKeepsTheFramesSteppingWouldHave() throws {
        let r = try AnimationBudget.fit(Noise(256, 256, frames: 24, ms: 33), maxBytes: 20_000, autoReceiveBytes: 522_240)
        #expect(!r.fits && r.gif.data.count <= 522_240)
        #expect(r.gif.width == 256 && r.gif.step == 5 && r.gif.frames == 5 && r.tries <= AnimationBudget.maxTries)
    }

    /// Tries past what can matter stop early and change nothing: 480×480 × 6 frames of noise (1.4 MB
    /// as a GIF whole) stops its first try past 522,240 bytes, and so on down the ladder, yet ends at
    /// the same GIF, byte for byte, as every try run whole.
    @Test func stoppedTriesChangeNothing() throws {
        let stopping = try AnimationBudget.fit(Noise(480, 480, frames: 6), maxBytes: 261_120, autoReceiveBytes: 522_240)
        let whole = try AnimationBudget.fit(Noise(480, 480, frames: 6), maxBytes: 261_120, autoReceiveBytes: 522_240, stopping: false)
        #expect(stopping.stopped >= 2 && whole.stopped == 0)
        #expect(stopping.gif.data == whole.gif.data && stopping.fits == whole.fits)
        #expect((stopping.gif.width, stopping.gif.step) == (whole.gif.width, whole.gif.step))
        // Nothing fits nor is auto-received: the whole-size GIF goes, made again whole if it was stopped.
        let none = try AnimationBudget.fit(Noise(400, 400, frames: 4), maxBytes: 2_000, autoReceiveBytes: 4_000)
        let noneWhole = try AnimationBudget.fit(Noise(400, 400, frames: 4), maxBytes: 2_000, autoReceiveBytes: 4_000, stopping: false)
        #expect(!none.fits && none.stopped >= 1 && none.gif.complete && none.gif.width == 400)
        #expect(none.gif.data == noneWhole.gif.data)
    }

    /// Frames scaled once and kept for the second pass and the tries after at the same size reach the
    /// palette filters as the graphs' own scaling gave them: the same GIF, byte for byte, with
    /// transparency and without.
    @Test func keptFramesChangeNothing() throws {
        let sources: [AnimationSource] = [Noise(480, 480, frames: 6), HalfClear(400, 300, frames: 8)]
        for source in sources {
            let (counted, plain) = (Passes(source), Passes(source))
            let kept = try AnimationBudget.fit(counted, maxBytes: 261_120, autoReceiveBytes: 522_240)
            let scaledEachPass = try AnimationBudget.fit(plain, maxBytes: 261_120, autoReceiveBytes: 522_240, keeping: false)
            #expect(kept.gif.data == scaledEachPass.gif.data, "\(source.width)×\(source.height)")
            #expect(kept.gif.width < source.width, "a scaled try was made")
            #expect(counted.passes < plain.passes, "kept frames read instead of the source: \(counted.passes) against \(plain.passes)")
        }
    }

    /// A try read from kept frames never reaches the source, whose meter checks the input's time
    /// limit and cancellation: the kept frames check them instead.
    @Test func keptFramesStopWhenTheInputIsCancelled() throws {
        let flag = CancellationFlag()
        let keeper = ScaledFrames.Keeper(cancellation: flag)
        let ff = try FFmpegLibraries.all()
        let source = Passes(Noise(96, 96, frames: 4))
        let sink = try FilterGraph("[in]null[out]", inputs: [("in", "video_size=48x48:pix_fmt=\(AV_PIX_FMT_BGRA.rawValue):time_base=1/100:pixel_aspect=1/1")])
        let out = try #require(ff.util.av_frame_alloc())
        var o: UnsafeMutablePointer<AVFrame>? = out
        defer { ff.util.av_frame_free(&o) }
        var pts: Int64 = 0
        var pushed = 0
        func pass(_ step: Int) throws -> Int {
            try TryFrames(source: source, width: 48, height: 48, step: step, ff: ff, keeper: keeper).forEach { _, push in
                guard let push else { return }
                try push(pts, sink)
                pts += 1
                pushed += 1
                while try sink.pull(into: out) {}
            }
        }
        #expect(try pass(1) == 4 && source.passes == 1, "the first pass scales and keeps")
        #expect(try pass(2) == 4 && source.passes == 1 && pushed == 6, "every other kept frame, the source not read")
        flag.cancel()
        #expect(throws: MediaPrepError.self) { _ = try pass(2) }
    }

    /// Counts the passes over an animation.
    final class Passes: AnimationSource {
        let inner: AnimationSource
        private(set) var passes = 0
        init(_ inner: AnimationSource) { self.inner = inner }
        var width: Int { inner.width }
        var height: Int { inner.height }
        var plays: Int { inner.plays }
        func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
            passes += 1
            try inner.forEachFrame(body)
        }
    }

    /// Noise whose left half is transparent: GIF's one transparent entry in every palette.
    final class HalfClear: AnimationSource {
        let width: Int, height: Int, plays = 0, frames: Int
        init(_ w: Int, _ h: Int, frames: Int) { (width, height, self.frames) = (w, h, frames) }
        func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
            let noise = Noise(width, height, frames: frames)
            try noise.forEachFrame { frame, ms in
                var bytes = frame.bytes
                for y in 0..<height { for x in 0..<(width / 2) { bytes[(y * width + x) * 4 + 3] = UInt8(truncatingIfNeeded: x * 2) } }
                try body(try PixelBuffer(width: width, height: height, layout: .rgba, bytes: bytes), ms)
            }
        }
    }

    /// Where a try may stop: above the chat side, past both limits and past what sends the next try
    /// straight to the chat side; at or below it, past both limits while frames may still be dropped;
    /// never where the next size is taken from this one's.
    @Test func whereATryMayStop() {
        let stop = { (side: Int, step: Int, maxStep: Int?) in
            AnimationBudget.stopAbove(side, step, maxStep: maxStep, maxBytes: 261_120, autoReceiveBytes: 522_240)
        }
        #expect(stop(1024, 1, nil) == Int((261_120 * (0.92 * 3.2) * (0.92 * 3.2)).rounded(.up)))
        #expect(stop(400, 1, nil) == 522_240, "the next try would go straight to 320 past 345,332 bytes, but 522,240 is auto-received")
        #expect(stop(320, 1, 3) == 522_240)
        #expect(stop(320, 3, 3) == nil && stop(320, 1, nil) == nil && stop(200, 1, 1) == nil)
        // The step that should fit, bytes taken as falling with the frames kept; the caller caps it.
        #expect(AnimationBudget.stepToFit(1, projected: 2_030_637, maxBytes: 261_120) == 8)
        #expect(AnimationBudget.stepToFit(4, projected: 308_510, maxBytes: 261_120) == 5)
        #expect(AnimationBudget.stepToFit(2, projected: 200_000, maxBytes: 261_120) == 2)
    }

    @Test func whatCannotFitGoesAtTheBestSizeStillAutoReceived() throws {
        // 240×240 × 20 frames of noise cannot fit 261,120 bytes even at 160 px and every other frame.
        let r = try AnimationBudget.fit(Noise(240, 240, frames: 20), maxBytes: 261_120, autoReceiveBytes: 522_240)
        #expect(!r.fits)
        #expect(r.gif.data.count <= 522_240 && r.gif.data.count > 261_120)
        #expect(max(r.gif.width, r.gif.height) >= AnimationBudget.floorSide)
    }
}

/// A GIF sent as it is still loses what it says about itself; an APNG's text is reported.
@Suite struct AnimationMetadataTests {
    /// anim.gif with a comment and an XMP application extension after its global colour table.
    static func gifWithMetadata() throws -> [UInt8] {
        let gif = try Fixture.bytes("anim.gif")
        var at = 13
        if gif[10] & 0x80 != 0 { at += 3 << (Int(gif[10] & 7) + 1) }
        let comment: [UInt8] = [0x21, 0xFE, 14] + Array("secret comment".utf8) + [0]
        let xmpBody = Array("<x:xmpmeta>Test Phone</x:xmpmeta>".utf8)
        let xmp: [UInt8] = [0x21, 0xFF, 11] + Array("XMP DataXMP".utf8) + [UInt8(xmpBody.count)] + xmpBody + [0]
        return Array(gif[0..<at]) + comment + xmp + Array(gif[at...])
    }

    @Test func aGIFKeptAsItIsLosesItsCommentAndXMP() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/meta.gif"
        try Data(try Self.gifWithMetadata()).write(to: URL(fileURLWithPath: path))
        let check = SendCheck().check(path: path)
        #expect(check.verdict == .afterPreparation && check.reasons.contains("XMP, comment metadata removed"), "\(check.reasons)")
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .animatedImage && item.route == .stripped)
        let sent = try FileBytes.read(out)
        #expect(!sent.contains(sequence: Array("secret comment".utf8)) && !sent.contains(sequence: Array("XMP DataXMP".utf8)))
        #expect(!sent.contains(sequence: Array("Test Phone".utf8)))
        // Every frame, as it was: the same bytes as the original without the two extensions.
        #expect(sent == (try Fixture.bytes("anim.gif")))
        #expect(try AnimationTests.readBack(out).frames.count == 3)
        // A clean GIF still goes as it is.
        #expect(SendCheck().check(path: Fixture.path("anim.gif")).verdict == .asIs)
    }

    @Test func anAPNGsTextIsReported() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let apng = try Fixture.bytes("anim-apng.png")
        let path = dir + "/t.png"
        try Data(Array(apng[0..<33]) + PNGTestChunk.make("tEXt", Array("Comment\0secret comment".utf8)) + Array(apng[33...]))
            .write(to: URL(fileURLWithPath: path))
        let check = SendCheck().check(path: path)
        #expect(check.kind == .animatedImage && check.reasons.contains("text metadata removed"), "\(check.reasons)")
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        let out = try #require(item.output)
        #expect(!(try FileBytes.read(out)).contains(sequence: Array("secret comment".utf8)))
    }
}

import CFFmpeg
import Foundation
import Testing
@testable import MediaPrep

@Suite struct VideoProbeTests {
    static let ffprobe: [String: Double] = {
        guard let data = FileManager.default.contents(atPath: Fixture.path("ffprobe-durations.json")),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Double] else { return [:] }
        return obj
    }()

    @Test(arguments: ["h264.mp4", "hevc.mp4", "vp9.webm", "rotated.mov", "black-start.mp4", "voice.m4a",
                      "voice.ogg", "voice.mp3", "voice-long.ogg"])
    func durationMatchesFFprobe(name: String) throws {
        let expected = try #require(Self.ffprobe[name])
        let r = try MediaProbe.probe(path: Fixture.path(name))
        let d = try #require(r.durationSeconds)
        #expect(abs(d - expected) < 1.0, "\(name): \(d) vs ffprobe \(expected)")
    }

    @Test(arguments: [
        ("h264.mp4", "h264", "aac"), ("hevc.mp4", "hevc", nil), ("vp9.webm", "vp9", "opus"), ("rotated.mov", "h264", nil),
    ] as [(String, String, String?)])
    func codecsAndKind(name: String, video: String, audio: String?) throws {
        let r = try MediaProbe.probe(path: Fixture.path(name))
        #expect(r.kind == .video)
        #expect(r.videoCodec == video)
        #expect(r.audioCodec == audio)
        #expect(r.container != nil)
        #expect(abs((r.frameRate ?? 0) - 25) < 0.01)
    }

    @Test func plainVideoSize() throws {
        let r = try MediaProbe.probe(path: Fixture.path("h264.mp4"))
        #expect(r.width == 320 && r.height == 240 && r.rotation == 0)
        #expect(r.container?.contains("mp4") == true)
        #expect((r.bitRate ?? 0) > 0)
    }

    @Test func displayMatrixMakesItPortrait() throws {
        let r = try MediaProbe.probe(path: Fixture.path("rotated.mov"))
        #expect(r.width == 240 && r.height == 320)
        #expect(r.rotation == 90 || r.rotation == 270)
    }

    @Test(arguments: [("voice.m4a", "aac"), ("voice.ogg", "opus"), ("voice.mp3", "mp3")])
    func audioOnlyIsVoice(name: String, codec: String) throws {
        let r = try MediaProbe.probe(path: Fixture.path(name))
        #expect(r.kind == .voice)
        #expect(r.audioCodec == codec)
        #expect(r.videoCodec == nil && r.width == nil)
    }

    @Test func gifKinds() throws {
        #expect(try MediaProbe.probe(path: Fixture.path("anim.gif")).kind == .animatedImage)
        #expect(try MediaProbe.probe(path: Fixture.path("anim.gif")).frameCount == 3)
        #expect(try MediaProbe.probe(path: Fixture.path("still.gif")).kind == .image)
    }

    @Test func truncatedMP4IsATypedError() {
        do {
            _ = try MediaProbe.probe(path: Fixture.path("truncated.mp4"))
            Issue.record("a truncated MP4 must not probe")
        } catch let e as MediaPrepError {
            #expect([.corrupt, .unsupportedFormat, .truncated].contains(e.code))
        } catch {
            Issue.record("untyped error \(error)")
        }
    }

    @Test func quickProbeReadsSizesFromHeaders() throws {
        let png = try MediaProbe.probe(path: Fixture.path("sticker.png"), thorough: false)
        #expect(png.width == 520 && png.height == 520 && png.kind == .image)
        let jpeg = try MediaProbe.probe(path: Fixture.path("orient-6.jpg"), thorough: false)
        #expect(jpeg.width == 64 && jpeg.height == 48 && jpeg.orientation == .right)
    }

    @Test func plainFileIsAFile() throws {
        #expect(try MediaProbe.probe(path: Fixture.path("make-fixtures.sh")).kind == .file)
    }
}

@Suite struct ThumbnailTests {
    func stats(_ p: PixelBuffer) -> (mean: Double, sd: Double) {
        let y = SSIM.luma(p).map(Double.init)
        let m = y.reduce(0, +) / Double(y.count)
        return (m, (y.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(y.count)).squareRoot())
    }

    @Test func firstFrameWhenItIsGood() throws {
        let t = try VideoThumbnailer().thumbnail(path: Fixture.path("h264.mp4"))
        #expect(t.seconds < 0.1)
        #expect(t.pixels.width == 320 && t.pixels.height == 240)
    }

    @Test func blackOpeningIsSkipped() throws {
        let t = try VideoThumbnailer().thumbnail(path: Fixture.path("black-start.mp4"))
        #expect(t.seconds >= 2.9)
        let s = stats(t.pixels)
        #expect(s.mean > 40 && s.sd > 20)  // testsrc2: bright and busy, not black
        // Keyframes first: the black one at 0 s and the cut at 3 s, not the 75 frames between.
        #expect(t.framesDecoded == 2)
    }

    /// A frame's colour space reaches every swscale context: two contexts (each its own band of
    /// rows) give one context's pixels, for a BT.2020 frame (not swscale's default matrix) and a 4K one.
    @Test(arguments: [("hdr-pq.mp4", 192, 108), ("hevc-4k.mp4", 1280, 720)])
    func twoScalerContextsConvertAsOne(_ name: String, _ width: Int, _ height: Int) throws {
        let input = try MediaInput(path: Fixture.path(name))
        let stream = try #require(input.bestStream(AVMEDIA_TYPE_VIDEO))
        let decoder = try FrameDecoder(input: input, stream: stream)
        let frame = try #require(try decoder.next())
        let one = try FrameConverter.convert(frame, layout: .rgb, width: width, height: height, threads: 1)
        for _ in 0..<4 {
            #expect(try FrameConverter.convert(frame, layout: .rgb, width: width, height: height, threads: 2).bytes == one.bytes)
        }
    }

    @Test func fourKHEVCThumbnail() throws {
        let t = try VideoThumbnailer(maxSide: 640).thumbnail(path: Fixture.path("hevc-4k.mp4"))
        #expect(t.pixels.width == 640 && t.pixels.height == 360)
        #expect(t.framesDecoded == 1 && stats(t.pixels).sd > 20)
    }

    @Test func rotatedVideoGivesAPortraitThumbnail() throws {
        let t = try VideoThumbnailer().thumbnail(path: Fixture.path("rotated.mov"))
        #expect(t.pixels.width == 240 && t.pixels.height == 320)
        // Stored red-over-blue, shown turned: as ffmpeg's own autorotate, red left and blue right.
        let left = t.pixels.rgba(x: 20, y: 160), right = t.pixels.rgba(x: 220, y: 160)
        #expect(left.r > 180 && left.b < 80)
        #expect(right.b > 180 && right.r < 80)
    }

    @Test(arguments: ["hevc.mp4", "vp9.webm"])
    func otherCodecsDecode(name: String) throws {
        let t = try VideoThumbnailer(maxSide: 160).thumbnail(path: Fixture.path(name))
        #expect(t.pixels.width == 160 && t.pixels.height == 120)
        #expect(stats(t.pixels).sd > 20)
    }

    @Test func audioHasNoThumbnail() {
        #expect(throws: MediaPrepError.self) { try VideoThumbnailer().thumbnail(path: Fixture.path("voice.m4a")) }
    }

    @Test func truncatedVideoFailsCleanly() {
        #expect(throws: MediaPrepError.self) { try VideoThumbnailer().thumbnail(path: Fixture.path("truncated.mp4")) }
    }

    @Test func ffmpegWrappersAreReleased() throws {
        // The C objects are freed in these wrappers' deinits; prove nothing keeps them alive.
        weak var input: MediaInput?
        weak var decoder: FrameDecoder?
        do {
            let i = try MediaInput(path: Fixture.path("h264.mp4"))
            let stream = try #require(i.bestStream(AVMEDIA_TYPE_VIDEO))
            let d = try FrameDecoder(input: i, stream: stream)
            _ = try d.next()
            input = i
            decoder = d
            #expect(input != nil && decoder != nil)
        }
        #expect(input == nil)
        #expect(decoder == nil)
    }
    // The repeated-use memory bound runs in a child process: MemoryBoundTests.repeatedThumbnailsDoNotLeakFrames.
}

@Suite struct PrepareMediaTests {
    func prepare(_ name: String) throws -> (PreparedItem, String) {
        let dir = try Fixture.scratch()
        return (AttachmentPreparer(outputDirectory: dir, timestamp: 1_795_348_800).prepare(path: Fixture.path(name)), dir)
    }

    @Test func videoIsKeptAsItIsWithAPreview() throws {
        let dir = try Fixture.scratch()
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 1_795_348_800)
        preparer.media.video = .original  // the default would transcode VP9 (see VideoTranscodeTests)
        let item = preparer.prepare(path: Fixture.path("vp9.webm"))
        #expect(item.error == nil)
        #expect(item.kind == .video)
        #expect(item.output == dir + "/VID_20261122_120000.webm")
        // Its own bytes, but for FFmpeg's ENCODER and DURATION tags turned into a Void element.
        #expect(try FileBytes.read(item.output ?? "").count == (try Fixture.bytes("vp9.webm")).count && item.route == .stripped)
        #expect(try Packets.all(item.output ?? "") == Packets.all(Fixture.path("vp9.webm")))
        #expect(item.durationSeconds == 2)  // 2.008 s, truncated as SimpleX does
        #expect((item.preview ?? "").hasPrefix("data:image/jpg;base64,"))
        #expect((item.preview ?? "").count <= 14_000)
        if case .video(_, let image, let duration)? = item.content {
            #expect(image == item.preview && duration == 2)
        } else {
            Issue.record("expected video content")
        }
    }

    @Test func rotatedVideoReportsDisplaySize() throws {
        let (item, _) = try prepare("rotated.mov")
        #expect(item.width == 240 && item.height == 320)
        #expect(item.output?.hasSuffix(".mov") == true)
    }

    /// QuickTime from before `ftyp` (a camera's MJPEG clip, an old Apple movie) starts with a movie,
    /// media data or padding atom: it was an unknown file, sent with its dates. Told now, and moved into
    /// an MP4 where its codecs would have let it go as it is (not every player opens a movie with no
    /// file type), turned as it was.
    @Test func aQuickTimeMovieWithNoFileTypeIsToldAndRemuxed() throws {
        for atom in ["moov", "mdat", "wide", "free", "skip"] {
            #expect(FormatSniffer.sniff([0, 0, 0x0F, 0x17] + Array(atom.utf8) + [UInt8](repeating: 0, count: 24)) == .mov, "\(atom)")
        }
        #expect(FormatSniffer.sniff([0, 0, 0, 0] + Array("free".utf8) + [UInt8](repeating: 0, count: 24)) == .unknown)  // no size: no atom
        #expect(FormatSniffer.sniff(Array("Get free tickets for the whole family today".utf8)) == .unknown)  // text, not a 1.2 GB atom
        var legacy = try Fixture.bytes("rotated.mov")
        #expect(Array(legacy[4..<8]) == Array("ftyp".utf8))
        legacy.replaceSubrange(4..<8, with: Array("free".utf8))  // its file type box made padding: a movie from before ftyp
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(legacy).write(to: URL(fileURLWithPath: dir + "/clip.mov"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/clip.mov")
        #expect(item.kind == .video && item.route == .remuxed && item.output?.hasSuffix(".mp4") == true, "\(String(describing: item.error))")
        #expect(item.width == 240 && item.height == 320)
        let out = try FileBytes.read(try #require(item.output))
        #expect(Array(out[4..<8]) == Array("ftyp".utf8))
        #expect(try Packets.all(try #require(item.output)).count == (try Packets.all(Fixture.path("rotated.mov"))).count)
        // --video original sends it as it came.
        var original = AttachmentPreparer(outputDirectory: dir + "/orig", timestamp: 0)
        original.media.video = .original
        #expect(original.prepare(path: dir + "/clip.mov").route == .stripped)
    }

    @Test func voiceNoteDurationIsRounded() throws {
        let (item, dir) = try prepare("voice.m4a")
        #expect(item.kind == .voice)
        #expect(item.durationSeconds == 5)  // 4.6 s rounds to 5
        #expect(item.output == dir + "/voice_20261122_120000.m4a")
        #expect(item.autoReceive == true)
        #expect(item.preview == nil)
        #expect(item.content == .voice(text: "", duration: 5))
    }

    /// SimpleX's voice messages end at 300 s; a longer recording goes as the app's file picker sends it.
    @Test func audioOverFiveMinutesIsAFile() throws {
        let (item, dir) = try prepare("voice-long.ogg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.error == nil && item.kind == .file && item.route == .stripped)  // its comments emptied
        let out = try #require(item.output)
        #expect(out.hasSuffix("/voice-long.ogg"))  // its own name
        #expect(try Packets.all(out) == Packets.all(Fixture.path("voice-long.ogg")))
        #expect(item.content == .file(text: ""))
    }

    @Test func animatedGIFIsSentAsItsOriginalBytes() throws {
        let (item, _) = try prepare("anim.gif")
        #expect(item.kind == .animatedImage)
        #expect(try FileBytes.read(item.output ?? "") == (try Fixture.bytes("anim.gif")))
        #expect(item.output?.hasSuffix(".gif") == true)
        #expect((item.preview ?? "").hasPrefix("data:image/"))
    }

    @Test func stillGIFIsAnImage() throws {
        let (item, _) = try prepare("still.gif")
        #expect(item.kind == .image)
        #expect(item.output?.hasSuffix(".gif") == false)
    }

    @Test func truncatedVideoWritesNothing() throws {
        let (item, dir) = try prepare("truncated.mp4")
        #expect(item.error != nil)
        #expect(item.output == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func plainFileKeepsItsName() throws {
        let (item, dir) = try prepare("make-fixtures.sh")
        #expect(item.kind == .file)
        #expect(item.output == dir + "/make-fixtures.sh")
        #expect(item.content == .file(text: ""))
    }
}

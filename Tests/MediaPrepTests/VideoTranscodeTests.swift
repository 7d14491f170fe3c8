import CFFmpeg
import Foundation
import Testing
@testable import MediaPrep

/// Videos every client plays, in the size the sender chooses.
@Suite struct VideoTranscodeTests {
    static let durations: [String: Double] = VoiceTranscodeTests.durations

    func prepare(_ name: String, _ configure: (inout AttachmentPreparer) -> Void = { _ in }) throws -> (PreparedItem, String) {
        let dir = try Fixture.scratch()
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 1_795_348_800)
        configure(&p)
        return (p.prepare(path: Fixture.path(name)), dir)
    }

    /// The moov box comes before mdat: players start before the whole file is there.
    func isFaststart(_ path: String) throws -> Bool {
        let b = try FileBytes.read(path)
        func find(_ tag: String) -> Int? {
            let t = Array(tag.utf8)
            return (0..<max(0, b.count - 4)).first { b[$0] == t[0] && b[$0 + 1] == t[1] && b[$0 + 2] == t[2] && b[$0 + 3] == t[3] }
        }
        guard let moov = find("moov"), let mdat = find("mdat") else { return false }
        return moov < mdat
    }

    @Test func vp9WebMBecomesH264AndAACInMP4() throws {
        let (item, dir) = try prepare("vp9.webm")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.error == nil, "\(String(describing: item.error))")
        #expect(item.kind == .video && item.route == .encoded && item.format == .mp4)
        let out = try #require(item.output)
        #expect(out == dir + "/VID_20261122_120000.mp4")
        let p = try MediaProbe.probe(path: out)
        #expect(p.videoCodec == "h264" && p.audioCodec == "aac" && p.format == .mp4)
        #expect(p.width == 320 && p.height == 240)
        #expect(abs((p.durationSeconds ?? 0) - (Self.durations["vp9.webm"] ?? 0)) < 0.1)
        #expect(try isFaststart(out))
        #expect(item.bytes == p.bytes && item.durationSeconds == 2)
        #expect((item.preview ?? "").hasPrefix("data:image/jpg;base64,") && (item.preview ?? "").count <= 14_000)
    }

    @Test func originalModeSendsTheWebMAsItIs() throws {
        let (item, dir) = try prepare("vp9.webm") { $0.media.video = .original }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // As it is, less its muxer's tags (a Void element of the same length): every packet the same.
        #expect(item.route == .stripped && item.output?.hasSuffix(".webm") == true)
        #expect(try FileBytes.read(item.output ?? "").count == (try Fixture.bytes("vp9.webm")).count)
        #expect(try Packets.all(item.output ?? "") == Packets.all(Fixture.path("vp9.webm")))
    }

    /// Its packets untouched; only its encoder tag goes (every box stays where it was), and what is
    /// left has nothing to remove, so it goes as it is.
    @Test func playableMP4KeepsEveryPacket() throws {
        let (item, dir) = try prepare("h264.mp4") { $0.media = .autoReceive() }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.route == .stripped)
        let out = try #require(item.output)
        #expect(try FileBytes.read(out).count == (try Fixture.bytes("h264.mp4")).count)
        #expect(try Packets.all(out) == Packets.all(Fixture.path("h264.mp4")))
        let again = AttachmentPreparer(outputDirectory: dir + "/again", timestamp: 0).prepare(path: out)
        #expect(again.route == .original)
        #expect(try FileBytes.read(again.output ?? "") == FileBytes.read(out))
    }

    @Test func rotatedClipStaysUprightWhenTranscoded() throws {
        let (item, dir) = try prepare("rotated-mpeg4.mov")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.error == nil && item.route == .encoded)
        let out = try #require(item.output)
        let p = try MediaProbe.probe(path: out)
        #expect(p.videoCodec == "h264" && p.audioCodec == "aac")
        let source = try MediaProbe.probe(path: Fixture.path("rotated-mpeg4.mov"))
        #expect(source.rotation != 0 && p.rotation == source.rotation && p.width == 240 && p.height == 320)
        // Played (display matrix applied) as the source is: red on the left, blue on the right.
        let t = try VideoThumbnailer().thumbnail(path: out)
        #expect(t.pixels.width == 240 && t.pixels.height == 320)
        let left = t.pixels.rgba(x: 20, y: 160), right = t.pixels.rgba(x: 220, y: 160)
        #expect(left.r > 180 && left.b < 80)
        #expect(right.b > 180 && right.r < 80)
        #expect(item.width == 240 && item.height == 320)
    }

    @Test func byteBudgetHoldsWhereAPlainEncodeOvershoots() throws {
        let budget = 60_000
        let (plain, d1) = try prepare("noisy.webm")
        defer { try? FileManager.default.removeItem(atPath: d1) }
        #expect((plain.bytes ?? 0) > 2 * budget, "the fixture's point: constant quality overshoots (\(plain.bytes ?? 0) bytes)")
        let (item, d2) = try prepare("noisy.webm") { $0.media.videoMaxBytes = budget }
        defer { try? FileManager.default.removeItem(atPath: d2) }
        #expect(item.error == nil, "\(String(describing: item.error))")
        let out = try #require(item.output)
        let size = try FileBytes.size(out)
        #expect(size <= budget && size == item.bytes)
        #expect(size > budget / 2, "a budget is for spending: \(size) bytes")
        let p = try MediaProbe.probe(path: out)
        #expect(p.videoCodec == "h264" && p.audioCodec == "aac")
        #expect(abs((p.durationSeconds ?? 0) - 2.0) < 0.15)
        // Nothing but the output is left behind (x264's two-pass statistics are removed).
        #expect(try FileManager.default.contentsOfDirectory(atPath: d2).count == 1)
    }

    @Test func budgetTooSmallForEvenTheFloorIsRefused() throws {
        let (item, dir) = try prepare("noisy.webm") { $0.media.videoMaxBytes = 12_000 }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.error?.code == .overLimit)
        #expect(item.error?.message.contains("would fit") == true, "\(item.error?.message ?? "")")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func budgetPlanTradesSizeForRate() throws {
        let clip = VideoSource(width: 1920, height: 1080, seconds: 60, frameRate: 25, audioChannels: 2, audioSampleRate: 48_000)
        let tight = try VideoBudget.plan(clip, maxBytes: 1_047_552).plan
        #expect(tight.videoBitRate != nil && tight.maxLongSide < 1280 && tight.audioChannels == 1)
        let short = VideoSource(width: 1920, height: 1080, seconds: 5, frameRate: 25, audioChannels: 2, audioSampleRate: 48_000)
        #expect(try VideoBudget.plan(short, maxBytes: 1_047_552).plan.maxLongSide > tight.maxLongSide)
        // Generous: constant quality with a rate cap, the two-pass plan as the fallback.
        let roomy = try VideoBudget.plan(short, maxBytes: 50_000_000)
        #expect(roomy.plan.videoBitRate == nil && roomy.plan.maxRate != nil && roomy.fallback?.videoBitRate != nil)
        #expect(throws: MediaPrepError.self) { try VideoBudget.plan(clip, maxBytes: 100_000) }
    }

    @Test func blueskyTurnsAnAnimatedGIFIntoAnMP4() throws {
        let (item, dir) = try prepare("anim.gif") { $0.profile = .bluesky }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.error == nil, "\(String(describing: item.error))")
        #expect(item.kind == .video && item.format == .mp4)
        let out = try #require(item.output)
        #expect(out.hasSuffix(".mp4"))
        let p = try MediaProbe.probe(path: out)
        #expect(p.videoCodec == "h264" && p.audioCodec == nil && p.width == 64 && p.height == 48)
        #expect(abs((p.durationSeconds ?? 0) - 0.6) < 0.05, "three 0.2 s frames, the last one kept: \(p.durationSeconds ?? 0)")
        let first = try VideoThumbnailer().thumbnail(path: out)
        let px = first.pixels.rgba(x: 32, y: 24)
        #expect(px.r > 200 && px.g < 60 && px.b < 60)  // the first frame is red
        #expect((item.preview ?? "").hasPrefix("data:image/"))
    }

    @Test func cutShortWebMIsRefusedNotSent() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bytes = try Fixture.bytes("noisy.webm")
        _ = FileManager.default.createFile(atPath: dir + "/cut.webm", contents: Data(bytes.prefix(bytes.count / 2)))
        let out = dir + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let item = AttachmentPreparer(outputDirectory: out, timestamp: 0).prepare(path: dir + "/cut.webm")
        #expect(item.error?.code == .truncated, "\(String(describing: item.error))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    @Test func progressRisesToOneAndCancellingLeavesNothing() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let seen = Recorder()
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        p.media.videoMaxBytes = 60_000
        p.run.onProgress = { _, f in seen.add(f) }
        #expect(p.prepare(path: Fixture.path("noisy.webm")).error == nil)
        let values = seen.values
        #expect(values.count >= 3 && values.last == 1 && zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
        try FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let flag = CancellationFlag()
        p.run.cancellation = flag
        p.run.onProgress = { _, _ in flag.cancel() }  // interrupted as soon as the encode is under way
        #expect(p.prepare(path: Fixture.path("noisy.webm")).error?.code == .cancelled)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }

    @Test func voiceBudgetLowersTheRate() throws {
        let (item, dir) = try prepare("voice.wav") { $0.media.voiceMaxBytes = 6_500 }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.error == nil && (item.bytes ?? .max) <= 6_500)
        let (plain, d2) = try prepare("voice.wav")
        defer { try? FileManager.default.removeItem(atPath: d2) }
        #expect((plain.bytes ?? 0) > 6_500)
        #expect(VoiceTranscoder.bitRate(fitting: 522_240, seconds: 300) == nil)  // 300 s needs > 16 kbit/s of 522,240 bytes
        #expect(VoiceTranscoder.bitRate(fitting: 522_240, seconds: 60) == VoiceTranscoder.bitRate)
    }
}

/// Progress values from the encoder's thread.
private final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Double] = []
    func add(_ v: Double) { lock.lock(); list.append(v); lock.unlock() }
    var values: [Double] { lock.lock(); defer { lock.unlock() }; return list }
}

/// A transcode for compatibility alone does not grow the file: the rate is capped at the source's.
@Suite struct CompatibilityTranscodeSizeTests {
    @Test(arguments: ["vp9.webm", "noisy.webm"]) func notLargerThanTheSource(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        let source = try Fixture.bytes(name).count
        #expect(item.route == .encoded)
        // 2 s clips: AAC's priming and the MP4 index are a few KB of fixed cost (uncapped: 1.36×, 1.37×).
        #expect(Double(try #require(item.bytes)) <= 1.2 * Double(source), "\(name): \(item.bytes ?? 0) bytes from \(source)")
        #expect(SendCheck().check(path: Fixture.path(name)).reasons.contains("at no more than the source's own bit rate"))
    }

    @Test func belowTheFloorItSaysTheFileMayGrow() {
        let source = VideoSource(width: 1280, height: 720, seconds: 20, frameRate: 30, audioChannels: 1, audioSampleRate: 48_000)
        let (plan, note) = VideoEncodePlan.compatible(source, sourceBitRate: 60_000)
        #expect(plan.maxRate == 110_592 && note?.hasSuffix("the file may grow") == true)
        let (generous, none) = VideoEncodePlan.compatible(source, sourceBitRate: 2_000_000)
        #expect(generous.maxRate == 2_000_000 - 64_000 && none == nil && generous.audioBitRate == 64_000)
    }
}

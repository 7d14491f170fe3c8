import Foundation
import Testing
@testable import MediaPrep

/// AVI, as older cameras record it: sniffed by content (it was an unknown file, its INFO tags and capture
/// date sent along), prepared as a video (an MP4, transcoded or remuxed), and stripped in place when
/// sent as it is (`--video original`).
@Suite struct AVITests {
    static func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + le(body.count, 4) + body + (body.count % 2 == 1 ? [0] : []) }
    static func list(_ type: String, _ chunks: [UInt8]) -> [UInt8] { chunk("LIST", Array(type.utf8) + chunks) }

    /// One 8×8 uncompressed frame (BI_RGB), a camera's capture date in `hdrl`, and an INFO list.
    static func avi() -> [UInt8] {
        let (w, h) = (8, 8)
        let avih = le(200_000, 4) + le(0, 4) + le(0, 4) + le(0x10, 4) + le(1, 4) + le(0, 4) + le(1, 4) + le(w * h * 3, 4)
            + le(w, 4) + le(h, 4) + [UInt8](repeating: 0, count: 16)
        let strh = Array("vids".utf8) + Array("DIB ".utf8) + le(0, 4) + le(0, 2) + le(0, 2) + le(0, 4) + le(1, 4) + le(5, 4) + le(0, 4)
            + le(1, 4) + le(w * h * 3, 4) + le(-1, 4) + le(0, 4) + le(0, 2) + le(0, 2) + le(w, 2) + le(h, 2)
        let strf = le(40, 4) + le(w, 4) + le(h, 4) + le(1, 2) + le(24, 2) + le(0, 4) + le(w * h * 3, 4) + [UInt8](repeating: 0, count: 16)
        let hdrl = list("hdrl", chunk("avih", avih) + list("strl", chunk("strh", strh) + chunk("strf", strf))
                                + chunk("IDIT", Array("Mon Jun 01 10:00:00 2026\n".utf8) + [0]))
        let info = list("INFO", chunk("IART", Array("Jane Sender".utf8) + [0]) + chunk("ICRD", Array("2026-06-01".utf8) + [0]))
        var frame: [UInt8] = []
        for y in 0..<h { for x in 0..<w { frame += [UInt8(x * 30), UInt8(y * 30), 200] } }
        let movi = list("movi", chunk("00db", frame))
        let idx1 = chunk("idx1", Array("00db".utf8) + le(0x10, 4) + le(4, 4) + le(frame.count, 4))
        let body = Array("AVI ".utf8) + hdrl + info + movi + idx1
        return Array("RIFF".utf8) + le(body.count, 4) + body
    }

    @Test func itsTagsAndCaptureDateAreBlankedInPlace() throws {
        let input = Self.avi()
        #expect(FormatSniffer.sniff(input) == .avi)
        let rewrite = try #require(try FormatRegistry.rewrite(ByteReader(input), format: .avi))
        #expect(rewrite.found.contains(.author) && rewrite.found.contains(.dates))
        let out = NothingPrivateTests.applied(rewrite, to: input)
        #expect(out.count == input.count)
        for secret in ["Jane Sender", "2026-06-01", "Jun 01 10:00:00"] {
            #expect(input.contains(sequence: Array(secret.utf8)) && !out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        // The frames and their index are the same bytes.
        let movi = try #require(input.firstRange(of: Array("movi".utf8)))
        #expect(out[movi.lowerBound...] == input[movi.lowerBound...])
    }

    @Test func itIsPreparedAsAVideoAndSentAsItIsOnlyWithoutItsTags() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/camera.avi"
        try Data(Self.avi()).write(to: URL(fileURLWithPath: path))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.kind == .video && item.format == .mp4, "\(String(describing: item.error))")
        var original = AttachmentPreparer(outputDirectory: dir + "/original", timestamp: 0)
        original.media.video = .original
        let kept = original.prepare(path: path)
        #expect(kept.kind == .video && kept.route == .stripped, "\(String(describing: kept.error))")
        for out in [item.output, kept.output] {
            let bytes = try FileBytes.read(try #require(out))
            #expect(!bytes.contains(sequence: Array("Jane Sender".utf8)) && !bytes.contains(sequence: Array("2026-06-01".utf8)))
        }
        #expect(try #require(kept.output).hasSuffix(".avi"))
    }
}

/// MPEG-TS and AVCHD's M2TS (camcorders): sniffed past the first 64 bytes (three packets' sync bytes),
/// and always transcoded, even with `--video original`: a camcorder's date and GPS ride in the H.264
/// stream's own SEI messages, which a remux or a copy would keep. Before, both went as unknown files.
@Suite struct TransportStreamTests {
    /// The fixture's 188-byte packets, each after a 4-byte time stamp, as AVCHD writes them.
    static func m2ts(_ ts: [UInt8]) -> [UInt8] {
        stride(from: 0, to: ts.count - 187, by: 188).flatMap { [0, 0, 0, 0] + ts[$0..<($0 + 188)] }
    }

    @Test func aTransportStreamIsAVideoThatIsAlwaysTranscoded() throws {
        let ts = try Fixture.bytes("camcorder.ts")
        #expect(FormatSniffer.sniff(ts) == .mpegts && FormatSniffer.sniff(Self.m2ts(ts)) == .mpegts)
        #expect(FormatSniffer.sniff(Array(ts.prefix(FormatSniffer.headerLength))) == .unknown)  // too little to tell
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(Self.m2ts(ts)).write(to: URL(fileURLWithPath: dir + "/camcorder.m2ts"))
        var original = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        original.media.video = .original
        for (preparer, path) in [(AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0), Fixture.path("camcorder.ts")),
                                 (original, dir + "/camcorder.m2ts")] {
            let item = preparer.prepare(path: path)
            #expect(item.kind == .video && item.format == .mp4 && item.route == .encoded, "\(path): \(String(describing: item.error))")
            let out = try FileBytes.read(try #require(item.output))
            #expect(!out.contains(sequence: Array("Jane Sender".utf8)))
        }
        var check = SendCheck()
        check.media.video = .original
        #expect(check.check(path: Fixture.path("camcorder.ts")).reasons.contains { $0.hasPrefix("an MPEG-TS is never sent as it is") })
    }

    /// Flash video (its onMetaData names the sender) and an MPEG program stream: sniffed (both were
    /// unknown files), and transcoded even when asked to go as they are.
    @Test(arguments: [("flash.flv", MediaFormat.flv), ("program.mpg", .mpegps), ("movie.wmv", .asf)])
    func flashAndProgramStreamsAreTranscodedToo(_ name: String, _ format: MediaFormat) throws {
        #expect(FormatSniffer.sniff(try Fixture.bytes(name)) == format)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.video = .original
        let item = preparer.prepare(path: Fixture.path(name))
        #expect(item.kind == .video && item.format == .mp4 && item.route == .encoded, "\(String(describing: item.error))")
        #expect(!(try FileBytes.read(try #require(item.output))).contains(sequence: Array("Jane Sender".utf8)))
    }
}

/// Sound alone in a transport stream, a program stream or Flash video, sent as a file (long, music,
/// `--audio-as file`): no stripper cuts those containers' names in place, so the file that leaves is
/// new: AAC moved into an .m4a, MP3 into a bare .mp3, anything else re-encoded as AAC. Before, each
/// went with its own bytes, "Jane Sender" and all.
@Suite struct AudioFromVideoContainerTests {
    @Test(arguments: [("radio-aac.flv", "m4a", "aac", PrepareRoute.remuxed, 1.0),
                      ("radio-mp3.flv", "mp3", "mp3", .remuxed, 0.5),
                      ("radio-mp2.ts", "m4a", "aac", .encoded, 1.0),
                      ("memo.wma", "m4a", "aac", .encoded, 0.5)])
    func soundSentAsAFileLeavesItsContainerBehind(_ name: String, _ ext: String, _ codec: String, _ route: PrepareRoute,
                                                  _ seconds: Double) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.audio = .file
        let item = preparer.prepare(path: Fixture.path(name))
        let out = try #require(item.output, "\(String(describing: item.error))")
        #expect(item.kind == .file && item.route == route)
        #expect(out.hasSuffix("/" + name.split(separator: ".")[0] + "." + ext))  // its own name, a new extension
        #expect(!(try FileBytes.read(out)).contains(sequence: Array("Jane Sender".utf8)))
        let sent = try MediaProbe.probe(path: out)
        #expect(sent.audioCodec == codec && sent.videoCodec == nil)
        // The whole sound, and no more: starting at zero (a TS's audio starts at 1.4 s, which kept would
        // play as silence), ending with the encoders' priming and padding (a frame is 128 ms of AAC at
        // 8 kHz, 52 ms of MP3 at 11 kHz).
        #expect(abs((sent.durationSeconds ?? 0) - seconds) < 0.2, "\(sent.durationSeconds ?? 0) s")

        var check = SendCheck()
        check.media.audio = .file
        let verdict = check.check(path: Fixture.path(name))
        #expect(verdict.code == (route == .remuxed ? "remuxed" : "transcoded"))
        #expect(verdict.reasons.contains { $0.hasSuffix("names and dates cannot be taken out in place") })
    }

    /// The planner's own choices: rate and channels from the source, never above its bit rate.
    @Test func reEncodedSoundKeepsItsRateWithinLimits() {
        var p = ProbeResult(path: "x.ts", kind: .voice, format: .mpegts, bytes: 1)
        (p.audioCodec, p.audioChannels, p.audioSampleRate, p.bitRate) = ("mp2", 6, 96_000, 384_000)
        #expect(AudioFileRoute.of(p) == .transcode(sampleRate: 48_000, channels: 2, bitRate: 160_000))
        (p.audioChannels, p.audioSampleRate, p.bitRate) = (1, 22_050, 40_000)
        #expect(AudioFileRoute.of(p) == .transcode(sampleRate: 22_050, channels: 1, bitRate: 40_000))
        p.bitRate = 8_000
        #expect(AudioFileRoute.of(p) == .transcode(sampleRate: 22_050, channels: 1, bitRate: 32_000))
        p.audioBitRate = 48_000  // the stream's own rate, not the container's (a TS's packets add a third)
        #expect(AudioFileRoute.of(p) == .transcode(sampleRate: 22_050, channels: 1, bitRate: 48_000))
    }
}

/// AMR, as older phones' recorders write it (no Apple player plays it): sniffed (it was an unknown file)
/// and made a voice note. Built here: 50 frames of AMR-NB 12.2 kbit/s, one second.
@Suite struct AMRTests {
    static let memo = Array("#!AMR\n".utf8) + (0..<50).flatMap { i in [0x3C] + (0..<31).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ i) } }

    @Test func anAMRRecordingBecomesAVoiceNote() throws {
        let amr = Self.memo
        #expect(FormatSniffer.sniff(amr) == .amr)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(amr).write(to: URL(fileURLWithPath: dir + "/memo.amr"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/memo.amr")
        #expect(item.kind == .voice && item.format == .m4a && item.route == .encoded, "\(String(describing: item.error))")
        #expect(item.durationSeconds == 1)
    }
}

/// A DV camcorder's raw stream (its recording date in every frame), RealMedia (its author) and MXF (a
/// professional camera's or editor's names and dates) were unknown files sent as they came: told by
/// their headers, and transcoded even when asked to go as they are. (No fixture: a DV frame alone is
/// 144,000 bytes. Checked by hand on files ffmpeg made: each left as an H.264 MP4 with none of them.)
@Suite struct CamcorderAndBroadcastContainerTests {
    /// A DV frame's header block and the subcode block after it.
    static let dv: [UInt8] = [0x1F, 0x07, 0x00, 0xBF] + [UInt8](repeating: 0xFF, count: 76) + [0x3F, 0x07, 0x00] + [UInt8](repeating: 0xFF, count: 77)
    static let realMedia: [UInt8] = Array(".RMF".utf8) + [0, 0, 0, 0x12, 0, 0, 0, 0, 0, 0, 0, 0]
    /// An MXF header partition pack's key.
    static let mxf: [UInt8] = [0x06, 0x0E, 0x2B, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0D, 0x01, 0x02, 0x01, 0x01, 0x02, 0x04, 0x00]

    @Test func toldByTheirHeaders() {
        let dv = Self.dv
        #expect(FormatSniffer.sniff(dv) == .dv)
        #expect(FormatSniffer.sniff(Array(dv.prefix(80)) + [UInt8](repeating: 0, count: 80)) == .unknown)  // no subcode block after it
        #expect(FormatSniffer.sniff(Self.realMedia) == .realMedia)
        #expect(FormatSniffer.sniff(Array(".RMF is a file extension".utf8)) == .unknown)
        #expect(FormatSniffer.sniff(Self.mxf) == .mxf)
        #expect([MediaFormat.dv, .realMedia, .mxf].allSatisfy { $0.isTranscodedOnly && $0.isAudioVisual })
    }

    @Test(arguments: [(MediaFormat.dv, "dvvideo", "a DV camcorder stream"), (.realMedia, "rv40", "a RealMedia file"), (.mxf, "mpeg2video", "an MXF")])
    func neverSentAsTheyAre(_ format: MediaFormat, _ codec: String, _ named: String) {
        var p = ProbeResult(path: "clip", kind: .video, format: format, bytes: 1_000_000)
        (p.videoCodec, p.audioCodec, p.width, p.height, p.durationSeconds) = (codec, "pcm_s16le", 720, 576, 1)
        var rules = SendRules()
        for video in [MediaOptions.VideoMode.compatible, .original] {
            rules.media.video = video
            let plan = SendPlanner.plan(ProbedSource(probe: p, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil), rules)
            guard case .transcodeVideo = plan.action else { Issue.record("\(format) \(video): \(plan.action)"); continue }
            #expect(plan.reasons.contains("\(named) is never sent as it is: its metadata cannot be taken out in place"), "\(plan.reasons)")
        }
    }
}

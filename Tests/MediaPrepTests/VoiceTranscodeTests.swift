import Foundation
import Testing
@testable import MediaPrep

/// Voice notes every client plays: AAC-LC .m4a, mono, 16 kHz, as the iOS app records them.
@Suite struct VoiceTranscodeTests {
    static let durations: [String: Double] = {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: Fixture.path("ffprobe-durations.json")))) ?? Data()
        return (try? JSONDecoder().decode([String: Double].self, from: data)) ?? [:]
    }()

    @Test(arguments: ["voice.wav", "voice.flac", "voice.mp3", "voice.ogg"])
    func otherAudioBecomesTheAppsM4A(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        #expect(item.error == nil, "\(name): \(String(describing: item.error))")
        #expect(item.kind == .voice && item.route == .encoded && item.format == .m4a)
        let out = try #require(item.output)
        #expect(out.hasSuffix(".m4a"))
        let p = try MediaProbe.probe(path: out)
        #expect(p.audioCodec == "aac" && p.format == .m4a && p.videoCodec == nil)
        let input = try MediaInput(path: out)
        let par = try #require(input.bestStream(AVMEDIA_TYPE_AUDIO)).pointee.codecpar.pointee
        #expect(par.sample_rate == 16_000 && par.ch_layout.nb_channels == 1)
        #expect(par.bit_rate > 16_000 && par.bit_rate <= 40_000)
        // Duration preserved within 50 ms of what ffprobe says of the source.
        let source = try #require(Self.durations[name])
        #expect(abs((p.durationSeconds ?? 0) - source) <= 0.05, "\(name): \(p.durationSeconds ?? 0) s vs \(source) s")
        #expect(item.bytes == p.bytes)
        #expect(item.durationSeconds == Int(source.rounded()))
    }

    @Test func aacInM4AGoesAsItIs() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("voice.m4a"))
        #expect(item.route == .stripped)  // its encoder tag gone
        let out = try #require(item.output)
        #expect(try Packets.all(out) == Packets.all(Fixture.path("voice.m4a")))
        #expect(item.bytes == (try Fixture.bytes("voice.m4a")).count)
    }

    @Test func overTheLimitIsRefusedBeforeTranscoding() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.audio = .voice  // a voice message or nothing
        let item = preparer.prepare(path: Fixture.path("voice-long.ogg"))
        #expect(item.error?.code == .voiceTooLong)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}

import CFFmpeg

/// H.264 in Matroska: moved into an MP4 that iPhones open, not re-encoded.
@Suite struct RemuxTests {
    /// Every video packet's bytes, in decode order.
    func videoPackets(_ path: String) throws -> [[UInt8]] {
        let input = try MediaInput(path: path)
        let video = try #require(input.bestStream(AVMEDIA_TYPE_VIDEO)).pointee.index
        let media = input.ff.media
        var pkt = media.av_packet_alloc()
        defer { media.av_packet_free(&pkt) }
        let p = try #require(pkt)
        var out: [[UInt8]] = []
        while media.av_read_frame(input.context, p) >= 0 {
            if p.pointee.stream_index == video, let data = p.pointee.data {
                out.append(Array(UnsafeBufferPointer(start: data, count: Int(p.pointee.size))))
            }
            media.av_packet_unref(p)
        }
        return out
    }

    @Test func h264InMatroskaIsRemuxedNotReencoded() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("h264.mkv"))
        #expect(item.error == nil && item.kind == .video && item.route == .remuxed && item.format == .mp4)
        let out = try #require(item.output)
        #expect(out.hasSuffix(".mp4"))
        let p = try MediaProbe.probe(path: out)
        #expect(p.format == .mp4 && p.videoCodec == "h264" && p.audioCodec == "aac")
        #expect(item.durationSeconds == 3 && item.bytes == p.bytes)
        let before = try videoPackets(Fixture.path("h264.mkv")), after = try videoPackets(out)
        #expect(before.count == 75 && before == after)
    }

    @Test func playableVideosGoAsTheyAre() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["h264.mp4", "hevc.mp4"] {
            let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
            #expect(item.route == .stripped, "\(name)")  // its streams as they are, its encoder tag gone
            #expect(try Packets.all(item.output ?? "") == Packets.all(Fixture.path(name)), "\(name)")
        }
        #expect(VideoCompatibility.of(try MediaProbe.probe(path: Fixture.path("h264.mkv"))) == .remux)
        #expect(VideoCompatibility.of(try MediaProbe.probe(path: Fixture.path("vp9.webm"))) == .needsTranscode)
        #expect(VideoCompatibility.of(try MediaProbe.probe(path: Fixture.path("hevc.mp4"))) == .playable)
    }
}

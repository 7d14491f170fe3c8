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
        #expect(item.route == .original)
        let out = try #require(item.output)
        #expect(FileManager.default.contents(atPath: out) == FileManager.default.contents(atPath: Fixture.path("voice.m4a")))
    }

    @Test func overTheLimitIsRefusedBeforeTranscoding() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("voice-long.ogg"))
        #expect(item.error?.code == .voiceTooLong)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    }
}

import CFFmpeg

import Foundation
import Testing
@testable import MediaPrep

/// AIFF and CAF (Macs, iOS apps): sniffed (both were unknown files, an AIFF's author and an iTunes
/// ID3 tag, a CAF's artist going along) and sent as a file without their tags, samples byte for byte;
/// as a voice note, transcoded like any other recording. Both built here: half a second of 8 kHz mono.
@Suite struct AppleAudioTests {
    static let samples: [UInt8] = (0..<4_000).flatMap { i -> [UInt8] in
        let v = Int16(8_000 * sin(Double(i) * 2 * .pi * 440 / 8_000))
        return [UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v)]
    }

    static func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
        Array(id.utf8) + Bytes.be32(body.count) + body + (body.count % 2 == 1 ? [0] : [])
    }

    /// COMM (1 channel, 4,000 frames, 16 bits, 8,000 Hz as an 80-bit float), NAME, AUTH, SSND.
    static var aiff: [UInt8] {
        let comm: [UInt8] = [0, 1] + Bytes.be32(4_000) + [0, 16, 0x40, 0x0B, 0xFA, 0, 0, 0, 0, 0, 0, 0]
        let body = Array("AIFF".utf8) + chunk("COMM", comm) + chunk("NAME", Array("Jane Sender's memo".utf8))
            + chunk("AUTH", Array("Jane Sender".utf8)) + chunk("SSND", [UInt8](repeating: 0, count: 8) + samples)
        return Array("FORM".utf8) + Bytes.be32(body.count) + body
    }

    /// desc (8,000 Hz linear PCM, 16-bit big-endian mono), info naming the artist, data to the end.
    static var caf: [UInt8] {
        func chunk(_ id: String, _ body: [UInt8], size: Int? = nil) -> [UInt8] { Array(id.utf8) + Bytes.be64(size ?? body.count) + body }
        let desc = Bytes.be64(Int(Double(8_000).bitPattern)) + Array("lpcm".utf8) + Bytes.be32(0) + Bytes.be32(2) + Bytes.be32(1)
            + Bytes.be32(1) + Bytes.be32(16)
        let info = Bytes.be32(2) + Array("artist\0Jane Sender\0recorded date\02026-06-01 10:00\0".utf8)
        return Array("caff".utf8) + [0, 1, 0, 0] + chunk("desc", desc) + chunk("info", info) + chunk("data", Bytes.be32(0) + samples, size: -1)
    }

    @Test(arguments: [("memo.aiff", MediaFormat.aiff), ("memo.caf", .caf)])
    func sentAsAFileWithoutItsTags(_ name: String, _ format: MediaFormat) throws {
        let bytes = format == .aiff ? Self.aiff : Self.caf
        #expect(FormatSniffer.sniff(bytes) == format)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.media.audio = .file
        let item = preparer.prepare(path: dir + "/" + name)
        let out = try FileBytes.read(try #require(item.output, "\(String(describing: item.error))"))
        #expect(item.kind == .file && item.route == .stripped && out.count == bytes.count)
        #expect(!out.contains(sequence: Array("Jane Sender".utf8)) && !out.contains(sequence: Array("2026-06-01".utf8)))
        #expect(out.suffix(Self.samples.count) == bytes.suffix(Self.samples.count))  // the samples byte for byte
        let sent = try MediaProbe.probe(path: try #require(item.output))
        #expect(abs((sent.durationSeconds ?? 0) - 0.5) < 0.01, "\(sent.durationSeconds ?? 0) s")

        // Kept as a voice note, it is transcoded, as every recording that is not AAC in M4A is.
        var note = AttachmentPreparer(outputDirectory: dir + "/voice", timestamp: 0)
        note.media.audio = .voice
        let made = note.prepare(path: dir + "/" + name)
        #expect(made.kind == .voice && made.format == .m4a && made.route == .encoded, "\(String(describing: made.error))")
    }

    /// A damaged chunk is refused, not sent half-stripped.
    @Test func aCutTagIsRefused() throws {
        let cut = Array(Self.aiff.prefix(60))  // inside NAME
        #expect(throws: MediaPrepError.self) { try AppleAudioStripper.aiff(ByteReader(cut)) }
    }
}

/// WavPack, Monkey's Audio and TTA (lossless music) and raw AC-3 (not E-AC-3): sniffed (all were unknown files, a
/// WavPack's APEv2 tag naming the artist going along), their tags cut as an MP3's are.
@Suite struct LosslessAudioTests {
    @Test func sniffedByTheirOwnMagic() {
        let frame: [UInt8] = [0x0B, 0x77, 0x3F, 0x2A, 0x10, 0x40, 0xE1, 0x0F]
        #expect(FormatSniffer.sniff(Array("wvpk".utf8) + [UInt8](repeating: 0, count: 28)) == .wavpack)
        #expect(FormatSniffer.sniff(Array("MAC ".utf8) + [0x96, 0x0F, 0, 0]) == .ape)
        #expect(FormatSniffer.sniff(Array("TTA1".utf8) + [1, 0, 1, 0]) == .tta)
        #expect(FormatSniffer.sniff(frame) == .ac3)
        // The two sync bytes alone are no proof: a sample rate code of 3 does not exist, and text after
        // them reads as no AC-3 header.
        #expect(FormatSniffer.sniff([0x0B, 0x77, 0, 0, 0xC0, 0x40, 0, 0]) == .unknown)
        #expect(FormatSniffer.sniff([0x0B, 0x77] + Array("hello, world".utf8)) == .unknown)
    }

    @Test func aTaggedWavPackLeavesWithoutItsTag() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.audio = .file
        let item = preparer.prepare(path: Fixture.path("tagged.wv"))
        let out = try FileBytes.read(try #require(item.output, "\(String(describing: item.error))"))
        #expect(item.kind == .file && item.route == .stripped && item.format == .wavpack)
        #expect(!out.contains(sequence: Array("Jane Sender".utf8)) && !out.contains(sequence: Array("APETAGEX".utf8)))
        let source = try FileBytes.read(Fixture.path("tagged.wv"))
        #expect(Array(source.prefix(out.count)) == out)  // the blocks byte for byte, the tag after them cut
        #expect(abs((try MediaProbe.probe(path: try #require(item.output)).durationSeconds ?? 0) - 0.25) < 0.01)
    }
}

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
    /// Monkey's Audio's and TTA's headers as far as the sniffer reads them.
    static let ape: [UInt8] = Array("MAC ".utf8) + [0x96, 0x0F, 0, 0]
    static let tta: [UInt8] = Array("TTA1".utf8) + [1, 0, 1, 0]

    @Test func sniffedByTheirOwnMagic() {
        let frame: [UInt8] = [0x0B, 0x77, 0x3F, 0x2A, 0x10, 0x40, 0xE1, 0x0F]
        #expect(FormatSniffer.sniff(Array("wvpk".utf8) + [UInt8](repeating: 0, count: 28)) == .wavpack)
        #expect(FormatSniffer.sniff(Self.ape) == .ape)
        #expect(FormatSniffer.sniff(Self.tta) == .tta)
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

/// Films' sound as a bare stream (E-AC-3, DTS, TrueHD) was an unknown file sent as it came: told now,
/// and made a voice note as AC-3 is. A bare stream has no length of its own, so a cut one is told by
/// its last frame, which its header says runs past the file's end (it went as a shorter voice note).
@Suite struct FilmSoundTests {
    /// `count` frames of `size` bytes whose headers are `header`, the rest of each zero.
    static func stream(_ header: [UInt8], size: Int, count: Int) -> [UInt8] {
        (0..<count).flatMap { _ in header + [UInt8](repeating: 0, count: size - header.count) }
    }
    static let ac3: [UInt8] = [0x0B, 0x77, 0, 0, 0x00, 0x40]      // 48 kHz, 32 kbit/s: 128 bytes
    static let eac3: [UInt8] = [0x0B, 0x77, 0x00, 63, 0x24, 0x80]  // frmsiz 63: 128 bytes; bsid 16
    static let dts: [UInt8] = [0x7F, 0xFE, 0x80, 0x01, 0xFC, 0x3C, 0x07, 0xF0]  // FSIZE 127: 128 bytes
    static let dtsLittle: [UInt8] = [0xFE, 0x7F, 0x01, 0x80, 0x3C, 0xFC, 0xF0, 0x07]
    /// A TrueHD major sync (F8 72 6F BA after the access unit's first four bytes).
    static let truehd: [UInt8] = [0, 0, 0, 0, 0xF8, 0x72, 0x6F, 0xBA] + [UInt8](repeating: 0, count: 32)

    @Test func toldByTheirFrames() {
        #expect(FormatSniffer.sniff(Self.stream(Self.eac3, size: 128, count: 2)) == .eac3)
        #expect(FormatSniffer.sniff(Self.stream(Self.dts, size: 128, count: 2)) == .dts)
        #expect(FormatSniffer.sniff(Self.stream(Self.dtsLittle, size: 128, count: 2)) == .dts)
        #expect(FormatSniffer.sniff(Self.truehd) == .truehd)
        // E-AC-3's bsid reads as text: with no second frame where the first one ends it is none.
        #expect(FormatSniffer.sniff(Self.eac3 + Array(String(repeating: "lowercase text ", count: 12).utf8)) == .unknown)
        #expect(FormatSniffer.sniff([0x7F, 0xFE, 0x80, 0x01, 0, 0, 0, 0]) == .unknown)  // a 1-byte DTS frame does not exist
        #expect(MediaFormat.eac3.isAudioVisual && MediaFormat.dts.isAudioVisual && MediaFormat.truehd.isAudioVisual)
        // AC-3's frame sizes (A/52 table 5.18) at each rate: 640 kbit/s is 1,280, 1,393/1,394 and 1,920 words.
        #expect(FormatSniffer.ac3FrameLength([0x0B, 0x77, 0, 0, 0x24, 0x40], 0) == 2560)
        #expect(FormatSniffer.ac3FrameLength([0x0B, 0x77, 0, 0, 0x64, 0x40], 0) == 2786)
        #expect(FormatSniffer.ac3FrameLength([0x0B, 0x77, 0, 0, 0x65, 0x40], 0) == 2788)
        #expect(FormatSniffer.ac3FrameLength([0x0B, 0x77, 0, 0, 0xA5, 0x40], 0) == 3840)
    }

    @Test(arguments: [MediaFormat.ac3, .eac3, .dts]) func aStreamCutInsideItsLastFrameIsRefused(format: MediaFormat) throws {
        let header = format == .ac3 ? Self.ac3 : format == .eac3 ? Self.eac3 : Self.dts
        let whole = Self.stream(header, size: 128, count: 5)
        #expect(FormatSniffer.sniff(whole) == format)
        try ContainerEnd.frameStream(ByteReader(whole), format: format)
        try ContainerEnd.frameStream(ByteReader(Array(whole.prefix(384))), format: format)  // between frames: whole as far as can be known
        try ContainerEnd.frameStream(ByteReader(whole + Array("padding".utf8)), format: format)  // no frame there: not judged
        #expect(throws: MediaPrepError.self) { try ContainerEnd.frameStream(ByteReader(Array(whole.prefix(600))), format: format) }
        #expect(throws: MediaPrepError.self) { try ContainerEnd.frameStream(ByteReader(Array(whole.prefix(515))), format: format) }

        // Refused before any decode, by `check` and `prepare` alike, and nothing written. (FFmpeg finds
        // no stream in these zeroed DTS frames, and refuses them first; a real cut DTS is told as above.)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/track.\(format.rawValue)"
        try Data(whole.prefix(600)).write(to: URL(fileURLWithPath: path))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.output == nil && item.error != nil && (format == .dts || item.error?.code == .truncated), "\(String(describing: item.error))")
        #expect(SendCheck().check(path: path).verdict == .cannotSend)
    }
}

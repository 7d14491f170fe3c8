import Testing
@testable import MediaPrep

@Suite struct SniffTests {
    /// Two bare ADTS frames of 20 bytes, the second where the first's header says it ends.
    static let adts: [UInt8] = {
        let header: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x9F, 0xFC]
        return header + [UInt8](repeating: 0, count: 13) + header
    }()

    @Test(arguments: [
        ("photo.jpg", MediaFormat.jpeg), ("progressive.jpg", .jpeg), ("rgb.png", .png), ("anim.gif", .gif),
        ("image.webp", .webp), ("image.bmp", .bmp), ("image.tiff", .tiff), ("quadrants.jp2", .jp2),
    ])
    func sniffsFixtureByContent(name: String, expected: MediaFormat) throws {
        #expect(FormatSniffer.sniff(try Fixture.bytes(name)) == expected)
    }

    @Test func lyingExtensionIsIgnored() throws {
        // A PNG's bytes under a .jpg name are still a PNG and decode as one.
        let dir = try Fixture.scratch()
        let fake = dir + "/really-a-png.jpg"
        try Fixture.bytes("rgb.png").withUnsafeBufferPointer { _ = try? Data($0).write(to: URL(fileURLWithPath: fake)) }
        let d = try ImageLoader.load(path: fake)
        #expect(d.format == .png)
        Quadrants.check(d.pixels, tolerance: 0)
    }

    @Test func containerSignatures() {
        func bytes(_ s: String, at offset: Int = 0) -> [UInt8] { [UInt8](repeating: 0, count: offset) + Array(s.utf8) }
        #expect(FormatSniffer.sniff([0, 0, 0, 0x18] + Array("ftypqt  ".utf8)) == .mov)
        #expect(FormatSniffer.sniff([0, 0, 0, 0x18] + Array("ftypisom".utf8)) == .mp4)
        #expect(FormatSniffer.sniff([0, 0, 0, 0x18] + Array("ftypM4A ".utf8)) == .m4a)
        #expect(FormatSniffer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x84] + Array("webm".utf8)) == .webm)
        #expect(FormatSniffer.sniff([0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x82, 0x88] + Array("matroska".utf8)) == .matroska)
        #expect(FormatSniffer.sniff(bytes("OggS")) == .ogg)
        #expect(FormatSniffer.sniff(bytes("ID3") + [4, 0, 0, 0, 0, 0, 0, 0]) == .mp3)  // ID3v2.4
        // Bare frames: the second where the first's header says it ends (MPEG-1 Layer III at 128 kbit/s
        // and 44.1 kHz: 417 bytes; ADTS: the length its header gives, 20).
        let mp3: [UInt8] = [0xFF, 0xFB, 0x90, 0x00]
        #expect(FormatSniffer.sniff(mp3 + [UInt8](repeating: 0, count: 413) + mp3) == .mp3)
        #expect(FormatSniffer.sniff(Self.adts) == .aac)
        // A frame sync alone proves nothing: a UTF-16 text file's FF FE reads as MPEG-1 Layer I.
        #expect(FormatSniffer.sniff(mp3 + [UInt8](repeating: 0, count: 500)) == .unknown)
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("Hello, world\r\n".utf8).flatMap { [$0, 0] as [UInt8] }
        #expect(FormatSniffer.sniff(utf16 + utf16.dropFirst(2) + utf16.dropFirst(2)) == .unknown)
        #expect(FormatSniffer.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == .wav)
    }

    @Test func unknownBytesAreAPlainFile() {
        #expect(FormatSniffer.sniff(Array("hello, world: just text".utf8)) == .unknown)
        #expect(FormatSniffer.sniff([UInt8]()) == .unknown)
        #expect(FormatSniffer.sniff([0xFF]) == .unknown)
    }
}

import Foundation

/// A UTF-16 text file (Windows Notepad's "Unicode", a .reg or .csv export) starts FF FE, which a
/// two-byte frame-sync test took for MP3: FFmpeg then refused it and the file was refused as corrupt.
@Suite struct TextIsNotAudioTests {
    /// Text may begin with a format's letters: "BMW is…" was refused as a damaged bitmap. What follows
    /// the letters must be the format's too.
    @Test(arguments: ["BMW is a car maker from Munich; these are my notes on its engines.",
                      "MAC address list for the office network: 00:11:22:33:44:55",
                      "ID3 tags explained: title, artist, album and the rest of them",
                      "TTA1 was the first true-audio version; notes follow here"])
    func textStartingWithAFormatsLettersIsText(_ text: String) {
        #expect(FormatSniffer.sniff(Array(text.utf8)) == .unknown)
    }

    /// The bitmap headers that exist still sniff: OS/2's 12-byte core header and Windows' 40-byte one.
    @Test func bitmapHeadersStillSniff() {
        func bmp(dib: Int, planesAt: Int) -> [UInt8] {
            var b = Array("BM".utf8) + [UInt8](repeating: 0, count: 40)
            b[14] = UInt8(dib)
            b[planesAt] = 1
            return b
        }
        #expect(FormatSniffer.sniff(bmp(dib: 12, planesAt: 22)) == .bmp)
        #expect(FormatSniffer.sniff(bmp(dib: 40, planesAt: 26)) == .bmp)
        #expect(FormatSniffer.sniff(bmp(dib: 41, planesAt: 26)) == .unknown)
    }

    @Test func aUTF16TextFileGoesAsAFile() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text: [UInt8] = [0xFF, 0xFE] + Array(String(repeating: "Hello, world\r\n", count: 100).utf8).flatMap { [$0, 0] as [UInt8] }
        try Data(text).write(to: URL(fileURLWithPath: dir + "/notes.txt"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/notes.txt")
        #expect(item.kind == .file && item.error == nil && item.format == .unknown, "\(String(describing: item.error))")
        #expect(try FileBytes.read(try #require(item.output)) == text)
    }
}

/// JPEG 2000 (scanners, macOS's Preview) was an unknown file, whatever its boxes held: now an image,
/// decoded through FFmpeg and re-encoded as any picture is.
@Suite struct JPEG2000Tests {
    @Test func aJP2IsDecodedAndSentAsAnImage() throws {
        Quadrants.check(try ImageLoader.load(path: Fixture.path("quadrants.jp2")).pixels, tolerance: 2)
        #expect(FormatSniffer.sniff([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F]) == .jp2)  // a bare codestream
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("quadrants.jp2"))
        #expect(item.kind == .image && item.format == .jpeg && item.width == 64 && item.height == 48, "\(String(describing: item.error))")
    }

    /// The fixture with its `colr` box (method 1, sRGB) replaced by one holding a Display P3 profile,
    /// the header box's size made right: as macOS Preview writes a P3 picture.
    static func taggedP3() throws -> [UInt8] {
        let d = try Fixture.bytes("quadrants.jp2")
        let icc = try #require(MediaProbe.source(path: Fixture.path("p3-small.jpg")).jpeg?.iccProfile)
        let top = try #require(PictureBoxes.children(d, 0..<d.count, topLevel: true)).boxes
        let header = try #require(top.first { $0.type == "jp2h" })
        let inner = try #require(PictureBoxes.children(d, header.body, topLevel: false)).boxes
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { bigEndian(8 + body.count) + Array(type.utf8) + body }
        func bigEndian(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * (3 - $0))) } }
        var body: [UInt8] = []
        for b in inner { body += b.type == "colr" ? box("colr", [2, 0, 0] + icc) : Array(d[b.start..<b.body.upperBound]) }
        return Array(d[..<header.start]) + box("jp2h", body) + Array(d[header.body.upperBound...])
    }

    @Test func aJP2sOwnProfileIsApplied() throws {
        let tagged = try Self.taggedP3()
        #expect(EmbeddedProfile.fromJP2(try Fixture.bytes("quadrants.jp2")) == nil)  // method 1: sRGB named
        let icc = try #require(EmbeddedProfile.fromJP2(tagged))
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(tagged).write(to: URL(fileURLWithPath: dir + "/p3.jp2"))
        let source = try MediaProbe.source(path: dir + "/p3.jp2")
        let colour = try #require(source.colour)
        #expect(colour.description == "Display P3")
        #expect(SendCheck().check(path: dir + "/p3.jp2").reasons.contains("colours converted from Display P3 to sRGB"))
        // What leaves is the P3 numbers converted, not the numbers themselves.
        let raw = try ImageLoader.load(data: tagged, path: nil).pixels
        let want = try SourceColour.inspect(icc).map { try $0.toSRGB(raw, threads: 1) } ?? raw
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/p3.jp2")
        let sent = try ImageLoader.load(path: try #require(item.output)).pixels
        func rgb(_ p: PixelBuffer, _ x: Int, _ y: Int) -> [Int] {
            let c = p.rgba(x: x, y: y)
            return [Int(c.r), Int(c.g), Int(c.b)]
        }
        func distance(_ a: [Int], _ b: [Int]) -> Int { zip(a, b).map { abs($0 - $1) }.max() ?? 0 }
        // (The fixture's quadrants are primaries and white, which P3 to sRGB clips back to themselves:
        // what this shows is that the profile is found and the conversion runs; ColourTests, its result.)
        for (x, y) in [(16, 12), (48, 12), (16, 36), (48, 36)] {
            let (s, w) = (rgb(sent, x, y), rgb(want, x, y))
            #expect(distance(s, w) <= 6, "\(s) for \(w)")
        }
        #expect(colour.profile == icc)
    }
}

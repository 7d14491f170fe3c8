import Testing
@testable import MediaPrep

@Suite struct SniffTests {
    @Test(arguments: [
        ("photo.jpg", MediaFormat.jpeg), ("progressive.jpg", .jpeg), ("rgb.png", .png), ("anim.gif", .gif),
        ("image.webp", .webp), ("image.bmp", .bmp), ("image.tiff", .tiff),
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
        #expect(FormatSniffer.sniff(bytes("ID3")) == .mp3)
        #expect(FormatSniffer.sniff([0xFF, 0xFB, 0x90, 0x00]) == .mp3)
        #expect(FormatSniffer.sniff([0xFF, 0xF1, 0x50, 0x80]) == .aac)
        #expect(FormatSniffer.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == .wav)
    }

    @Test func unknownBytesAreAPlainFile() {
        #expect(FormatSniffer.sniff(Array("hello, world: just text".utf8)) == .unknown)
        #expect(FormatSniffer.sniff([UInt8]()) == .unknown)
        #expect(FormatSniffer.sniff([0xFF]) == .unknown)
    }
}

import Foundation

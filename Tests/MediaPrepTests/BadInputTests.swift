import Foundation
import Testing
@testable import MediaPrep

@Suite struct BadInputTests {
    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let p = try Fixture.scratch() + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    func code(_ body: () throws -> Void) -> MediaPrepError.Code? {
        do { try body(); return nil } catch let e as MediaPrepError { return e.code } catch { return nil }
    }

    @Test func emptyFile() throws {
        let p = try write([], "empty.jpg")
        #expect(code { _ = try ImageLoader.load(path: p) } == .emptyInput)
        #expect(code { _ = try JPEGDecoder.decode([]) } == .emptyInput)
        #expect(code { _ = try PNGDecoder.decode([]) } == .emptyInput)
    }

    @Test func missingFile() {
        #expect(code { _ = try ImageLoader.load(path: "/nonexistent/x.jpg") } == .unreadableFile)
        #expect(code { _ = try MediaProbe.probe(path: "/nonexistent/x.mp4") } == .unreadableFile)
    }

    @Test func directoryIsRefusedNotCopied() throws {
        let out = try Fixture.scratch()
        #expect(code { _ = try MediaProbe.probe(path: Fixture.dir) } == .unreadableFile)
        let item = AttachmentPreparer(outputDirectory: out, timestamp: 0).prepare(path: Fixture.dir)
        #expect(item.error?.code == .unreadableFile)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    @Test func truncatedJPEG() throws {
        let data = try Fixture.bytes("photo.jpg")
        #expect(code { _ = try JPEGDecoder.decode(Array(data.prefix(data.count / 2))) } == .truncated)
        #expect(code { _ = try JPEGDecoder.decode(Array(data.prefix(40))) } != nil)
    }

    @Test func truncatedPNG() throws {
        let data = try Fixture.bytes("sticker.png")
        #expect(code { _ = try PNGDecoder.decode(Array(data.prefix(data.count / 2))) } == .truncated)
    }

    @Test func corruptJPEGHeader() throws {
        var data = try Fixture.bytes("progressive.jpg")
        for i in 2..<min(400, data.count) { data[i] = 0x5A }
        let c = code { _ = try JPEGDecoder.decode(data) }
        #expect(c == .corrupt || c == .truncated)
    }

    @Test func corruptPNGChecksum() throws {
        var data = try Fixture.bytes("rgb.png")
        data[20] ^= 0xFF  // inside IHDR: its CRC no longer matches
        #expect(code { _ = try PNGDecoder.decode(data) } == .corrupt)
    }

    @Test func notAnImage() throws {
        let p = try write(Array("just some text, not a picture".utf8), "notes.png")
        #expect(code { _ = try ImageLoader.load(path: p) } == .unsupportedFormat)
    }

    @Test func hugePNGDimensionsAreRefusedBeforeAllocating() throws {
        // A valid IHDR claiming 100000×100000, then nothing.
        var png = try PNGEncoder.encode(PixelBuffer(width: 1, height: 1, layout: .gray, bytes: [0]))
        png.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        let crc = CRC32.of(Array(png[12..<29]))
        png.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        #expect(code { _ = try PNGDecoder.decode(png) } == .tooManyPixels)
    }

    @Test func hugeJPEGDimensionsAreRefused() throws {
        let data = try Fixture.bytes("small.jpg")  // baseline, 640×480
        let limit = DecodeOptions(maxPixels: 50_000)
        #expect(code { _ = try JPEGDecoder.decode(data, options: limit) } == .tooManyPixels)
        // Shrink-on-load counts for a baseline file: at 1/8 the same file is within the limit.
        let small = DecodeOptions(maxPixels: 50_000, minimumWidth: 80, minimumHeight: 60)
        #expect(try JPEGDecoder.decode(data, options: small).pixels.width == 80)
        // A progressive one holds every full-size coefficient whatever the scale: its full size counts.
        let progressive = DecodeOptions(maxPixels: 50_000, minimumWidth: 50, minimumHeight: 37)
        #expect(code { _ = try JPEGDecoder.decode(try Fixture.bytes("progressive.jpg"), options: progressive) } == .tooManyPixels)
    }

    @Test func truncatedGIF() throws {
        let data = try Fixture.bytes("still.gif")
        let p = try write(Array(data.prefix(30)), "cut.gif")
        #expect(code { _ = try ImageLoader.load(path: p) } != nil)
    }
}

/// Plain CRC-32 (PNG's), for crafting test chunks.
enum CRC32 {
    static func of(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}

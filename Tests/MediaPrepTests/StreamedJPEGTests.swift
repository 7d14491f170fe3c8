import Foundation
import Testing
@testable import MediaPrep

/// A baseline JPEG over the sent-pixel cap is never read whole by `prepare`: the probe keeps its head
/// and libjpeg reads the rest from the file (the shim's file source). What leaves must be what
/// reading it whole gives, byte for byte, and damage must be found the same way.
@Suite struct StreamedJPEGTests {
    /// 4200×4100 (17.2 MP, over 4096²) of gradients and a noisy band every 64 rows, so the file
    /// outgrows the probe's 256 KiB head; `keepFraction` cuts it short.
    static func write(keepFraction: Double = 1) throws -> String {
        let (w, h) = (4200, 4100)
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        var seed: UInt32 = 7
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 3
                if y % 64 < 4 { seed = seed &* 1_664_525 &+ 1_013_904_223 }
                rgb[i] = y % 64 < 4 ? UInt8(truncatingIfNeeded: seed >> 24) : UInt8((x / 17) & 255)
                rgb[i + 1] = UInt8((y / 17) & 255)
                rgb[i + 2] = UInt8(((x + y) / 33) & 255)
            }
        }
        let jpeg = try JPEGEncoder().encode(try PixelBuffer(width: w, height: h, layout: .rgb, bytes: rgb), quality: 75)
        let path = try Fixture.scratch() + "/large.jpg"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(jpeg.prefix(Int(Double(jpeg.count) * keepFraction)))))
        return path
    }

    @Test func whatLeavesIsWhatReadingItWholeGives() throws {
        let path = try Self.write()
        let streamed = try MediaProbe.source(path: path, depth: .preparing)
        #expect(!streamed.isWhole && (streamed.data?.count ?? 0) <= 262_144 && streamed.probe.bytes > 262_144)
        let whole = try MediaProbe.source(path: path, depth: .whole)
        #expect(whole.isWhole)
        let a = try ImagePreparer().prepare(source: streamed), b = try ImagePreparer().prepare(source: whole)
        #expect(a.data == b.data && a.preview == b.preview)
    }

    /// The file source on its own: any head (even one ending inside a segment libjpeg skips, so the
    /// skip crosses into the file), the same pixels as the bytes in memory, at any DCT scale.
    @Test(arguments: [20, 700, 5_000, 100_000])
    func theFileSourceGivesTheBytesPixels(head: Int) throws {
        let path = Fixture.path("photo.jpg")
        let bytes = try Fixture.bytes("photo.jpg")
        let parsed = try JPEGSource(bytes)
        for scale in [(0, 0), (700, 500), (360, 270)] {
            let options = DecodeOptions(minimumWidth: scale.0, minimumHeight: scale.1)
            let inMemory = try JPEGDecoder.decode(bytes, parsed: parsed, options: options)
            let fromFile = try JPEGDecoder.decode(Array(bytes.prefix(head)), file: try InputFile(path), parsed: parsed, options: options)
            #expect(fromFile.pixels.bytes == inMemory.pixels.bytes && fromFile.pixels.width == inMemory.pixels.width)
        }
    }

    @Test func aStreamedJPEGCutShortIsRefusedAsReadingItWholeIs() throws {
        let path = try Self.write(keepFraction: 0.6)
        var codes: [String] = []
        for depth in [ProbeDepth.preparing, .whole] {
            do {
                _ = try ImagePreparer().prepare(source: try MediaProbe.source(path: path, depth: depth))
                Issue.record("a cut file was prepared (\(depth))")
            } catch let e as MediaPrepError {
                codes.append(e.code.rawValue)
            }
        }
        #expect(codes.count == 2 && codes[0] == codes[1], "\(codes)")
    }
}

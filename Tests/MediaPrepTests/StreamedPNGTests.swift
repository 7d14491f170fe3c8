import CPng
import Foundation
import Testing
@testable import MediaPrep

/// A PNG over the sent-pixel cap is never read whole by `prepare`: the probe keeps its head and the
/// decoder reads its rows from the file as it shrinks them. What leaves must be what reading it
/// whole gives, byte for byte, and damage must be found the same way.
@Suite struct StreamedPNGTests {
    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        let crc = typed.withUnsafeBufferPointer { UInt(PNGLibrary.zlib.crc32(0, $0.baseAddress, UInt32($0.count))) }
        return Bytes.be32(body.count) + typed + Bytes.be32(Int(crc))
    }

    /// 4200×4100 gray (17.2 MP, over 4096²) of diagonal stripes and noise, written chunk by chunk: a gAMA chunk
    /// of linear light when asked (then the row reader declines and libpng's simplified API decodes it).
    static func write(linearGamma: Bool = false, keepFraction: Double = 1) throws -> String {
        let (w, h) = (4200, 4100)
        var raw = [UInt8](repeating: 0, count: (w + 1) * h)
        raw.withUnsafeMutableBufferPointer { p in
            var seed: UInt32 = 1
            for y in 0..<h {
                for x in 0..<w {
                    // every 8th row noise, so the file outgrows the probe's 256 KiB head
                    if y % 8 == 0 { seed = seed &* 1_664_525 &+ 1_013_904_223 }
                    p[y * (w + 1) + 1 + x] = y % 8 == 0 ? UInt8(truncatingIfNeeded: seed >> 24) : UInt8((x + 3 * y) / 7 & 255)
                }
            }
        }
        var packed = [UInt8](repeating: 0, count: Int(PNGLibrary.zlib.compressBound(UInt(raw.count))))
        var size = UInt(packed.count)
        let rc = packed.withUnsafeMutableBufferPointer { d in raw.withUnsafeBufferPointer { s in PNGLibrary.zlib.compress2(d.baseAddress, &size, s.baseAddress, UInt(s.count), 6) } }
        #expect(rc == Z_OK)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", Bytes.be32(w) + Bytes.be32(h) + [8, 0, 0, 0, 0])
        if linearGamma { png += chunk("gAMA", Bytes.be32(100_000)) }
        png += chunk("IDAT", Array(packed.prefix(Int(size))))
        png += chunk("IEND", [])
        let path = try Fixture.scratch() + "/large.png"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(png.prefix(Int(Double(png.count) * keepFraction)))))
        return path
    }

    @Test(arguments: [false, true])
    func whatLeavesIsWhatReadingItWholeGives(linearGamma: Bool) throws {
        let path = try Self.write(linearGamma: linearGamma)
        let streamed = try MediaProbe.source(path: path, depth: .preparing)
        #expect(!streamed.isWhole && (streamed.data?.count ?? 0) <= 262_144)
        let whole = try MediaProbe.source(path: path, depth: .whole)
        #expect(whole.isWhole)
        let a = try ImagePreparer().prepare(source: streamed), b = try ImagePreparer().prepare(source: whole)
        #expect(a.data == b.data && a.width * a.height <= ImageProfile.simplex.maxSentPixels)
        #expect((a.width, a.height) == (2100, 2050) || max(a.width, a.height) < 2100)  // halved once, at most
    }

    @Test func aStreamedPNGCutShortIsTruncated() throws {
        let path = try Self.write(keepFraction: 0.6)
        for depth in [ProbeDepth.preparing, .whole] {
            do {
                _ = try ImagePreparer().prepare(source: try MediaProbe.source(path: path, depth: depth))
                Issue.record("a cut PNG was prepared")
            } catch let e as MediaPrepError {
                #expect(e.code == .truncated, "\(e)")
            }
        }
        let item = AttachmentPreparer(outputDirectory: try Fixture.scratch(), timestamp: 0).prepare(path: path)
        #expect(item.error?.code == .truncated && item.output == nil)
    }
}

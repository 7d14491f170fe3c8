import Foundation
import Testing
@testable import MediaPrep
import TestSupport

/// A PNG inflated at once by libdeflate and read back by libpng as stored blocks gives libpng's own
/// pixels, and a damaged one is decoded (and reported) the usual way.
@Suite struct PNGInflateTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case pixels([UInt8]), declined, failed(MediaPrepError.Code?)
        var description: String {
            switch self {
            case .pixels(let p): return "\(p.count) bytes of pixels"
            case .declined: return "declined"
            case .failed(let c): return "failed: \(c.map { "\($0)" } ?? "?")"
            }
        }
    }

    /// The pixels read through the row reader, or why not.
    static func rows(_ data: [UInt8], inflateFirst: Bool) -> Outcome {
        do {
            let out = try PNGRowReader.with(data, inflateFirst: inflateFirst) { r -> [UInt8] in
                var band = [UInt8](repeating: 0, count: r.width * r.channels * r.height)
                try band.withUnsafeMutableBufferPointer { b in
                    guard let base = b.baseAddress else { return }
                    try r.read(r.height, intoBand: base)
                }
                try r.finish()
                return band
            }
            return out.map { .pixels($0) } ?? .declined
        } catch {
            return .failed((error as? MediaPrepError)?.code)
        }
    }

    static func pngs() throws -> [[UInt8]] {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080: 4.7 MB of rows
        let n = photo.pixelCount
        let rgba = [UInt8](unsafeUninitializedCapacity: n * 4) { d, count in
            photo.bytes.withUnsafeBufferPointer { s in
                for i in 0..<n { d[4 * i] = s[3 * i]; d[4 * i + 1] = s[3 * i + 1]; d[4 * i + 2] = s[3 * i + 2]; d[4 * i + 3] = UInt8(truncatingIfNeeded: i) }
            }
            count = n * 4
        }
        let withAlpha = PixelBuffer(width: photo.width, height: photo.height, layout: .rgba, storage: rgba)
        let indices = photo.bytes.enumerated().filter { $0.offset % 3 == 0 }.map { $0.element }  // 8-bit indices
        var palette: [UInt8] = []
        for k in 0..<256 { palette += [UInt8(k), UInt8(255 - k), 128] }
        return [try PNGEncoder.encode(photo), try PNGEncoder.encode(withAlpha), try PNGEncoder.encode(photo.grayscale()),
                try PNGEncoder.encodeIndexed(indices, width: photo.width, height: photo.height, palette: palette)]
    }

    @Test func libdeflateGivesLibpngsPixels() throws {
        for png in try Self.pngs() {
            #expect(PNGInflate(png, maxBytes: PNGRowReader.maxInflatedBytes) != nil)
            let usual = Self.rows(png, inflateFirst: false)
            guard case .pixels = usual else { Issue.record("\(usual)"); continue }
            let same = Self.rows(png, inflateFirst: true) == usual  // a Bool: pixels would print megabytes
            #expect(same)
        }
    }

    @Test func aDamagedFileIsDecodedTheUsualWay() throws {
        let png = try #require(try Self.pngs().first)
        let idat = try #require(PNGChunks.chunks(png).first { $0.type == "IDAT" })
        var flipped = png  // a byte of image data changed: its chunk's CRC no longer matches
        flipped[idat.body.lowerBound + 100] ^= 0x55
        var recrc = flipped  // the same, with the CRC made right again: the deflate stream itself is damaged
        let crc = Self.crc32(Array(recrc[(idat.body.lowerBound - 4)..<idat.body.upperBound]))
        for k in 0..<4 { recrc[idat.body.upperBound + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
        let cut = Array(png.prefix(png.count * 2 / 3)), noEnd = Array(png.dropLast(12))
        for damaged in [flipped, recrc, cut, noEnd] {
            #expect(PNGInflate(damaged, maxBytes: PNGRowReader.maxInflatedBytes) == nil)
            let first = Self.rows(damaged, inflateFirst: true), usual = Self.rows(damaged, inflateFirst: false)
            let same = first == usual
            #expect(same, "\(first) against \(usual)")
        }
    }

    /// A stream zlib stops at (an invalid code) that libdeflate reads through, its checksum still
    /// right (testdata/fuzz/png-2fb9fdd1eb40, CRCs made right): re-encoded from libdeflate's pixels,
    /// but never sent as it is: the PNG kept as it is is proved whole by zlib.
    @Test func aStreamOnlyLibdeflateAcceptsIsNeverSentAsItIs() throws {
        let png = PNGChunks.fixingCRCs(try Fixture.bytes("fuzz/png-2fb9fdd1eb40"))
        #expect(PNGInflate(png, maxBytes: 1 << 20, minimumBytes: 0) != nil)
        guard case .failed(let code) = Self.rows(png, inflateFirst: false) else { Issue.record("zlib took it"); return }
        #expect(code == .corrupt)
        var kept = DecodeOptions()
        kept.sentAsItIs = true
        #expect(throws: MediaPrepError.self) { try PNGDecoder.decode(png, options: kept) }
        let path = try Scratch.folder("lenient") + "/lenient.png"
        try Data(png).write(to: URL(fileURLWithPath: path))
        #expect(throws: MediaPrepError.self) { try ImagePreparer().prepare(path: path) }
    }

    /// PNG's CRC-32 (ISO-HDLC), bit by bit: the test's own, independent of libdeflate's.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}

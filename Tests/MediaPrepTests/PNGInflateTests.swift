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
    static func rows(_ data: [UInt8], inflateFirst: Bool, minimumInflated: Int = PNGInflate.minimumBytes) -> Outcome {
        do {
            let out = try PNGRowReader.with(data, inflateFirst: inflateFirst, minimumInflated: minimumInflated) { r -> [UInt8] in
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

    /// Rows unfiltered by the shim give libpng's own pixels for every filter type at every pixel
    /// size: random filtered rows (any bytes are a valid filtered row), each row's filter 0–4 in
    /// turn, in gray, RGB, palette, gray+alpha and RGBA at 1, 2, 4, 8 and 16 bits (1 to 8 bytes a
    /// pixel), written as stored deflate blocks; and every PNG fixture.
    @Test func unfilteredRowsGiveLibpngsPixels() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt8 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
        var checked = 0
        for (colour, channels, depths) in [(0, 1, [1, 2, 4, 8, 16]), (2, 3, [8, 16]), (3, 1, [1, 2, 4, 8]), (4, 2, [8, 16]), (6, 4, [8, 16])] {
            for depth in depths {
                let (width, height) = (37, 23)
                let rowBytes = (width * channels * depth + 7) / 8
                var raw: [UInt8] = []
                for y in 0..<height {
                    raw.append(UInt8(y % 5))
                    for _ in 0..<rowBytes { raw.append(colour == 3 ? next() % UInt8(1 << min(depth, 4)) : next()) }
                }
                let png = Self.png(width: width, height: height, depth: depth, colour: colour, raw: raw)
                let usual = Self.rows(png, inflateFirst: false)
                guard case .pixels = usual else { Issue.record("colour \(colour) depth \(depth): \(usual)"); continue }
                #expect(Self.rows(png, inflateFirst: true, minimumInflated: 0) == usual, "colour \(colour) depth \(depth)")
                checked += 1
            }
        }
        #expect(checked == 15)
        for name in try FileManager.default.contentsOfDirectory(atPath: Fixture.dir).filter({ $0.hasSuffix(".png") }) {
            let png = try Fixture.bytes(name)
            let first = Self.rows(png, inflateFirst: true, minimumInflated: 0), usual = Self.rows(png, inflateFirst: false)
            let same = first == usual
            #expect(same, "\(name): \(first) against \(usual)")
        }
    }

    /// A PNG of `raw` (filtered rows) in stored deflate blocks, with a 16-colour palette for colour type 3.
    static func png(width: Int, height: Int, depth: Int, colour: Int, raw: [UInt8]) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(body.count) + typed + be32(Int(crc32(typed)))
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var at = 0
        repeat {
            let n = min(65_535, raw.count - at)
            zlib += [at + n == raw.count ? 1 : 0, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)]
            zlib += raw[at..<(at + n)]
            at += n
        } while at < raw.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        zlib += be32(Int(b << 16 | a))
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += chunk("IHDR", be32(width) + be32(height) + [UInt8(depth), UInt8(colour), 0, 0, 0])
        if colour == 3 { out += chunk("PLTE", (0..<48).map { UInt8($0 * 5) }) }
        out += chunk("IDAT", zlib) + chunk("IEND", [])
        return out
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

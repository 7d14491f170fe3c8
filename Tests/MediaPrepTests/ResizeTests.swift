import Testing
@testable import MediaPrep

@Suite struct ResizeTests {
    @Test(arguments: [PixelLayout.gray, .rgb, .rgba])
    func flatColorStaysFlat(layout: PixelLayout) throws {
        let value: [UInt8] = [200, 40, 90, 255]
        var bytes: [UInt8] = []
        for _ in 0..<(300 * 200) { bytes += value.prefix(layout.channels) }
        let src = try PixelBuffer(width: 300, height: 200, layout: layout, bytes: bytes)
        let out = try Resizer.resize(src, width: 97, height: 61)
        #expect(out.width == 97 && out.height == 61 && out.layout == layout)
        let maxError = zip(out.bytes, bytes.prefix(out.bytes.count)).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(maxError <= 1)
    }

    @Test func downscaleKeepsQuadrants() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("rgb.png"))
        let half = try Resizer.resize(d.pixels, width: 32, height: 24)
        let red = half.rgba(x: 4, y: 3), white = half.rgba(x: 28, y: 21)
        #expect(red.r > 250 && red.g < 5 && red.b < 5)
        #expect(white.r > 250 && white.g > 250 && white.b > 250)
    }

    @Test func gradientStaysMonotonic() throws {
        var bytes: [UInt8] = []
        for _ in 0..<64 { for x in 0..<256 { bytes.append(UInt8(x)) } }
        let src = try PixelBuffer(width: 256, height: 64, layout: .gray, bytes: bytes)
        let out = try Resizer.resize(src, width: 100, height: 25)
        let row = Array(out.bytes[(12 * 100)..<(13 * 100)])
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(row.first! < 5 && row.last! > 250)
    }

    @Test func fitNeverUpscales() {
        #expect(Resizer.fit(width: 5120, height: 2880, maxSide: 1600) == (1600, 900))
        #expect(Resizer.fit(width: 100, height: 3000, maxSide: 1600) == (53, 1600))
        #expect(Resizer.fit(width: 800, height: 600, maxSide: 1600) == (800, 600))
        #expect(Resizer.fit(width: 10_000, height: 1, maxSide: 100) == (100, 1))
    }

    @Test func mismatchedPixelBufferIsAnErrorNotACrash() {
        #expect(throws: MediaPrepError.self) { try PixelBuffer(width: 4, height: 4, layout: .rgb, bytes: [1, 2, 3]) }
        #expect(throws: MediaPrepError.self) { try PixelBuffer(width: 0, height: 4, layout: .gray, bytes: []) }
    }

    @Test func zeroSizeIsAnError() throws {
        let src = try PixelBuffer(width: 2, height: 2, layout: .gray, bytes: [0, 0, 0, 0])
        #expect(throws: MediaPrepError.self) { try Resizer.resize(src, width: 0, height: 5) }
    }
}

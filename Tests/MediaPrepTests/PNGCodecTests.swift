import Testing
@testable import MediaPrep

@Suite struct PNGCodecTests {
    @Test(arguments: ["rgb.png", "palette.png", "rgb16.png", "interlaced.png", "rgba-opaque.png"])
    func opaqueKindsDecodeToQuadrants(name: String) throws {
        let d = try PNGDecoder.decode(try Fixture.bytes(name))
        Quadrants.check(d.pixels, tolerance: 1)
        #expect(!AlphaOps.hasRealAlpha(d.pixels))
    }

    /// The row API is used only where it gives what the simplified API gives, byte for byte.
    @Test(arguments: ["rgb.png", "palette.png", "rgba-opaque.png", "rgba.png", "gray.png", "sticker.png", "rgb16.png", "interlaced.png"])
    func rowReaderMatchesTheSimplifiedAPI(name: String) throws {
        let data = try Fixture.bytes(name)
        let rows = try PNGDecoder.decode(data).pixels
        let simplified = try PNGDecoder.decodeSimplified(data, options: DecodeOptions()).pixels
        #expect(rows == simplified)
        let usesRows = try PNGRowReader.with(data) { _ in true } ?? false
        #expect(usesRows == (name != "interlaced.png"))
    }

    /// A 16-bit file without a gamma chunk holds sRGB-encoded samples: scaled to 8 bits, not brightened
    /// as if linear (libpng's simplified API made mid-grey 128 into ~187, and wide-gamut PNGs too light).
    /// The quick look at another zlib level for a palette PNG (LosslessFlat's glance) may only skip a
    /// PNG far over the budget: it must never write more than `glanceMargin` times the palette PNG
    /// the simplified writer makes (here it writes less: libpng's standard writer filters nothing
    /// for a palette), and level 1 never less than the default level.
    @Test func aPaletteGlanceStaysWithinItsMargin() throws {
        let (w, h) = (640, 480)
        var palette: [UInt8] = []
        for c in 0..<64 { palette += [UInt8(c * 4), UInt8(255 - c * 4), 128] }
        for colours in [2, 4, 16, 64] {
            var indices = [UInt8](repeating: 0, count: w * h)
            var state: UInt32 = 7
            for i in 0..<indices.count {
                state = state &* 1_103_515_245 &+ 12_345
                indices[i] = (i / w) % 5 == 0 ? 0 : UInt8(Int(state >> 16) % colours)  // text-like noise, blank rows
            }
            let map = Array(palette.prefix(3 * colours))
            let written = try PNGEncoder.encodeIndexed(indices, width: w, height: h, palette: map).count
            let atDefault = try PNGEncoder.size(indices: indices, width: w, height: h, palette: map, level: 6)
            let glance = try PNGEncoder.size(indices: indices, width: w, height: h, palette: map, level: 1)
            #expect(glance >= atDefault, "\(colours) colours")
            #expect(Double(glance) <= LosslessFlat.glanceMargin * Double(written), "\(colours) colours: \(glance) vs \(written)")
        }
    }

    @Test func sixteenBitWithoutGammaIsNotBrightened() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("ramp16.png")).pixels
        #expect(d.width == 16 && d.height == 256)
        let mid = d.rgba(x: 8, y: 128)
        #expect(abs(Int(mid.r) - 128) <= 2 && mid.r == mid.g && mid.g == mid.b)
    }

    @Test func rowReaderSeesDamageAndTruncation() throws {
        var data = try Fixture.bytes("sticker.png")
        let idat = try #require(PNGChunks.chunks(data).first { $0.type == "IDAT" })
        data[idat.body.lowerBound + 100] ^= 0x55  // the chunk's CRC no longer matches
        #expect(throws: MediaPrepError.self) { try PNGDecoder.decode(data) }
        let cut = Array(try Fixture.bytes("sticker.png").prefix(idat.body.lowerBound + 2000))
        do {
            _ = try PNGDecoder.decode(cut)
            Issue.record("a cut PNG decoded")
        } catch let e as MediaPrepError {
            #expect(e.code == .truncated)
        }
    }

    @Test func grayPNGIsOneChannel() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("gray.png"))
        #expect(d.pixels.layout == .gray)
        // Red's luma is well below lime's, and white stays white.
        let red = d.pixels.rgba(x: 8, y: 6).r, lime = d.pixels.rgba(x: 56, y: 6).r, white = d.pixels.rgba(x: 56, y: 42).r
        #expect(red < lime && white == 255)
    }

    @Test func realTransparencyIsDetected() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("rgba.png"))
        #expect(d.pixels.layout == .rgba)
        #expect(AlphaOps.hasRealAlpha(d.pixels))
        #expect(d.pixels.rgba(x: 8, y: 6).a == 255)
        let a = Int(d.pixels.rgba(x: 56, y: 6).a)
        #expect(abs(a - 64) <= 1)  // 25 % opaque
        // Lime at 25 % over white: (191, 255, 191).
        let flat = AlphaOps.flattenOnWhite(d.pixels).rgba(x: 56, y: 6)
        #expect(abs(Int(flat.r) - 191) <= 1 && flat.g == 255 && abs(Int(flat.b) - 191) <= 1)
    }

    @Test func opaqueAlphaChannelIsDroppable() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("rgba-opaque.png"))
        #expect(d.pixels.layout == .rgba)
        // Relabelled as padding, not copied: the bytes are the same, alpha is ignored from here on.
        let opaque = AlphaOps.droppingOpaqueAlpha(d.pixels)
        #expect(opaque.layout == .rgbx)
        #expect(opaque.bytes == d.pixels.bytes)
        #expect(AlphaOps.flattenOnWhite(opaque).layout == .rgb)
        // Both consumers read it directly: swscale (RGB0 in, RGB out) and TurboJPEG (RGBX).
        let half = try Resizer.resize(opaque, width: 32, height: 24)
        #expect(half.layout == .rgb)
        let red = half.rgba(x: 4, y: 3)
        #expect(red.r > 250 && red.g < 5 && red.b < 5)
        Quadrants.check(try JPEGDecoder.decode(try JPEGEncoder().encode(opaque, quality: 95)).pixels, tolerance: 24)
        // Real transparency is never relabelled.
        let clear = try PNGDecoder.decode(try Fixture.bytes("rgba.png")).pixels
        #expect(AlphaOps.droppingOpaqueAlpha(clear).layout == .rgba)
    }

    @Test func encodeIsLosslessAndClean() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("rgba.png"))
        let png = try PNGEncoder.encode(d.pixels)
        let back = try PNGDecoder.decode(png)
        #expect(back.pixels == d.pixels)
        let types = Set(PNGChunks.chunks(png).map(\.type))
        #expect(types.isDisjoint(with: ["tEXt", "zTXt", "iTXt", "eXIf", "tIME", "iCCP"]))
        #expect(types.contains("IHDR") && types.contains("IDAT") && types.contains("IEND"))
    }

    @Test func pngExifOrientationIsRead() throws {
        // Build a PNG with an eXIf chunk (orientation 8) before IDAT.
        var png = try PNGEncoder.encode(PixelBuffer(width: 3, height: 2, layout: .gray, bytes: [0, 1, 2, 3, 4, 5]))
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0]
        let chunk: [UInt8] = [0, 0, 0, UInt8(tiff.count)] + Array("eXIf".utf8) + tiff + [0, 0, 0, 0]
        png.insert(contentsOf: chunk, at: 8 + 25)  // after the signature and IHDR
        #expect(PNGChunks.exifOrientation(png) == .left)
    }

    /// Alpha is told from the colour type or a tRNS chunk before the image data, never from the
    /// letters "tRNS" turning up in a text chunk or the compressed rows.
    @Test func onlyATransparencyChunkMayGiveAlpha() throws {
        let rgb = try Fixture.bytes("rgb.png")
        #expect(!PNGHeader.mayHaveAlpha(rgb))
        let ihdrEnd = 8 + 8 + 13 + 4
        let tagged = Array(rgb[..<ihdrEnd]) + StreamedPNGTests.chunk("tEXt", Array("Comment\u{0}tRNS".utf8)) + Array(rgb[ihdrEnd...])
        #expect(try PNGDecoder.decode(tagged).pixels.layout == .rgb)
        #expect(!PNGHeader.mayHaveAlpha(tagged))
        let keyed = Array(rgb[..<ihdrEnd]) + StreamedPNGTests.chunk("tRNS", [0, 255, 0, 255, 0, 255]) + Array(rgb[ihdrEnd...])
        #expect(PNGHeader.mayHaveAlpha(keyed))
        #expect(PNGHeader.mayHaveAlpha(try Fixture.bytes("rgba.png")))
        #expect(PNGHeader.mayHaveAlpha(try Fixture.bytes("palette.png")) == PNGChunks.chunks(try Fixture.bytes("palette.png")).contains { $0.type == "tRNS" })
    }
}

@Suite struct FlattenTests {
    @Test func divisionFreeDiv255IsExactOverItsRange() {
        #expect((0...65279).allSatisfy { Int(AlphaOps.div255($0)) == $0 / 255 })
    }

    /// Every pixel, every alpha and background, lengths that leave every tail to the one-by-one loop.
    @Test func flatteningEightAtATimeIsTheFormula() {
        var rng = SystemRandomNumberGenerator()
        for (n, background) in [(1, UInt32(0xFFFFFF)), (9, 0x000000), (10, 0x123456), (17, 0xFF00FF), (600_001, 0x7F80FE)] {
            let bytes = (0..<(n * 4)).map { i in i % 4 == 3 && i % 12 == 3 ? 255 : UInt8.random(in: 0...255, using: &rng) }
            let flat = AlphaOps.flatten(PixelBuffer(width: n, height: 1, layout: .rgba, storage: bytes), onto: background)
            let bg = [Int(background >> 16 & 0xFF), Int(background >> 8 & 0xFF), Int(background & 0xFF)]
            var wrong = 0
            for i in 0..<n {
                let a = Int(bytes[i * 4 + 3])
                for k in 0..<3 where Int(flat.bytes[i * 3 + k]) != (Int(bytes[i * 4 + k]) * a + (255 - a) * bg[k] + 127) / 255 { wrong += 1 }
            }
            #expect(wrong == 0, "\(n) pixels")
        }
    }

    /// Padding dropped eight pixels at a time: every byte where it was, every tail length.
    @Test func droppingPaddingKeepsEveryColour() {
        for n in [1, 9, 10, 11, 17, 1_000_003] {
            var bytes = [UInt8](repeating: 0, count: n * 4)
            for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 5) }
            let rgb = AlphaOps.dropX(PixelBuffer(width: n, height: 1, layout: .rgbx, storage: bytes))
            #expect(rgb.layout == .rgb && rgb.bytes.count == n * 3)
            var wrong = 0
            for i in 0..<n {
                for k in 0..<3 where rgb.bytes[i * 3 + k] != bytes[i * 4 + k] { wrong += 1 }
            }
            #expect(wrong == 0, "\(n) pixels")
        }
    }

    @Test func flatteningMatchesTheFormulaOnEveryPixel() throws {
        let sticker = try PNGDecoder.decode(try Fixture.bytes("sticker.png")).pixels  // 520×520, two halves
        let flat = AlphaOps.flattenOnWhite(sticker)
        let s = sticker.bytes
        for i in stride(from: 0, to: sticker.pixelCount, by: 7) {
            let a = Int(s[i * 4 + 3])
            for k in 0..<3 {
                #expect(Int(flat.bytes[i * 3 + k]) == (Int(s[i * 4 + k]) * a + (255 - a) * 255 + 127) / 255)
            }
        }
    }
}

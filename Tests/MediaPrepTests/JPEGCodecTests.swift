import Testing
@testable import MediaPrep

@Suite struct JPEGCodecTests {
    @Test func photoDecodesAtFullSize() throws {
        let d = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg"))
        #expect(d.pixels.width == 1440 && d.pixels.height == 1080)
        #expect(d.pixels.layout == .rgb)
        #expect(d.orientation == .up)
    }

    @Test func progressiveDecodes() throws {
        let data = try Fixture.bytes("progressive.jpg")
        #expect(JPEGMarkers(data).isProgressive)
        let d = try JPEGDecoder.decode(data)
        #expect(d.pixels.width == 400 && d.pixels.height == 300)
        // Fractal noise is never flat: the decoded image must have real variation.
        #expect(Set(d.pixels.bytes.prefix(3000)).count > 20)
    }

    @Test func shrinkOnLoadPicksTheLargestDCTScale() throws {
        let data = try Fixture.bytes("photo.jpg")
        let half = try JPEGDecoder.decode(data, options: DecodeOptions(minimumWidth: 700, minimumHeight: 500))
        #expect(half.pixels.width == 720 && half.pixels.height == 540)
        let eighth = try JPEGDecoder.decode(data, options: DecodeOptions(minimumWidth: 150, minimumHeight: 100))
        #expect(eighth.pixels.width == 180 && eighth.pixels.height == 135)
        #expect(half.sourceWidth == 1440 && eighth.sourceHeight == 1080)
        // A shrunk decode agrees with a full decode resized by swscale.
        let full = try JPEGDecoder.decode(data)
        let resized = try Resizer.resize(full.pixels, width: 720, height: 540)
        #expect(psnr(resized, half.pixels) > 28)
    }

    @Test func lumaOnlyDecodeMatchesTheMetricsLuma() throws {
        let data = try Fixture.bytes("progressive.jpg")
        let rgb = try JPEGDecoder.decode(data).pixels
        let y = try JPEGDecoder.decode(data, lumaOnly: true).pixels
        #expect(y.layout == .gray && y.width == rgb.width && y.height == rgb.height)
        // Y straight from the file vs Pillow's L from decoded RGB: the same formula, up to rounding.
        let fromRGB = SSIM.luma(rgb)
        let maxDiff = zip(y.bytes, fromRGB).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(maxDiff <= 3)
        // On two threads, the same bytes (and the same spare capacity past the end).
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1.5 MP
        let two = photo.luma(threads: 2)
        #expect(two == photo.luma() && two.capacity >= two.count + 64)
        #expect(photo.grayscale(threads: 2) == photo.grayscale())
    }

    @Test func cmykComesOutAsRGB() throws {
        let d = try JPEGDecoder.decode(try Fixture.bytes("cmyk.jpg"))
        #expect(d.pixels.layout == .rgb)
        Quadrants.check(d.pixels, tolerance: 40)
    }

    @Test func grayStaysOneChannel() throws {
        let d = try JPEGDecoder.decode(try Fixture.bytes("gray.jpg"))
        #expect(d.pixels.layout == .gray)
        #expect(d.pixels.width == 64 && d.pixels.height == 48)
        // A left-to-right... top-to-bottom gradient from black to white.
        let top = d.pixels.rgba(x: 32, y: 1).r, bottom = d.pixels.rgba(x: 32, y: 46).r
        #expect(top < 30 && bottom > 225)
        let encoded = try JPEGEncoder().encode(d.pixels, quality: 90)
        #expect(try JPEGHeader(encoded).isGray)
    }

    @Test func roundTripStaysClose() throws {
        let src = try JPEGDecoder.decode(try Fixture.bytes("progressive.jpg")).pixels
        let enc = try JPEGEncoder()
        let q90 = try JPEGDecoder.decode(try enc.encode(src, quality: 90)).pixels
        let q50 = try JPEGDecoder.decode(try enc.encode(src, quality: 50)).pixels
        #expect(psnr(src, q90) > 34)
        #expect(psnr(src, q90) > psnr(src, q50))
        let progressive = try enc.encode(src, quality: 90, progressive: true)
        #expect(JPEGMarkers(progressive).isProgressive)
        #expect(psnr(src, try JPEGDecoder.decode(progressive).pixels) > 34)
    }

    @Test(arguments: ["progressive.jpg", "gray.jpg", "rgba-opaque.png"])
    func encodingFromPlanesIsByteIdentical(name: String) throws {
        // The quality search converts once and compresses the planes; it must be the same JPEG.
        var pixels = try ImageLoader.load(path: Fixture.path(name)).pixels
        pixels = AlphaOps.droppingOpaqueAlpha(pixels)
        let enc = try JPEGEncoder()
        let planes = try enc.planes(pixels)
        for (q, progressive) in [(75, false), (92, true)] {
            #expect(try enc.encode(planes, quality: q, progressive: progressive) == (try enc.encode(pixels, quality: q, progressive: progressive)))
        }
    }

    @Test func qualityOrdersSize() throws {
        let src = try JPEGDecoder.decode(try Fixture.bytes("progressive.jpg")).pixels
        let enc = try JPEGEncoder()
        let sizes = try [20, 50, 80, 95].map { try enc.encode(src, quality: $0).count }
        #expect(sizes == sizes.sorted())
        #expect(Set(sizes).count == 4)
    }

    @Test func outputCarriesNoMetadata() throws {
        let data = try Fixture.bytes("photo.jpg")
        // The fixture does carry camera data, GPS and a comment...
        #expect(!JPEGMarkers(data).metadataSegments(in: data).isEmpty)
        #expect(data.contains(subsequence: Array("GPS".utf8)) || data.contains(subsequence: Array("secret comment".utf8)))
        // ...and what we write carries none of it.
        let out = try JPEGEncoder().encode(try JPEGDecoder.decode(data).pixels, quality: 80)
        #expect(JPEGMarkers(out).metadataSegments(in: out).isEmpty)
        #expect(!out.contains(subsequence: Array("secret comment".utf8)))
        #expect(!out.contains(subsequence: Array("Exif".utf8)))
    }

    @Test func rgbaIsFlattenedOnWhiteForJPEG() throws {
        let clear = try PixelBuffer(width: 16, height: 16, layout: .rgba, bytes: [UInt8](repeating: 0, count: 16 * 16 * 4))
        let d = try JPEGDecoder.decode(try JPEGEncoder().encode(clear, quality: 90))
        let px = d.pixels.rgba(x: 8, y: 8)
        #expect(px.r > 250 && px.g > 250 && px.b > 250)
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence s: [UInt8]) -> Bool {
        guard !s.isEmpty, count >= s.count else { return false }
        for i in 0...(count - s.count) where self[i] == s[0] && Array(self[i..<i + s.count]) == s { return true }
        return false
    }
}

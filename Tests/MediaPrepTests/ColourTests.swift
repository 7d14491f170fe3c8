import Foundation
import Testing
@testable import MediaPrep

/// Still images leave as sRGB with no profile: wide-gamut pixels are converted, not relabelled.
@Suite struct ColourTests {
    /// The fixtures' four patches as sRGB: iOS system blue, orange, a green, a skin tone.
    static let patches: [(Int, Int, Int)] = [(0, 122, 255), (255, 149, 0), (52, 199, 89), (224, 172, 138)]

    func preparedPixels(_ name: String) throws -> (PreparedImage, PixelBuffer) {
        let p = try ImagePreparer().prepare(path: Fixture.path(name))
        // Flat patches from a PNG go lossless (a palette PNG); from a JPEG or WebP, JPEG.
        return (p, try ImageLoader.load(data: p.data, path: nil).pixels)
    }

    func patchColours(_ image: PixelBuffer) -> [(Int, Int, Int)] {
        (0..<4).map { i in
            let px = image.rgba(x: 24 + 48 * i, y: 24)
            return (Int(px.r), Int(px.g), Int(px.b))
        }
    }

    @Test(arguments: ["p3-small.jpg", "adobe.png", "p3.webp", "p3-chrm.png", "p3-cicp.png"])
    func wideGamutComesBackAsTheSRGBItWasMadeFrom(_ name: String) throws {
        let (p, pixels) = try preparedPixels(name)
        #expect(p.route == .encoded)
        // No profile left: every viewer reads sRGB.
        if p.format == .png { #expect(!PNGChunks.chunks(p.data).contains { ["iCCP", "cHRM", "cICP"].contains($0.type) }) } else { #expect(PictureMetadata(jpeg: p.data).isEmpty) }
        for (got, want) in zip(patchColours(pixels), Self.patches) {
            #expect(abs(got.0 - want.0) <= 4 && abs(got.1 - want.1) <= 4 && abs(got.2 - want.2) <= 4, "\(name): \(got) for \(want)")
        }
    }

    @Test func withoutConversionTheColoursWouldBeWrong() throws {
        // The fixture stores P3 numbers: read as sRGB, the system blue is visibly off (the bug this fixes).
        let raw = patchColours(try JPEGDecoder.decode(try Fixture.bytes("p3-small.jpg")).pixels)
        #expect(abs(raw[0].0 - 0) > 20)
    }

    @Test func cmykThroughItsProfileNotTheNaiveProduct() throws {
        let (_, pixels) = try preparedPixels("cmyk-profile.jpg")
        let got = patchColours(pixels)
        // CMYK's gamut clips the saturated blue; the others come back close.
        for (g, w) in zip(got.dropFirst(), Self.patches.dropFirst()) {
            #expect(abs(g.0 - w.0) <= 12 && abs(g.1 - w.1) <= 12 && abs(g.2 - w.2) <= 50, "\(g) for \(w)")
        }
        #expect(abs(got[0].2 - 255) <= 8)
    }

    @Test func sRGBProfilesAreRecognisedByContentAndCostNothing() throws {
        // Tagged with an sRGB profile, small enough to keep: sent with its own data, profile stripped.
        let p = try ImagePreparer().prepare(path: Fixture.path("srgb-tagged.jpg"))
        #expect(p.route == .stripped)
        let source = try MediaProbe.source(path: Fixture.path("srgb-tagged.jpg"))
        #expect(source.jpeg?.iccProfile != nil && source.colour == nil)
        // Untagged files: no profile read, nothing converted.
        #expect(try MediaProbe.source(path: Fixture.path("small.jpg")).colour == nil)
    }

    /// The 27 colours `SourceColour.inspect` runs through a profile, and what came out.
    static func cube(_ icc: [UInt8], fewSamples: Bool) throws -> [UInt8] {
        let t = try ColourTransform(profile: icc, input: .rgb, fewSamples: fewSamples)
        var samples: [UInt8] = []
        for r in [0, 128, 255] { for g in [0, 128, 255] { for b in [0, 128, 255] { samples += [UInt8(r), UInt8(g), UInt8(b)] } } }
        var out = samples
        samples.withUnsafeBytes { s in out.withUnsafeMutableBytes { o in
            if let sb = s.baseAddress, let ob = o.baseAddress { t.run(sb, ob, count: 27) }
        } }
        return out
    }

    @Test func judgingAProfileSkipsTheTableWithoutChangingItsVerdict() throws {
        // sRGB, Display P3, Adobe RGB, and the profiles PNG chunks name.
        let jpegs = try ["srgb-tagged.jpg", "p3-small.jpg"].map { try #require(MediaProbe.source(path: Fixture.path($0)).jpeg?.iccProfile) }
        let pngs = try ["adobe.png", "p3-chrm.png", "p3-cicp.png"].map { try #require(EmbeddedProfile.ofPNG(Fixture.bytes($0))?.profile) }
        for icc in jpegs + pngs {
            let table = try Self.cube(icc, fewSamples: false), direct = try Self.cube(icc, fewSamples: true)
            #expect(zip(table, direct).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        }
        #expect(SourceColour.inspect(jpegs[0]) == nil)
        #expect(try #require(SourceColour.inspect(jpegs[1])).isCMYK == false)
    }

    @Test func checkSaysWhichProfileWasConverted() {
        let r = SendCheck().check(path: Fixture.path("p3-small.jpg"))
        #expect(r.verdict == .afterPreparation)
        #expect(r.reasons.contains("colours converted from Display P3 to sRGB"))
        #expect(SendCheck().check(path: Fixture.path("p3-photo.jpg")).reasons.contains("colours converted from Display P3 to sRGB"))
        #expect(!SendCheck().check(path: Fixture.path("srgb-tagged.jpg")).reasons.contains { $0.hasPrefix("colours converted") })
        // Colours named by PNG chunks instead of a profile.
        #expect(SendCheck().check(path: Fixture.path("p3-cicp.png")).reasons.contains("colours converted from Display P3 (cICP) to sRGB"))
        #expect(SendCheck().check(path: Fixture.path("p3-chrm.png")).reasons.contains("colours converted from the PNG's cHRM primaries to sRGB"))
    }

    @Test func largeP3PhotoIsConvertedWithinTheBudget() throws {
        let (p, _) = try preparedPixels("p3-photo.jpg")
        #expect(p.data.count <= 261_120 && p.route == .encoded)
        #expect(p.preview.hasPrefix("data:image/jpg;base64,"))
    }
}

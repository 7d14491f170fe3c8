import Foundation
import Testing
@testable import MediaPrep

/// HEIC (the iPhone's default), AVIF and JPEG XL are images: decoded, upright, re-encoded, nothing private left.
@Suite struct HEIFTests {
    @Test func sniffedByBrand() throws {
        #expect(FormatSniffer.sniff(try Fixture.bytes("orient-gps.heic")) == .heic)
        #expect(FormatSniffer.sniff(try Fixture.bytes("quadrants.avif")) == .avif)
        #expect(FormatSniffer.sniff(try Fixture.bytes("quadrants.jxl")) == .jxl)
        #expect(FormatSniffer.sniff(try Fixture.bytes("h264.mp4")) == .mp4)
        // A short ftyp box must not trip the brand scan.
        #expect(FormatSniffer.sniff([0, 0, 0, 12] + Array("ftypmif1".utf8)) == .heic)
    }

    @Test(arguments: ["orient-gps.heic", "quadrants.avif", "quadrants.jxl"])
    func preparedUprightWithoutMetadata(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .image && item.format == .jpeg && item.route == .encoded)
        #expect(item.preview?.hasPrefix("data:image/jpg;base64,") == true)
        let bytes = try FileBytes.read(out)
        #expect(PictureMetadata(jpeg: bytes).isEmpty)
        // The sideways HEIC comes out as the upright quadrants, by its Exif orientation.
        Quadrants.check(try JPEGDecoder.decode(bytes).pixels, tolerance: 24)
        #expect(!bytes.contains(sequence: Array("Test Phone".utf8)))
    }

    /// An AVIF that stores colour premultiplied by alpha (libheif hands it out so): its translucent red
    /// stays red, not darkened toward black by its own alpha (the sweep's 600 px photo: 14.1 → 1.07 mean
    /// levels on white against the source, avifdec's own 1.08).
    @Test func premultipliedColourComesOutStraight() throws {
        let d = try HEIFDecoder.decode(try Fixture.bytes("premultiplied.avif"), format: .avif, maxPixels: 1 << 20)
        #expect(d.pixels.layout == .rgba)
        for x in [8, 24, 40] {
            let p = d.pixels.rgba(x: x, y: 16)
            #expect(p.a > 40 && p.a < 250 && p.r > 235 && abs(Int(p.g) - 32) < 16 && p.b < 16, "x=\(x): \(p)")
        }
    }

    /// An HDR still (PQ, BT.2020) goes to SDR through the same zscale and tonemap as HDR video. Cut to
    /// 8 bits as if SDR it came out dim and grey (white 147, the red (122, 80, 66)); the phone corpus's
    /// HDR scene as a PQ AVIF: ΔE2000 mean 11.0 → 4.37 against the scene, as HLG 11.4 → 4.34.
    @Test func anHDRStillIsMappedToSDR() throws {
        let d = try HEIFDecoder.decode(try Fixture.bytes("hdr-pq.avif"), format: .avif, maxPixels: 1 << 20)
        let (white, gray, red, blue) = (d.pixels.rgba(x: 8, y: 16), d.pixels.rgba(x: 24, y: 16), d.pixels.rgba(x: 40, y: 16), d.pixels.rgba(x: 56, y: 16))
        #expect(white.r > 200 && white.g > 200 && white.b > 200, "\(white)")
        #expect(abs(Int(gray.g) - 128) < 16, "\(gray)")
        #expect(red.r > 170 && red.g < 70 && red.b < 70, "\(red)")
        #expect(blue.b > 170 && blue.r < 70, "\(blue)")
        // Shrunk on load, halved while it stays at least the size asked for (either way round), before
        // the float stages: the same patches at a quarter of the size.
        let small = try HEIFDecoder.decode(try Fixture.bytes("hdr-pq.avif"), format: .avif, maxPixels: 1 << 20, minimum: (8, 16))
        #expect((small.pixels.width, small.pixels.height, small.sourceWidth) == (16, 8, 64))
        let (w2, r2) = (small.pixels.rgba(x: 2, y: 4), small.pixels.rgba(x: 10, y: 4))
        #expect(w2.g > 200 && r2.r > 170 && r2.g < 80, "\(w2) \(r2)")
        let check = SendCheck().check(path: Fixture.path("hdr-pq.avif"))
        #expect(check.reasons.contains("HDR (PQ, BT.2020) mapped to SDR sRGB"), "\(check.reasons)")
    }

    /// The same four patches as a PQ JPEG XL: mapped by the same chain. Through its ICC profile, as
    /// Little CMS renders it (relative to 10,000 cd/m²), white came out 38 of 255 and the red (27, 1, 2).
    @Test func anHDRJPEGXLIsMappedToSDRToo() throws {
        let data = try Fixture.bytes("hdr-pq.jxl")
        let header = try JXLDecoder.header(data, maxPixels: 1 << 20)
        #expect(header.hdr?.transfer == .pq && header.hdr?.primaries == 9 && header.iccProfile == nil)
        let d = try JXLDecoder.decode(data, maxPixels: 1 << 20).image
        let (white, gray, red, blue) = (d.pixels.rgba(x: 8, y: 16), d.pixels.rgba(x: 24, y: 16), d.pixels.rgba(x: 40, y: 16), d.pixels.rgba(x: 56, y: 16))
        #expect(white.r > 200 && white.g > 200 && white.b > 200, "\(white)")
        #expect(abs(Int(gray.g) - 128) < 16, "\(gray)")
        #expect(red.r > 170 && red.g < 70 && red.b < 70, "\(red)")
        #expect(blue.b > 170 && blue.r < 70, "\(blue)")
        let small = try JXLDecoder.decode(data, maxPixels: 1 << 20, minimum: (8, 16)).image
        #expect((small.pixels.width, small.pixels.height) == (16, 8))
        let check = SendCheck().check(path: Fixture.path("hdr-pq.jxl"))
        #expect(check.reasons.contains("HDR (PQ, BT.2020) mapped to SDR sRGB"), "\(check.reasons)")
    }

    /// A derived image's canvas is its own claim: a 1 KB HEIC whose `grid` said 30326×25393 (its `ispe`
    /// 48×64) had libheif allocate 2.3 GB and crash (found by the heif fuzzer). Refused first, by code.
    @Test func aGridClaimingAHugeCanvasIsRefusedBeforeLibheif() throws {
        let bytes = try Fixture.bytes("fuzz/heif-8f3fc2c7b960")
        #expect(throws: MediaPrepError(.tooManyPixels, "the heic file's grid makes 30326×25393, over the 100000000-pixel limit")) {
            try HEIFDecoder.decode(bytes, format: .heic, maxPixels: 100_000_000)
        }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("fuzz/heif-8f3fc2c7b960"))
        #expect(item.output == nil && item.error?.code == .tooManyPixels, "\(String(describing: item.error))")
    }

    /// Every box whole, but `iloc` puts the picture's bytes past the file's end: `check` refuses it as
    /// `prepare` does, where it had said "ok" and libheif then hit the end of the file.
    @Test func anItemWhoseBytesRunPastTheEndIsCutOff() throws {
        var avif = try Fixture.bytes("quadrants.avif")
        let iloc = try #require(avif.firstRange(of: Array("iloc".utf8))).lowerBound
        #expect(Array(avif[(iloc + 4)..<(iloc + 10)]) == [0, 0, 0, 0, 0x44, 0])  // version 0, 4-byte offsets and lengths, no base
        avif.replaceSubrange((iloc + 22)..<(iloc + 26), with: Bytes.be32(avif.count))
        #expect(HEIFItems.of(avif)?.cut == [1])
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(avif, "cut-item.avif", in: dir)
        let check = SendCheck().check(path: path)
        #expect(check.verdict == .cannotSend && check.code == "truncated", "\(check.reasons)")
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.output == nil && item.error?.code == .truncated, "\(String(describing: item.error))")
        #expect(HEIFItems.of(try Fixture.bytes("quadrants.avif"))?.cut == [])
    }

    @Test func checkReportsTheGPSItRemoves() {
        let r = SendCheck().check(path: Fixture.path("orient-gps.heic"))
        #expect(r.kind == .image && r.verdict == .afterPreparation)
        #expect(r.reasons.contains("GPS location removed"))
        #expect(r.width == 64 && r.height == 48)
    }

    /// Probing (what `check` and the batch's pixel budget go by) reads the header only; the one
    /// decode is `prepare`'s, and sees what the header said.
    @Test(arguments: ["orient-gps.heic", "quadrants.avif", "quadrants.jxl"])
    func probedFromTheHeaderDecodedOnceByPrepare(_ name: String) throws {
        let s = try MediaProbe.source(path: Fixture.path(name), depth: .preparing)
        #expect(s.firstFrame == nil)
        #expect(s.probe.kind == .image && s.probe.width == Quadrants.width && s.probe.height == Quadrants.height)
        #expect(s.decodedPixels(profile: .simplex) == Quadrants.width * Quadrants.height)
        let data = try Fixture.bytes(name)
        let decoded = try ImageLoader.load(data: data, path: nil)
        #expect(decoded.displayWidth == Quadrants.width && decoded.displayHeight == Quadrants.height)
        #expect(AlphaOps.hasRealAlpha(decoded.pixels) == false && s.probe.hasAlpha == false)
        if name.hasSuffix(".heic") {
            let h = try HEIFDecoder.header(data, format: .heic, maxPixels: 1_000_000)
            #expect(h.orientation == decoded.orientation && h.metadata.gps)
            #expect(s.metadata?.gps == true)
            #expect(throws: MediaPrepError.self) { try HEIFDecoder.header(data, format: .heic, maxPixels: 100) }
        } else if name.hasSuffix(".jxl") {
            let h = try JXLDecoder.header(data, maxPixels: 1_000_000)
            #expect(h.iccProfile == (try JXLDecoder.decode(data, maxPixels: 1_000_000)).iccProfile)
            #expect(throws: MediaPrepError.self) { try JXLDecoder.header(data, maxPixels: 100) }
        }
    }

    @Test func damagedFilesAreRefusedNotSent() throws {
        let cut = Array(try Fixture.bytes("orient-gps.heic").prefix(400))
        #expect(throws: MediaPrepError.self) { try HEIFDecoder.decode(cut, format: .heic, maxPixels: 1_000_000) }
        let jxl = try Fixture.bytes("quadrants.jxl")
        #expect(throws: MediaPrepError.self) { try JXLDecoder.decode(Array(jxl.prefix(jxl.count / 2)), maxPixels: 1_000_000) }
        #expect(throws: MediaPrepError.self) { try JXLDecoder.decode(jxl, maxPixels: 100) }  // over the pixel limit
    }
}

extension Array where Element == UInt8 {
    func contains(sequence s: [UInt8]) -> Bool {
        guard s.count <= count else { return false }
        return (0...(count - s.count)).contains { Array(self[$0..<$0 + s.count]) == s }
    }
}

/// A still WebP's EXIF chunk (GPS inside) is reported as an animated one's is; nothing of it is sent.
@Suite struct WebPMetadataTests {
    @Test func aStillWebPsGPSIsReported() throws {
        var webp = try Fixture.bytes("p3.webp")  // VP8X (it carries an ICC profile)
        #expect(Array(webp[12..<16]) == Array("VP8X".utf8))
        // A big-endian TIFF whose first IFD points at a GPS IFD (tag 0x8825).
        let tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x88, 0x25, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0]
        webp += Array("EXIF".utf8) + [UInt8(tiff.count), 0, 0, 0] + tiff
        webp[20] |= 0x08  // VP8X: has EXIF
        let size = webp.count - 8
        (webp[4], webp[5], webp[6], webp[7]) = (UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24))
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(webp).write(to: URL(fileURLWithPath: dir + "/exif.webp"))
        let check = SendCheck().check(path: dir + "/exif.webp")
        #expect(check.kind == .image && check.reasons.contains("GPS location removed"), "\(check.reasons)")
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/exif.webp")
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(PictureMetadata(jpeg: try FileBytes.read(out)).isEmpty)
    }
}

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
        #expect(JPEGMetadata(jpeg: bytes).isEmpty)
        // The sideways HEIC comes out as the upright quadrants, by its Exif orientation.
        Quadrants.check(try JPEGDecoder.decode(bytes).pixels, tolerance: 24)
        #expect(!bytes.contains(sequence: Array("Test Phone".utf8)))
    }

    @Test func checkReportsTheGPSItRemoves() {
        let r = SendCheck().check(path: Fixture.path("orient-gps.heic"))
        #expect(r.kind == .image && r.verdict == .afterPreparation)
        #expect(r.reasons.contains("GPS location removed"))
        #expect(r.width == 64 && r.height == 48)
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

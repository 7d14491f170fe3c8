import Foundation
import Testing
@testable import MediaPrep

/// The second promise every registered picture format is held to: a small file whose header claims
/// more than the pixel cap is refused by `probe`, `check` and `prepare` alike, before its pixels are
/// allocated, and nothing is written. Each sample is a fixture with its size fields rewritten.
extension FormatConformanceTests {
    struct Claim: Sendable, CustomTestStringConvertible {
        var format: MediaFormat
        var name: String
        /// What all three say: too many pixels, or (where the decoder finds the data cannot hold the
        /// claim before it allocates) cut short.
        var code: MediaPrepError.Code
        var bytes: @Sendable () throws -> [UInt8]
        var testDescription: String { "\(format.rawValue): \(name)" }
    }

    /// `fixture` as `edit` leaves it.
    static func rewritten(_ fixture: String, _ edit: (inout [UInt8]) throws -> Void) throws -> [UInt8] {
        var d = try Fixture.bytes(fixture)
        try edit(&d)
        return d
    }

    static func le16(_ v: Int) -> [UInt8] { Array(Bytes.le32(v).prefix(2)) }

    /// The offset of `tag` in `d`, past `from`.
    static func find(_ d: [UInt8], _ tag: String, from: Int = 0) throws -> Int {
        try #require(Bytes.find(Array(tag.utf8), in: d, from: from), "no \(tag)")
    }

    static let claims: [Claim] = [
        Claim(format: .jpeg, name: "arithmetic 65500² in 300 bytes", code: .tooManyPixels) { try Fixture.bytes("bomb-arithmetic.jpg") },
        Claim(format: .jpeg, name: "Huffman 65500² in 300 bytes", code: .truncated) { try Fixture.bytes("bomb-huffman.jpg") },
        Claim(format: .png, name: "IHDR 60000²", code: .tooManyPixels) {
            try rewritten("rgb.png") { d in
                d.replaceSubrange(16..<24, with: Bytes.be32(60_000) + Bytes.be32(60_000))
                d.replaceSubrange(29..<33, with: Bytes.be32(Int(ZipBuild.crc32(Array(d[12..<29])))))
            }
        },
        Claim(format: .gif, name: "screen 65535²", code: .tooManyPixels) {
            try rewritten("still.gif") { d in d.replaceSubrange(6..<10, with: le16(65_535) + le16(65_535)) }
        },
        Claim(format: .webp, name: "VP8 16383²", code: .tooManyPixels) {
            try rewritten("image.webp") { d in
                let at = try find(d, "VP8 ") + 8 + 6
                d.replaceSubrange(at..<at + 4, with: le16(16_383) + le16(16_383))
            }
        },
        Claim(format: .heic, name: "ispe 60000²", code: .tooManyPixels) { try ispe("orient-gps.heic") },
        Claim(format: .avif, name: "ispe 60000²", code: .tooManyPixels) { try ispe("quadrants.avif") },
        Claim(format: .jxl, name: "SizeHeader 9000² in 1 KB", code: .tooManyPixels) { try HostileWorkTests.jxlClaiming(9000) },
        Claim(format: .tiff, name: "100000² over 2,880 bytes", code: .tooManyPixels) {
            TIFFBuilder.make(big: true, width: 40, height: 24, claimed: (100_000, 100_000))
        },
        Claim(format: .qoi, name: "60000² header", code: .truncated) { QOITests.qoi(width: 60_000, height: 60_000, pixels: [[255, 0, 0]]) },
        Claim(format: .bmp, name: "60000² header", code: .truncated) {
            try rewritten("image.bmp") { d in d.replaceSubrange(18..<26, with: Bytes.le32(60_000) + Bytes.le32(60_000)) }
        },
        Claim(format: .jp2, name: "SIZ and ihdr 60000²", code: .truncated) {
            try rewritten("quadrants.jp2") { d in
                let siz = try #require(Bytes.find([0xFF, 0x51], in: d, from: 0)) + 6
                d.replaceSubrange(siz..<siz + 8, with: Bytes.be32(60_000) + Bytes.be32(60_000))
                let ihdr = try find(d, "ihdr") + 4
                d.replaceSubrange(ihdr..<ihdr + 8, with: Bytes.be32(60_000) + Bytes.be32(60_000))
            }
        },
    ]

    /// Every `ispe` (each image's size) in `fixture` made 60000².
    static func ispe(_ fixture: String) throws -> [UInt8] {
        try rewritten(fixture) { d in
            var at = try find(d, "ispe")
            while true {
                d.replaceSubrange(at + 8..<at + 16, with: Bytes.be32(60_000) + Bytes.be32(60_000))
                guard let next = Bytes.find(Array("ispe".utf8), in: d, from: at + 4) else { break }
                at = next
            }
        }
    }

    /// Picture formats without a sample here, and where their claims are held instead.
    static let claimExempt: [MediaFormat: String] = [
        .cameraRaw: "LibRaw reads its own header in a forked child, held to the limit (DNGTests, make-hostile.py's dng-wide)",
    ]

    /// A picture format says how it is decoded (and so how its claim is counted) in its entry.
    @Test func everyPictureFormatDeclaresItsDecoder() {
        let registered = Set(FormatRegistry.entries.flatMap(\.formats))
        #expect(registered.filter { $0.isImage && FormatRegistry.picture($0) == nil }.isEmpty)
        #expect(registered.filter { !$0.isImage && FormatRegistry.picture($0) != nil }.isEmpty)
    }

    @Test func everyRegisteredPictureFormatHasAClaimOrSaysWhere() {
        let pictures = Set(FormatRegistry.entries.flatMap(\.formats).filter(\.isImage))
        let covered = Set(Self.claims.map(\.format)).union(Self.claimExempt.keys)
        #expect(pictures.subtracting(covered).isEmpty, "no claim: \(pictures.subtracting(covered).map(\.rawValue).sorted())")
    }

    @Test(arguments: claims) func aHeaderClaimingTooMuchIsRefusedAlike(_ claim: Claim) throws {
        let bytes = try claim.bytes()
        #expect(bytes.count < 40_000)
        #expect(FormatSniffer.sniff(bytes) == claim.format)
        let codes = try HostileWorkTests.verdicts(bytes, "claim." + claim.format.rawValue)
        #expect(codes == [claim.code, claim.code, claim.code], "probe, check, prepare: \(codes)")
    }
}

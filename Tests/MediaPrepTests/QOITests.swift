import Foundation
import Testing
@testable import MediaPrep

/// QOI, added as a format is added (one file in `Formats/Pictures`, one registry line, its
/// `MediaFormat` case): recognised by its header, decoded by FFmpeg, sent as an image.
@Suite struct QOITests {
    /// A QOI of `width`×`height` whose first pixels are `pixels` (RGB), each written whole (QOI_OP_RGB).
    static func qoi(width: Int, height: Int, pixels: [[UInt8]]) -> [UInt8] {
        Array("qoif".utf8) + Bytes.be32(width) + Bytes.be32(height) + [3, 0]
            + pixels.flatMap { [0xFE] + $0 } + [0, 0, 0, 0, 0, 0, 0, 1]
    }

    @Test func aQOIIsRecognisedAndSentAsAnImage() throws {
        let red: [UInt8] = [220, 20, 30], blue: [UInt8] = [20, 40, 230]
        let bytes = Self.qoi(width: 4, height: 2, pixels: [red, red, blue, blue, red, red, blue, blue])
        #expect(FormatSniffer.sniff(bytes) == .qoi)
        #expect(FormatSniffer.sniff(Array("qoif is a text file about images".utf8)) != .qoi)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(bytes, "pixel.qoi", in: dir)
        #expect(SendCheck().check(path: path).verdict == .afterPreparation)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        let out = try #require(item.output, "\(String(describing: item.error))")
        #expect((item.kind, item.width, item.height) == (.image, 4, 2))
        let sent = try ImageLoader.load(path: out).pixels
        let left = sent.rgba(x: 0, y: 0), right = sent.rgba(x: 3, y: 1)
        #expect(abs(Int(left.r) - 220) < 24 && abs(Int(left.b) - 30) < 24, "\(left)")
        #expect(abs(Int(right.b) - 230) < 24 && abs(Int(right.r) - 20) < 24, "\(right)")
    }
}

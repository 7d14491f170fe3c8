import Testing
@testable import MediaPrep

/// A quality's size measured without writing the file: exact but for the stuffed zeros, and its
/// tables give libjpeg's optimized file in one pass.
@Suite struct JPEGMeasureTests {
    /// The zero bytes libjpeg stuffed after each 0xFF in the coded data (between SOS and EOI).
    static func stuffedZeros(_ jpeg: [UInt8]) -> Int {
        guard let sos = (0..<(jpeg.count - 1)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }) else { return -1 }
        let start = sos + 2 + Int(jpeg[sos + 2]) << 8 + Int(jpeg[sos + 3])
        var n = 0
        for i in start..<(jpeg.count - 3) where jpeg[i] == 0xFF && jpeg[i + 1] == 0x00 { n += 1 }
        return n
    }

    @Test func theMeasureIsTheFileLessItsStuffingAndItsTablesWriteTheSameFile() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        let small = try Resizer.resize(photo, width: 301, height: 227)  // edges cut through blocks
        var checked = 0
        for image in [photo, small, photo.grayscale(), small.grayscale()] {
            for full in [false, true] where !(full && image.layout == .gray) {
                let planes = try JPEGEncoder().planes(image, fullChroma: full)
                for q in [10, 37, 50, 63, 80, 92, 98] {
                    let m = try JPEGEncoder.measure(planes, quality: q)
                    let twoPass = try JPEGEncoder().encode(planes, quality: q)
                    let onePass = try JPEGEncoder().encode(planes, quality: q, tables: m.tables)
                    let label = "\(image.width)×\(image.height) \(image.layout) 4:4:4 \(full) q\(q)"
                    #expect(onePass == twoPass, "\(label)")
                    #expect(m.lower + Self.stuffedZeros(twoPass) == twoPass.count, "\(label): \(m.lower) + stuffing ≠ \(twoPass.count)")
                    checked += 1
                }
            }
        }
        #expect(checked == 42)
    }
}

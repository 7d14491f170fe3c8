import Testing
@_spi(Fuzz) @testable import MediaPrep

/// A quality's size measured without writing the file: exact but for the stuffed zeros, and its
/// tables give libjpeg's optimized file in one pass.
@Suite struct JPEGMeasureTests {
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
                    #expect(m.lower + FuzzEntryPoints.stuffedZeros(twoPass) == twoPass.count, "\(label): \(m.lower) + stuffing ≠ \(twoPass.count)")
                    checked += 1
                }
            }
        }
        #expect(checked == 42)
    }
}

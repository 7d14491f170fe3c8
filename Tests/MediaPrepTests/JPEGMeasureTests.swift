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

extension JPEGMeasureTests {
    /// A budget between a quality's measure and its file (only the stuffed zeros over it): the
    /// search must write that quality, see it over, and answer the one below; one byte more and the
    /// quality itself is the answer. On one thread and on two, with and without a prior on it.
    @Test func aBudgetInsideTheStuffingIsDecidedByTheWrittenFile() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels
        let planes = try JPEGEncoder().planes(try Resizer.resize(photo, width: 640, height: 480))
        var checked = 0
        for q in [35, 60, 85] {
            let m = try JPEGEncoder.measure(planes, quality: q)
            let file = try JPEGEncoder().encode(planes, quality: q)
            guard file.count > m.lower else { continue }  // nothing stuffed: no such budget
            let below = try JPEGEncoder().encode(planes, quality: q - 1).count
            for threads in [1, 2] {
                for prior in [nil, RatePrior(quality: q, slope: -0.9)] {
                    var search = QualitySearch()
                    search.threads = threads
                    let over = try search.trials(planes: planes, maxBytes: file.count - 1, prior: prior).result
                    #expect(over?.quality == q - 1 && over?.data.count == below, "q\(q), \(threads) threads")
                    let exact = try search.trials(planes: planes, maxBytes: file.count, prior: prior).result
                    #expect(exact?.quality == q && exact?.data == file, "q\(q), \(threads) threads")
                    checked += 1
                }
            }
        }
        #expect(checked >= 8)
    }
}

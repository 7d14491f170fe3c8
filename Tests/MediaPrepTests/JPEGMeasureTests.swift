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

extension JPEGMeasureTests {
    /// Qualities measured together (each block's DCT once, quantized per quality) are libjpeg's own
    /// measure, to the byte and the table: every layout, edges cut through blocks and MCUs, the rows
    /// split over one to three threads (the parts' DC predictors joined), with AVX2 and without.
    @Test func qualitiesMeasuredTogetherAreEachMeasuredAlone() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        var checked = 0
        for (w, h) in [(1440, 1080), (301, 227), (17, 9), (8, 8), (1, 1), (9, 33), (640, 17)] {
            let image = try Resizer.resize(photo, width: w, height: h)
            for (gray, full) in [(false, false), (false, true), (true, false)] {
                let planes = try JPEGEncoder().planes(gray ? image.grayscale() : image, fullChroma: full)
                let qs = [1, 12, 50, 71, 88, 100]
                for (threads, simd) in [(1, true), (2, true), (3, true), (2, false)] {
                    let together = try JPEGEncoder.measure(planes, qualities: qs, threads: threads, simd: simd)
                    #expect(together.map(\.quality) == qs)
                    for m in together {
                        let alone = try JPEGEncoder.measure(planes, quality: m.quality)
                        let label = "\(w)×\(h) gray \(gray) 4:4:4 \(full) q\(m.quality), \(threads) threads, simd \(simd)"
                        #expect(m.lower == alone.lower && m.dataBytes == alone.dataBytes, "\(label): \(m.lower) against \(alone.lower)")
                        #expect(try JPEGEncoder().encode(planes, quality: m.quality, tables: m.tables)
                                == JPEGEncoder().encode(planes, quality: m.quality, tables: alone.tables), "\(label)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked == 7 * 3 * 4 * 6)
    }

    /// Our DCT gives libjpeg's `jpeg_fdct_islow` integers on every kind of block, extremes included
    /// (a checkerboard of 0 and 255 drives the column pass's sums to the ends of 16 bits).
    @Test func theDCTIsLibjpegs() {
        var rng = SystemRandomNumberGenerator()
        var mismatches = 0
        for i in 0..<20_000 {
            var a = [UInt8](repeating: 0, count: 64), b = a
            for k in 0..<64 {
                let (r, c) = (k / 8, k % 8)
                switch i % 5 {
                case 0: a[k] = UInt8.random(in: 0...255, using: &rng)
                case 1: a[k] = (r + c) % 2 == 0 ? 0 : 255
                case 2: a[k] = Bool.random(using: &rng) ? 255 : 0
                case 3: a[k] = i % 2 == 0 ? 255 : 0
                default: a[k] = UInt8(truncatingIfNeeded: r * c * 4 + Int.random(in: 0...2, using: &rng))
                }
                b[k] = i % 5 == 3 ? 255 &- a[k] : UInt8.random(in: 0...255, using: &rng)
            }
            if !FuzzEntryPoints.dctMatchesLibjpeg(a, b) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}

extension JPEGMeasureTests {
    /// A measured quality written in two parts on two threads, joined at the bit, is libjpeg's file
    /// to the byte: every layout, cuts through blocks and MCUs at the edges, the first rows' data
    /// ending at every bit offset (many sizes and qualities), one MCU row on either side of the cut.
    @Test func aFileWrittenInTwoPartsIsTheFileWrittenWhole() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        var split = 0, offsets = Set<Int>()
        for (w, h) in [(1440, 1080), (301, 227), (640, 17), (33, 16), (8, 9), (1001, 31)] {
            let image = try Resizer.resize(photo, width: w, height: h)
            for (gray, full) in [(false, false), (false, true), (true, false)] {
                let planes = try JPEGEncoder().planes(gray ? image.grayscale() : image, fullChroma: full)
                for q in [5, 30, 55, 77, 90, 99] {
                    let m = try JPEGEncoder.measure(planes, qualities: [q, q + 1], threads: 2)[0]
                    let whole = try JPEGEncoder().encode(planes, quality: q, tables: m.tables)
                    let label = "\(w)×\(h) gray \(gray) 4:4:4 \(full) q\(q)"
                    #expect(try JPEGEncoder().encode(planes, measured: m, threads: 2) == whole, "\(label)")
                    guard let s = m.split, let parts = try JPEGEncoder.encodeSplit(planes, measured: m, s) else { continue }
                    #expect(parts == whole, "\(label)")
                    split += 1
                    offsets.insert(s.firstBits % 8)
                }
            }
        }
        #expect(split >= 90)  // all but the one-MCU-row images
        #expect(offsets.count == 8)
    }
}

extension JPEGMeasureTests {
    /// Our optimal-table builder gives libjpeg's `jpeg_gen_optimal_table` tables: counts of every
    /// shape, ties everywhere, one symbol alone, all 256, and counts skewed enough to fold codes
    /// longer than 16 bits.
    @Test func optimalTablesAreLibjpegs() {
        var rng = SystemRandomNumberGenerator()
        var mismatches = 0, sixteen = 0
        for i in 0..<3_000 {
            var counts = [Int](repeating: 0, count: 257)
            let used = [1, 2, 12, 43, 160, 256][i % 6]
            for s in (0..<256).shuffled(using: &rng).prefix(used) {
                switch i % 4 {
                case 0: counts[s] = Int.random(in: 1...5, using: &rng)  // ties
                case 1: counts[s] = Int.random(in: 1...1_000_000, using: &rng)
                case 2: counts[s] = 1 << Int.random(in: 0...28, using: &rng)  // skewed: codes past 16 bits, folded
                default: counts[s] = Int.random(in: 1...100, using: &rng) * (s % 7 == 0 ? 10_000 : 1)
                }
            }
            guard let r = FuzzEntryPoints.optimalTableMatchesLibjpeg(counts) else { continue }  // libjpeg fails too
            if !r.same { mismatches += 1 }
            if r.longest == 16 { sixteen += 1 }
        }
        #expect(mismatches == 0)
        #expect(sixteen > 100)  // many tables had their longest codes folded to 16 bits
    }
}

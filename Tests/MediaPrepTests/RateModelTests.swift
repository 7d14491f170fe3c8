import Foundation
import Testing
@testable import MediaPrep

/// The cheaper size search: predictions may only change how many encodes are made, never the answer.
@Suite struct RateModelTests {
    static let photo: PixelBuffer? = try? JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels

    @Test func sampledSearchFindsTheSameQualityWithFewerWholeEncodes() throws {
        let pixels = try #require(Self.photo)  // 1440×1080: large enough to be sampled
        let planes = try JPEGEncoder().planes(pixels)
        #expect(pixels.sampledBands(every: 4) != nil)
        var direct = 0, sampled = 0
        for budget in stride(from: 40_000, through: 400_000, by: 30_000) {
            let a = try QualitySearch().trials(planes: planes, maxBytes: budget)
            let b = try QualitySearch().sampledTrials(pixels, maxBytes: budget)
            #expect(a.result?.quality == b.result?.quality, "budget \(budget)")
            #expect((b.result?.data.count ?? 0) <= budget)
            direct += (a.result?.encodes ?? 0) + (a.result?.measures ?? 0)
            sampled += (b.result?.encodes ?? 0) + (b.result?.measures ?? 0)
        }
        // Whole-image trials, written or measured: 87 straight, 28 after the sample (13 budgets)
        // when every trial was written; 101 and 46 measured and written.
        #expect(sampled * 2 <= direct, "\(sampled) vs \(direct)")
    }

    @Test func sampledFloorCheckGivesUpOnlyWhenTheFloorCannotFit() throws {
        let pixels = try #require(Self.photo)
        let planes = try JPEGEncoder().planes(pixels)
        for budget in stride(from: 100_000, through: 400_000, by: 25_000) {
            let floor = QualitySearch(minQuality: 80, floorOnly: true)
            let a = try floor.trials(planes: planes, maxBytes: budget, start: 88)
            let b = try floor.sampledTrials(pixels, maxBytes: budget, start: 88)
            #expect(a.result?.quality == b.result?.quality, "budget \(budget)")
        }
    }

    /// A hill-climb candidate is sampled from its planes: the same bytes as converting the sampled
    /// rows, so the searches find the same answers (4:2:0, 4:4:4 and gray; a short last band).
    @Test func bandsCutFromPlanesAreTheSampledRowsConverted() throws {
        let photo = try #require(Self.photo)
        let cut = try photo.rows(0..<(photo.height - 7))  // 1073 rows: the last band is 1 row
        for image in [photo, cut, cut.grayscale()] {
            for full in [false, true] {
                let bands = image.height / 16
                let planes = try JPEGEncoder().planes(image, fullChroma: full)
                for (every, first) in [(8, 4), (4, 2), (3, 0), (3, 1)] {  // (3, 1) picks the short last band
                    let fromRows = try JPEGEncoder().planes(image.everyBand(every, from: first, below: bands + 1), fullChroma: full)
                    let fromPlanes = planes.everyBand(every, from: first, below: bands + 1)
                    #expect(fromRows.height == fromPlanes.height)
                    let same = fromRows.storage == fromPlanes.storage  // a Bool: a mismatch would print megabytes
                    #expect(same, "\(image.height) rows, every \(every) from \(first), full chroma \(full)")
                }
            }
        }
        // And the search over planes finds what the search over pixels finds.
        for budget in [60_000, 150_000, 300_000] {
            let a = try QualitySearch().sampledTrials(photo, maxBytes: budget)
            let b = try QualitySearch().sampledTrials(planes: try JPEGEncoder().planes(photo), maxBytes: budget)
            #expect(a.result?.quality == b.result?.quality && a.result?.data == b.result?.data, "budget \(budget)")
            #expect(a.sizes == b.sizes)
        }
    }

    @Test func sampledBandsPredictTheWholeSize() throws {
        let pixels = try #require(Self.photo)
        let planes = try JPEGEncoder().planes(pixels)
        let (sample, fraction) = try #require(pixels.sampledBands(every: 4))
        #expect(sample.height == Int((Double(pixels.height) * fraction).rounded()))
        let samplePlanes = try JPEGEncoder().planes(sample)
        for q in [40, 75, 92] {
            let whole = try JPEGEncoder().encode(planes, quality: q).count
            let part = try JPEGEncoder().encode(samplePlanes, quality: q).count
            let predicted = (Double(part) - 600) / fraction + 600
            #expect(abs(predicted / Double(whole) - 1) < 0.08, "q\(q): \(Int(predicted)) vs \(whole)")
        }
    }

    @Test func modelPriorLandsNearTheAnswerAtAnotherSize() throws {
        let pixels = try #require(Self.photo)
        var model = RateModel()
        #expect(model.prior(pixels: 1000, maxBytes: 1000) == nil)
        let budget = 60_000
        for long in [1440, 1152] {
            let size = ImageProfile.scaled(width: pixels.width, height: pixels.height, longSide: long)
            let p = try Resizer.resize(pixels, width: size.width, height: size.height)
            model.add(pixels: p.pixelCount, try QualitySearch().trials(planes: try JPEGEncoder().planes(p), maxBytes: budget).sizes)
        }
        let size = ImageProfile.scaled(width: pixels.width, height: pixels.height, longSide: 922)
        let p = try Resizer.resize(pixels, width: size.width, height: size.height)
        let prior = try #require(model.prior(pixels: p.pixelCount, maxBytes: budget))
        let truth = try #require(try QualitySearch().search(p, maxBytes: budget))
        #expect(abs(prior.quality - truth.quality) <= 4, "predicted \(prior.quality), found \(truth.quality)")
        #expect(prior.slope < 0)
        // Seeded with the prior, the search still finds exactly the same quality.
        let seeded = try #require(try QualitySearch().search(p, maxBytes: budget, prior: prior))
        #expect(seeded.quality == truth.quality)
    }
}

@Suite struct SSIMReferenceTests {
    /// scikit-image's formula evaluated window by window in Double, the slow obvious way.
    static func reference(_ x: [UInt8], _ y: [UInt8], width w: Int, height h: Int) -> Double {
        let c1 = pow(0.01 * 255, 2.0), c2 = pow(0.03 * 255, 2.0)
        var total = 0.0
        for r in 0...(h - 7) {
            for c in 0...(w - 7) {
                var sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0
                for i in 0..<7 {
                    for j in 0..<7 {
                        let a = Double(x[(r + i) * w + c + j]), b = Double(y[(r + i) * w + c + j])
                        sx += a; sy += b; sxx += a * a; syy += b * b; sxy += a * b
                    }
                }
                let mx = sx / 49, my = sy / 49
                let vx = (sxx - 49 * mx * mx) / 48, vy = (syy - 49 * my * my) / 48, vxy = (sxy - 49 * mx * my) / 48
                total += (2 * mx * my + c1) * (2 * vxy + c2) / ((mx * mx + my * my + c1) * (vx + vy + c2))
            }
        }
        return total / Double((w - 6) * (h - 6))
    }

    @Test func integerWindowSumsMatchTheDirectFormula() throws {
        let image = try Resizer.resize(try #require(RateModelTests.photo), width: 160, height: 120)
        let worse = try JPEGDecoder.decode(try JPEGEncoder().encode(image, quality: 30)).pixels
        let x = SSIM.luma(image), y = SSIM.luma(worse)
        let fast = SSIM.mean(x, y, width: 160, height: 120, threads: 1)
        let slow = Self.reference(x, y, width: 160, height: 120)
        #expect(abs(fast - slow) < 1e-5, "\(fast) vs \(slow)")
    }

    @Test func twoBandsAddUpToOne() throws {
        let image = try #require(RateModelTests.photo)  // large enough to be split
        let worse = try JPEGDecoder.decode(try JPEGEncoder().encode(image, quality: 30)).pixels
        let x = SSIM.luma(image), y = SSIM.luma(worse)
        let one = SSIM.mean(x, y, width: image.width, height: image.height, threads: 1)
        let two = SSIM.mean(x, y, width: image.width, height: image.height, threads: 2)
        #expect(abs(one - two) < 1e-9 && one < 0.99)
    }
}

import Glibc
import Testing
@testable import MediaPrep

@Suite struct ResizeTests {
    /// Two slice threads give one thread's pixels, every time: swscale's SIMD output runs past a row's
    /// end, and the row that starts the second slice was sometimes clobbered by the first slice's
    /// last row (4 pixels of row 800 in 20 of 60 runs of a 1350×2400 → 900×1600 resize).
    @Test func sliceThreadsGiveOneThreadsPixelsEveryTime() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        let big = try Resizer.resize(photo, width: 1350, height: 2400, threads: 1)  // a portrait, as the failing case
        for (w, h) in [(900, 1600), (1000, 1778), (720, 1280)] {
            for image in [big, big.grayscale()] {
                let one = try Resizer.resize(image, width: w, height: h, threads: 1).bytes
                var differing = 0
                for _ in 0..<12 where try Resizer.resize(image, width: w, height: h, threads: 2).bytes != one { differing += 1 }
                #expect(differing == 0, "\(image.layout) \(w)×\(h)")
            }
        }
    }

    /// A candidate scaled straight into JPEG's planes, band by band on one or two threads, holds the
    /// bytes of scaling to RGB and converting the whole image: 4:2:0 and 4:4:4, heights that end in a
    /// short band or an odd row, RGBX input; gray falls back to the two steps.
    @Test func resizingIntoPlanesGivesTheConvertedResize() throws {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels  // 1440×1080
        var rgbx = [UInt8](repeating: 255, count: photo.pixelCount * 4)
        for i in 0..<photo.pixelCount {
            for c in 0..<3 { rgbx[4 * i + c] = photo.bytes[3 * i + c] }
        }
        let padded = try PixelBuffer(width: photo.width, height: photo.height, layout: .rgbx, bytes: rgbx)
        for image in [photo, padded, photo.grayscale()] {
            for (w, h) in [(1000, 750), (1001, 751), (1280, 77), (1440, 1081)] {
                for full in [false, true] {
                    let expected = try JPEGEncoder().planes(try Resizer.resize(image, width: w, height: h), fullChroma: full)
                    for threads in [1, 2] {
                        let got = try Resizer.resizeToPlanes(image, width: w, height: h, fullChroma: full, threads: threads)
                        let same: Bool = got.storage == expected.storage && got.strides == expected.strides  // no megabytes printed
                        #expect(same, "\(image.layout) \(w)×\(h) full chroma \(full), \(threads) threads")
                    }
                }
            }
        }
    }

    /// Every channel of a colour resize is its own plane scaled as gray, nothing converted (the scale
    /// runs in `Resizer.identity`), and each band, split into planes from only the source rows its
    /// taps reach (`BandedScale.sourceRows`), gives the rows one scale of the whole image gives: at
    /// ratios from almost none to 23, and enlarged, on one thread and two.
    @Test(arguments: [PixelLayout.rgb, .rgbx, .rgba])
    func eachChannelIsScaledAsGrayFromTheRowsItReaches(layout: PixelLayout) throws {
        let (w, h) = (613, 977)
        var seed: UInt32 = 5
        var bytes = [UInt8](repeating: 0, count: w * h * layout.channels)
        for i in bytes.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let (x, y, c) = (i / layout.channels % w, i / layout.channels / w, i % layout.channels)
            bytes[i] = UInt8(truncatingIfNeeded: (x * (c + 1) + y * (3 - c)) / 3 + Int(seed >> 28))
        }
        let image = try PixelBuffer(width: w, height: h, layout: layout, bytes: bytes)
        let kept = layout == .rgba ? 4 : 3
        let channels = try (0..<kept).map { c in
            try PixelBuffer(width: w, height: h, layout: .gray, bytes: stride(from: c, to: bytes.count, by: layout.channels).map { bytes[$0] })
        }
        for (tw, th) in [(600, 960), (307, 489), (97, 150), (40, 64), (27, 43), (700, 1100)] {
            let whole = try Self.planarScale(image, width: tw, height: th)
            for threads in [1, 2] {
                let scaled = try Resizer.resize(image, width: tw, height: th, threads: threads)
                #expect(scaled.layout.channels == kept)
                for c in 0..<kept {
                    let got = stride(from: c, to: scaled.bytes.count, by: kept).map { scaled.bytes[$0] }
                    #expect(got == Array(whole[c]), "\(layout) \(tw)×\(th) channel \(c), \(threads) threads")
                    #expect(got == (try Resizer.resize(channels[c], width: tw, height: th, threads: 1)).bytes)
                }
            }
        }
    }

    /// `image` split into planes whole and scaled in one call, each plane (R, G, B, A order) apart.
    static func planarScale(_ image: PixelBuffer, width tw: Int, height th: Int) throws -> [ArraySlice<UInt8>] {
        let kept = image.layout == .rgba ? 4 : 3
        let split = PlanarRows(width: image.width, planes: kept)
        image.bytes.withUnsafeBufferPointer { p in
            if let base = p.baseAddress { split.fill(from: base, rowBytes: image.rowBytes, channels: image.layout.channels, rows: image.height) }
        }
        let format = Resizer.identity(planes: kept)
        let scaler = try Scaler(util: FFmpegLibraries.util(), image.width, image.height, format, tw, th, format, flags: Resizer.flags)
        var out = [UInt8](repeating: 0, count: tw * th * kept + 64)
        try out.withUnsafeMutableBufferPointer { o in
            try scaler.scaleFrame(split.planes(firstRow: 0), image.width, image.height, format,
                                  into: Scaler.planar(o.baseAddress, width: tw, height: th, planes: kept), tw, th, format)
        }
        let planes = (0..<kept).map { out[($0 * tw * th)..<(($0 + 1) * tw * th)] }  // G, B, R, A
        return kept == 4 ? [planes[2], planes[0], planes[1], planes[3]] : [planes[2], planes[0], planes[1]]
    }

    /// Each band of a planar scale reads only the source rows `BandedScale.sourceRows` gives: every
    /// other row of the planes is unmapped (a read there would end the run), over ratios from 0.7 to
    /// 23 either way, three and four planes, Lanczos and bicubic, bands of 16 and 64 rows. (A C
    /// harness forking a process a scale went over 4,312 such scales, sources up to 2820×1763.)
    @Test func eachBandReadsOnlyTheRowsItsTapsReach() throws {
        let util = try FFmpegLibraries.util()
        for (sw, sh) in [(613, 977), (2000, 150), (150, 2000)] {
            let rowStride = 4096
            let bytes = rowStride * sh * 4
            guard let map = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), map != MAP_FAILED else {
                Issue.record("no memory to map")
                return
            }
            defer { munmap(map, bytes) }
            let base = map.assumingMemoryBound(to: UInt8.self)
            base.initialize(repeating: 90, count: bytes)
            var out = [UInt8](repeating: 0, count: 4 * 64 * 4096 + 64)
            for rw in [1.0, 2.7, 11, 23] {
                for rh in [0.7, 1, 1.5, 2.7, 5.5, 11, 23] {
                    let (dw, dh) = (max(1, Int((Double(sw) / rw).rounded())), max(1, Int((Double(sh) / rh).rounded())))
                    if (dw, dh) == (sw, sh) { continue }  // no scale: `Resizer.resize` hands the source back
                    #expect(Resizer.scalesPlanes(.rgb, from: (sw, sh), to: (dw, dh)))
                    for (planes, filter, band) in [(3, Resizer.Filter.lanczos, 64), (4, .lanczos, 16), (3, .bicubic, 16)] {
                        let format = Resizer.identity(planes: planes)
                        let scaler = try Scaler(util: util, sw, sh, format, dw, dh, format, flags: filter.flags)
                        let source = Scaler.planar(base, width: sw, height: sh, planes: planes, stride: rowStride)
                        for y in stride(from: 0, to: dh, by: band) {
                            let rows = y..<min(dh, y + band)
                            let reads = BandedScale.sourceRows(for: rows, source: (sw, sh), output: (dw, dh))
                            mprotect(map, bytes, PROT_NONE)
                            for p in 0..<planes { mprotect(base + (p * sh + reads.lowerBound) * rowStride, reads.count * rowStride, PROT_READ) }
                            defer { mprotect(map, bytes, PROT_READ | PROT_WRITE) }
                            do {
                                try out.withUnsafeMutableBufferPointer { o in
                                    let into = Scaler.planar(o.baseAddress, width: dw, height: rows.count, planes: planes, stride: (dw + 63) / 64 * 64 + 64)
                                    try scaler.scaleRows(source, sw, sh, format, into: into, rows: rows, dw, dh, format, context: 0)
                                }
                            } catch {
                                Issue.record("\(sw)×\(sh) → \(dw)×\(dh) planes \(planes) \(filter) rows \(rows) reads \(reads): \(error)")
                                return
                            }
                        }
                    }
                }
            }
        }
        #expect(BandedScale.sourceRows(for: 0..<64, source: (5120, 2880), output: (1600, 900)) == 0..<232)
        #expect(BandedScale.sourceRows(for: 896..<900, source: (5120, 2880), output: (1600, 900)).upperBound == 2880)
    }

    /// Past a ratio of 24 either way swscale may cascade (through a 4:2:0 image in between, read from
    /// every source row): there a colour scale reads the packed rows, converted by swscale, as before
    /// planes. A flat colour stays that colour (within swscale's rounding), and two threads give one's pixels.
    @Test func aRatioWhereSwscaleCascadesScalesThePackedRows() throws {
        #expect(!Resizer.scalesPlanes(.rgb, from: (4100, 40), to: (16, 40)))
        #expect(!Resizer.scalesPlanes(.rgba, from: (600, 30000), to: (8, 384)))
        #expect(Resizer.scalesPlanes(.rgb, from: (5120, 2880), to: (1600, 900)))
        #expect(!Resizer.scalesPlanes(.gray, from: (5120, 2880), to: (1600, 900)))
        let (w, h) = (4100, 40)
        let flat = try PixelBuffer(width: w, height: h, layout: .rgb, bytes: (0..<(w * h)).flatMap { _ in [200, 40, 90] as [UInt8] })
        let scaled = try Resizer.resize(flat, width: 16, height: 40, threads: 2)
        // swscale's RGB → YUV → RGB may round a level off, as before planes
        #expect(zip(scaled.bytes, (0..<scaled.bytes.count).map { [200, 40, 90][$0 % 3] as UInt8 }).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        let bytes = (0..<(w * h * 3)).map { UInt8(truncatingIfNeeded: $0 / 3 % w * 7 + $0 / 3 / w * 5 + $0 % 3 * 40) }
        let image = try PixelBuffer(width: w, height: h, layout: .rgb, bytes: bytes)
        #expect(try Resizer.resize(image, width: 16, height: 40, threads: 1) == Resizer.resize(image, width: 16, height: 40, threads: 2))
    }

    @Test(arguments: [PixelLayout.gray, .rgb, .rgba])
    func flatColorStaysFlat(layout: PixelLayout) throws {
        let value: [UInt8] = [200, 40, 90, 255]
        var bytes: [UInt8] = []
        for _ in 0..<(300 * 200) { bytes += value.prefix(layout.channels) }
        let src = try PixelBuffer(width: 300, height: 200, layout: layout, bytes: bytes)
        let out = try Resizer.resize(src, width: 97, height: 61)
        #expect(out.width == 97 && out.height == 61 && out.layout == layout)
        let maxError = zip(out.bytes, bytes.prefix(out.bytes.count)).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(maxError <= 1)
    }

    @Test func downscaleKeepsQuadrants() throws {
        let d = try PNGDecoder.decode(try Fixture.bytes("rgb.png"))
        let half = try Resizer.resize(d.pixels, width: 32, height: 24)
        let red = half.rgba(x: 4, y: 3), white = half.rgba(x: 28, y: 21)
        #expect(red.r > 250 && red.g < 5 && red.b < 5)
        #expect(white.r > 250 && white.g > 250 && white.b > 250)
    }

    @Test func gradientStaysMonotonic() throws {
        var bytes: [UInt8] = []
        for _ in 0..<64 { for x in 0..<256 { bytes.append(UInt8(x)) } }
        let src = try PixelBuffer(width: 256, height: 64, layout: .gray, bytes: bytes)
        let out = try Resizer.resize(src, width: 100, height: 25)
        let row = Array(out.bytes[(12 * 100)..<(13 * 100)])
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(row.first! < 5 && row.last! > 250)
    }

    @Test func fitNeverUpscales() {
        #expect(Resizer.fit(width: 5120, height: 2880, maxSide: 1600) == (1600, 900))
        #expect(Resizer.fit(width: 100, height: 3000, maxSide: 1600) == (53, 1600))
        #expect(Resizer.fit(width: 800, height: 600, maxSide: 1600) == (800, 600))
        #expect(Resizer.fit(width: 10_000, height: 1, maxSide: 100) == (100, 1))
    }

    @Test func mismatchedPixelBufferIsAnErrorNotACrash() {
        #expect(throws: MediaPrepError.self) { try PixelBuffer(width: 4, height: 4, layout: .rgb, bytes: [1, 2, 3]) }
        #expect(throws: MediaPrepError.self) { try PixelBuffer(width: 0, height: 4, layout: .gray, bytes: []) }
    }

    @Test func zeroSizeIsAnError() throws {
        let src = try PixelBuffer(width: 2, height: 2, layout: .gray, bytes: [0, 0, 0, 0])
        #expect(throws: MediaPrepError.self) { try Resizer.resize(src, width: 0, height: 5) }
    }
}

/// Scaling rows as the PNG decoder hands them over gives exactly what scaling the decoded image does.
@Suite struct DecodeWhileResizingTests {
    static func png(_ layout: PixelLayout, opaque: Bool = false) throws -> [UInt8] {
        let photo = try JPEGDecoder.decode(try Fixture.bytes("photo.jpg")).pixels
        let rgb = try Resizer.resize(photo, width: 700, height: 525)
        switch layout {
        case .gray:
            return try PNGEncoder.encode(PixelBuffer(width: 700, height: 525, layout: .gray, storage: SSIM.luma(rgb)))
        case .rgba:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(700 * 525 * 4)
            for i in 0..<(700 * 525) {
                bytes += rgb.bytes[(i * 3)..<(i * 3 + 3)]
                bytes.append(opaque ? 255 : UInt8((i % 700) * 255 / 699))  // a left-to-right fade
            }
            return try PNGEncoder.encode(PixelBuffer(width: 700, height: 525, layout: .rgba, storage: bytes))
        default:
            return try PNGEncoder.encode(rgb)
        }
    }

    @Test(arguments: [(PixelLayout.rgb, false), (.rgba, false), (.rgba, true), (.gray, false)])
    func sameAsResizingAfterwards(layout: PixelLayout, opaque: Bool) throws {
        let data = try Self.png(layout, opaque: opaque)
        let r = try #require(try PNGDecoder.decodeWhileResizing(data, options: DecodeOptions()) { _, _ in (333, 250) })
        let scaler = try #require(r.scaled)
        let work = AlphaOps.droppingOpaqueAlpha(r.decoded.pixels)
        #expect((work.layout == .rgbx) == opaque)
        let expected = try Resizer.resize(work, width: 333, height: 250, threads: 2)
        let got = try scaler.pixels(keepAlpha: work.layout == .rgba)
        #expect(got == expected)
        #expect(r.decoded.pixels == (try PNGDecoder.decode(data).pixels))
    }

    /// A decoder done first takes half the rows still to scale over (`PackingSliceResizer.takeOver`):
    /// whenever it steps in, the rows come out as one resizer makes them, in every layout.
    @Test(arguments: [PixelLayout.rgb, .rgba, .gray])
    func aTakeOverGivesTheSamePixels(layout: PixelLayout) throws {
        let image = try PNGDecoder.decode(try Self.png(layout)).pixels  // 700×525
        let expected = try Resizer.resize(image, width: 333, height: 250, threads: 2)
        var tookOver = 0
        for fedBands in [0, 1, 3, 6, 9, 12, 17] {
            let r = try PackingSliceResizer(width: 700, height: 525, layout: layout, toWidth: 333, height: 250, band: RowPipeline.band)
            let rowBytes = 700 * layout.channels
            let source = Resizer.withSlack(image)
            try source.withUnsafeBufferPointer { s in
                let base = try #require(s.baseAddress)
                var y = 0
                func band() throws {
                    let n = min(RowPipeline.band, 525 - y)
                    try r.feed(base + y * rowBytes, count: n)
                    y += n
                }
                for _ in 0..<fedBands where y < 525 { try band() }
                let took = try r.takeOver(from: base, minimumRows: 1)
                while y < 525 && !r.reachedLimit { try band() }
                if took { r.tookOverRest(); tookOver += 1 }
            }
            #expect(try r.pixels() == expected, "after \(fedBands) bands")
        }
        #expect(tookOver >= 5)  // not once every row is fed, nor with less than a ring of rows left
    }

    /// A kept PNG's preview starts from pixels scaled beside its decode: with the filter the
    /// preview's first pass would use afterwards (bicubic from 768 px on), so the same pixels.
    @Test func previewFirstPassBesideTheDecodeIsTheSame() throws {
        var bytes = [UInt8]()
        for i in 0..<(900 * 500) {
            let x = i % 900, y = i / 900
            bytes += [UInt8(i % 251), UInt8(y % 256), UInt8(i * 7 % 256), UInt8(x * 255 / 899)]
        }
        let wide = PixelBuffer(width: 900, height: 500, layout: .rgba, storage: bytes)
        let data = try PNGEncoder.encode(wide)
        #expect(PreviewMaker.firstFilter(width: 900, height: 500) == .bicubic)
        #expect(PreviewMaker.firstFilter(width: 700, height: 500) == .lanczos)
        let r = try #require(try PNGDecoder.decodeWhileResizing(data, options: DecodeOptions(), filter: PreviewMaker.firstFilter) { w, h in
            PreviewMaker.firstSize(width: w, height: h)
        })
        let top = PreviewMaker.firstSize(width: 900, height: 500)
        let got = try #require(r.scaled).pixels(keepAlpha: true)
        #expect(got == (try Resizer.resize(wide, width: top.width, height: top.height, filter: .bicubic)))
        #expect(got != (try Resizer.resize(wide, width: top.width, height: top.height)))
    }

    @Test(arguments: [PixelLayout.rgb, .rgba, .gray], [1, 2])
    func shrinkingOnLoadScalesAsTheWholeImageWould(layout: PixelLayout, threads: Int) throws {
        let data = try Self.png(layout, opaque: false)
        let whole = try PNGDecoder.decode(data).pixels
        let shrunk = (width: whole.width * 3 / 5, height: whole.height * 3 / 5)
        let r = try #require(try PNGDecoder.decodeShrinking(data, options: DecodeOptions(), threads: threads) { w, h in
            #expect((w, h) == (whole.width, whole.height))
            return (shrunk, (333, 250))
        })
        // The source size is the file's, the pixels the shrunk ones, the view as if scaled afterwards.
        #expect((r.decoded.sourceWidth, r.decoded.sourceHeight) == (whole.width, whole.height))
        #expect(r.decoded.pixels == (try Resizer.resize(whole, width: shrunk.width, height: shrunk.height, threads: 2)))
        let view = try #require(r.scaled)
        #expect(try view.pixels() == (try Resizer.resize(whole, width: 333, height: 250, threads: 2)))
        // Nothing asked for: the caller decodes as before.
        #expect(try PNGDecoder.decodeShrinking(data, options: DecodeOptions()) { _, _ in nil } == nil)
        // A damaged band stops it.
        var damaged = data
        let idat = try #require(PNGChunks.chunks(data).first { $0.type == "IDAT" })
        damaged[idat.body.lowerBound + 5000] ^= 0x55
        #expect(throws: MediaPrepError.self) {
            try PNGDecoder.decodeShrinking(damaged, options: DecodeOptions(), threads: threads) { _, _ in (shrunk, nil) }
        }
        let cut = Array(data.prefix(idat.body.lowerBound + 30_000))
        #expect(throws: MediaPrepError.self) {
            try PNGDecoder.decodeShrinking(cut, options: DecodeOptions(), threads: threads) { _, _ in (shrunk, (333, 250)) }
        }
    }

    /// A JPEG shrunk on load for what is sent is read whole and halved by Lanczos as its rows come,
    /// not by libjpeg's scaled IDCT: a gray file's pixels are those of halving its whole decode
    /// afterwards; a colour file's luma is halved from its Y plane and its 4:2:0 chroma taken as it
    /// is, so its luma (what the search and the score see) is that of halving the RGB, up to
    /// rounding, and its colours within a level or two. One thread or two, the same pixels.
    @Test(arguments: ["photo.jpg", "progressive.jpg", "gray.jpg"], [1, 2])
    func jpegShrunkOnLoadIsHalvedByLanczos(name: String, threads: Int) throws {
        var (data, whole, half, options) = try Self.halving(name, threads: threads)
        options.lanczosShrink = false
        let dct = try JPEGDecoder.decode(data, options: options).pixels
        options.lanczosShrink = true
        let got = try JPEGDecoder.decode(data, options: options)
        #expect((got.sourceWidth, got.sourceHeight) == (whole.width, whole.height))
        let expected = try Resizer.resize(whole, width: half.width, height: half.height, threads: 2)
        var one = options
        one.threads = 1
        #expect(got.pixels == (try JPEGDecoder.decode(data, options: one).pixels))
        if whole.layout == .gray {
            #expect(got.pixels == expected)
        } else {
            let (a, b) = (SSIM.luma(got.pixels), SSIM.luma(expected))
            let lumaError = zip(a, b).map { abs(Int($0) - Int($1)) }
            #expect(Double(lumaError.reduce(0, +)) / Double(a.count) < 0.6 && (lumaError.max() ?? 0) <= 4,
                    "luma: mean \(Double(lumaError.reduce(0, +)) / Double(a.count)), max \(lumaError.max() ?? 0)")
            let rgbError = zip(got.pixels.bytes, expected.bytes).map { abs(Int($0) - Int($1)) }
            #expect(Double(rgbError.reduce(0, +)) / Double(rgbError.count) < 2, "RGB mean \(Double(rgbError.reduce(0, +)) / Double(rgbError.count))")
        }
        // Nearer the halved whole image than the scaled IDCT is.
        let dctLuma = zip(SSIM.luma(dct), SSIM.luma(expected)).map { abs(Int($0) - Int($1)) }.reduce(0, +)
        let gotLuma = zip(SSIM.luma(got.pixels), SSIM.luma(expected)).map { abs(Int($0) - Int($1)) }.reduce(0, +)
        #expect(gotLuma < dctLuma, "\(gotLuma) against the scaled IDCT's \(dctLuma)")
        // A cut file stops it as it stops the usual decode.
        #expect(throws: MediaPrepError.self) {
            try JPEGDecoder.decode(Array(data.prefix(data.count * 2 / 3)), options: options)
        }
    }

    /// A colour JPEG halved from its planes converts them to RGB a band at a time, and may scale the
    /// view and make the climb's candidates' planes beside the decode: every one of them the bytes
    /// the search would make from the whole halved image (`Resizer.resize`, `resizeToPlanes`), sizes
    /// that end in a short MCU row or an odd row, and the halved image's own size.
    @Test(arguments: ["photo.jpg", "progressive.jpg"], [1, 2])
    func viewAndCandidatesMadeBesideTheDecodeAreTheSearchsOwn(name: String, threads: Int) throws {
        let (data, _, half, options) = try Self.halving(name, threads: threads)
        let halved = try JPEGDecoder.decode(data, options: options).pixels
        let candidates = [(5, 6), (8, 9)].map { n, d in
            ClimbSize(long: half.width * n / d | 1, width: half.width * n / d | 1, height: half.height * n / d | 1)
        } + [ClimbSize(long: half.width, width: half.width, height: half.height)]
        let v = (width: half.width * 2 / 3, height: half.height * 2 / 3)
        let r = try JPEGDecoder.decodeWhileResizing(data, options: options, candidates: candidates) { _, _ in v }
        #expect(r.decoded.pixels == halved)
        let view = try #require(r.scaled)
        #expect(try view.pixels(keepAlpha: false) == (try Resizer.resize(halved, width: v.width, height: v.height)))
        #expect(r.planes.count == candidates.count)
        for c in candidates {
            let got = try #require(r.planes[c.long])
            let expected = try Resizer.resizeToPlanes(halved, width: c.width, height: c.height, fullChroma: false)
            let same: Bool = got.storage == expected.storage && got.strides == expected.strides  // no megabytes printed
            #expect(same, "\(c.width)×\(c.height)")
        }
        // A cut file stops every side of it.
        #expect(throws: MediaPrepError.self) {
            try JPEGDecoder.decodeWhileResizing(Array(data.prefix(data.count * 2 / 3)), options: options, candidates: candidates) { _, _ in v }
        }
    }

    /// Which JPEGs have the view and the candidates made beside their decode: a dense file the budget
    /// cannot hold at its decoded size (noise at q95), not a smooth one, not one read at a quarter.
    @Test func denseFilesHaveTheirViewScaledBesideTheDecode() throws {
        let (w, h) = (1200, 800)
        var noise = [UInt8](repeating: 0, count: w * h * 3), ramp = noise
        var seed: UInt32 = 11
        for i in 0..<(w * h) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            for c in 0..<3 { noise[i * 3 + c] = UInt8(truncatingIfNeeded: seed >> (8 + 8 * UInt32(c))) }
            ramp[i * 3] = UInt8(i % w * 255 / (w - 1))
            ramp[i * 3 + 1] = UInt8(i / w * 255 / (h - 1))
        }
        let view = (width: 500, height: 333)
        func verdicts(_ bytes: [UInt8], minimum: (Int, Int)) throws -> (view: Bool, candidates: Bool) {
            let jpeg = try JPEGEncoder().encode(PixelBuffer(width: w, height: h, layout: .rgb, storage: bytes), quality: 95)
            let src = try JPEGSource(jpeg)
            let options = DecodeOptions(minimumWidth: minimum.0, minimumHeight: minimum.1)
            return (JPEGDecoder.scalesView(src.header, fileBytes: jpeg.count, maxBytes: 100_000, options: options, view: view),
                    JPEGDecoder.leavesScalerIdle(src.header, fileBytes: jpeg.count))
        }
        #expect(try verdicts(noise, minimum: (600, 400)) == (true, true))
        #expect(try verdicts(ramp, minimum: (600, 400)) == (false, false))
        #expect(try verdicts(noise, minimum: (300, 200)).view == false)  // read at a quarter
    }

    /// A fixture, its whole decode, half its size, and the options that read it halved by Lanczos.
    static func halving(_ name: String, threads: Int) throws
        -> (data: [UInt8], whole: PixelBuffer, half: (width: Int, height: Int), options: DecodeOptions) {
        let data = try Fixture.bytes(name)
        let whole = try JPEGDecoder.decode(data).pixels
        let half = (width: (whole.width + 1) / 2, height: (whole.height + 1) / 2)
        var options = DecodeOptions(minimumWidth: half.width, minimumHeight: half.height)
        (options.lanczosShrink, options.threads) = (true, threads)
        return (data, whole, half, options)
    }

    /// Lanczos halving is for files that hold fine detail: noise at q90 does, a smooth gradient
    /// does not, not even at q100 (whose quantisation is counted: the same bytes say less there).
    @Test func fineDetailIsToldFromTheFileItself() throws {
        var noise: [UInt8] = [], ramp: [UInt8] = []
        var seed: UInt32 = 7
        for y in 0..<600 {
            for x in 0..<800 {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                noise += [UInt8(truncatingIfNeeded: seed >> 24), UInt8(truncatingIfNeeded: seed >> 16), UInt8(truncatingIfNeeded: seed >> 8)]
                ramp += [UInt8(x * 255 / 799), UInt8(y * 255 / 599), 128]
            }
        }
        func verdict(_ bytes: [UInt8], quality: Int) throws -> Bool {
            let jpeg = try JPEGEncoder().encode(PixelBuffer(width: 800, height: 600, layout: .rgb, storage: bytes), quality: quality)
            let src = try JPEGSource(jpeg)
            return JPEGDecoder.holdsFineDetail(src, fileBytes: jpeg.count)
        }
        #expect(try verdict(noise, quality: 90))
        #expect(try !verdict(ramp, quality: 90))
        #expect(try !verdict(ramp, quality: 100))
        let q90 = try JPEGSource(try JPEGEncoder().encode(PixelBuffer(width: 800, height: 600, layout: .rgb, storage: ramp), quality: 90))
        #expect(q90.lumaQuantisation == 11.5)  // libjpeg's table at q90
    }

    @Test(arguments: ["photo.jpg", "progressive.jpg", "gray.jpg"])
    func jpegScanlinesScaleAsTheDecodedImageDoes(name: String) throws {
        let data = try Fixture.bytes(name)
        let whole = try JPEGDecoder.decode(data).pixels
        let size = (width: max(1, whole.width * 2 / 5), height: max(1, whole.height * 2 / 5))
        let r = try JPEGDecoder.decodeWhileResizing(data, options: DecodeOptions()) { _, _ in size }
        let scaler = try #require(r.scaled)
        #expect(r.decoded.pixels == whole)
        #expect(try scaler.pixels() == (try Resizer.resize(whole, width: size.width, height: size.height, threads: 2)))
    }

    @Test func aDamagedFileStopsBothSides() throws {
        var data = try Self.png(.rgb)
        let idat = try #require(PNGChunks.chunks(data).first { $0.type == "IDAT" })
        data[idat.body.lowerBound + 5000] ^= 0x55
        #expect(throws: MediaPrepError.self) {
            try PNGDecoder.decodeWhileResizing(data, options: DecodeOptions()) { _, _ in (333, 250) }
        }
        let cut = Array(try Self.png(.rgb).prefix(idat.body.lowerBound + 30_000))
        #expect(throws: MediaPrepError.self) {
            try PNGDecoder.decodeWhileResizing(cut, options: DecodeOptions()) { _, _ in (333, 250) }
        }
        let jpeg = try Fixture.bytes("photo.jpg")
        let truncated = Array(jpeg.prefix(jpeg.count / 2))
        do {
            _ = try JPEGDecoder.decodeWhileResizing(truncated, options: DecodeOptions()) { _, _ in (300, 225) }
            Issue.record("half a JPEG decoded")
        } catch let e as MediaPrepError {
            #expect(e.code == .truncated)
        }
    }
}

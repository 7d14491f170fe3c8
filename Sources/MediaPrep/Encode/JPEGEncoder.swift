import CJpeg
import FoundationEssentials
import Glibc

/// JPEG through libjpeg's API with optimized Huffman tables (~5 % smaller at no visible cost, half a
/// progressive encode's time; TurboJPEG 2.1 offers them only through a process-wide environment
/// variable), and TurboJPEG's colour conversion to YUV planes. A class owning one tjhandle (not
/// thread-safe, hence not Sendable): each thread of a parallel search makes its own.
package final class JPEGEncoder {
    private let handle: TurboJPEGHandle

    package init() throws {
        handle = try TurboJPEGHandle(.compress)
    }

    /// What TurboJPEG is handed: alpha flattened on white, gray kept one channel, 4:2:0 chroma otherwise.
    private static func input(_ image: PixelBuffer) -> (PixelBuffer, TJPF, TJSAMP) {
        let src = image.layout == .rgba ? AlphaOps.flattenOnWhite(image) : image
        switch src.layout {
        case .gray: return (src, TJPF_GRAY, TJSAMP_GRAY)
        case .rgbx: return (src, TJPF_RGBX, TJSAMP_420)
        default: return (src, TJPF_RGB, TJSAMP_420)
        }
    }

    /// Encodes with 4:2:0 chroma (gray stays one channel); output carries JFIF only, no metadata.
    package func encode(_ image: PixelBuffer, quality: Int, progressive: Bool = false) throws -> [UInt8] {
        let (src, _, _) = Self.input(image)
        let q = Int32(min(100, max(1, quality)))
        return try Self.collect { out, message, length in
            src.bytes.withUnsafeBufferPointer { p in
                cjpeg_encode_pixels(p.baseAddress, Int32(src.rowBytes), Int32(src.width), Int32(src.height), Int32(src.layout.channels),
                                    q, progressive ? 1 : 0, out, message, length)
            }
        }
    }

    /// Runs one libjpeg encode and copies out what it wrote (freed on every path).
    private static func collect(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<CChar>, Int32) -> Int)
        throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var message = [CChar](repeating: 0, count: 200)
        let size = message.withUnsafeMutableBufferPointer { m in
            m.baseAddress.map { encode(&out, $0, Int32(m.count)) } ?? -1
        }
        defer { free(out) }
        guard size > 0, let out else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MediaPrepError(.encodeFailed, "JPEG encoding failed: \(text)")
        }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Color-converts and downsamples once, exactly as `encode` would, so a quality search
    /// can compress the same planes many times without redoing that work.
    /// - Parameter fullChroma: 4:4:4 instead of 4:2:0 (saturated colours keep their edges).
    package func planes(_ image: PixelBuffer, fullChroma: Bool = false) throws -> YUVPlanes {
        var (src, format, subsampling) = Self.input(image)
        if fullChroma && subsampling == TJSAMP_420 { subsampling = TJSAMP_444 }
        var yuv = YUVPlanes(width: src.width, height: src.height, subsampling: subsampling)
        let rc = src.bytes.withUnsafeBufferPointer { p in
            yuv.withPlanePointers { planes, strides in
                JPEGLibrary.turbo.tjEncodeYUVPlanes(handle.raw, p.baseAddress, Int32(src.width), Int32(src.rowBytes), Int32(src.height),
                                  Int32(format.rawValue), planes, strides, Int32(subsampling.rawValue), TJFLAG_ACCURATEDCT)
            }
        }
        guard rc == 0 else { throw MediaPrepError(.encodeFailed, "YUV conversion failed: \(handle.lastError)") }
        return yuv
    }

    /// Converts `rows` rows of packed RGB into `planes` from image row `y` on (a multiple of 16, so
    /// the band is one of whole MCU rows): what `planes(_:)` writes for those rows, byte for byte.
    func convert(rgb: UnsafePointer<UInt8>, rowBytes: Int, width: Int, rows: Int, y: Int, into planes: YUVPlanes.Writer) throws {
        var pointers: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil]
        for c in 0..<planes.bases.count {
            let before = y == 0 ? 0 : Int(JPEGLibrary.turbo.tjPlaneHeight(Int32(c), Int32(y), Int32(planes.subsampling.rawValue)))
            pointers[c] = planes.bases[c] + before * Int(planes.strides[c])
        }
        var strides = planes.strides + Array(repeating: 0, count: 3 - planes.strides.count)
        let rc = JPEGLibrary.turbo.tjEncodeYUVPlanes(handle.raw, rgb, Int32(width), Int32(rowBytes), Int32(rows), Int32(TJPF_RGB.rawValue),
                                   &pointers, &strides, Int32(planes.subsampling.rawValue), TJFLAG_ACCURATEDCT)
        guard rc == 0 else { throw MediaPrepError(.encodeFailed, "YUV conversion failed: \(handle.lastError)") }
    }

    /// The measured quality written with its tables, its first and last MCU rows on two threads when
    /// the measure counted them apart (`JPEGMeasure.Split`), joined at the bit (`cjpeg_splice`): the
    /// same bytes as `encode(yuv, quality:tables:)`, which it falls back to. 2000×1250 4:2:0: 3.25 →
    /// 2.0 ms (1.7 the two parts side by side, 0.3 the join).
    func encode(_ yuv: YUVPlanes, measured m: JPEGMeasure, threads: Int) throws -> [UInt8] {
        guard threads > 1, let split = m.split, let data = try Self.encodeSplit(yuv, measured: m, split) else {
            return try encode(yuv, quality: m.quality, tables: m.tables)
        }
        return data
    }

    /// The two parts written side by side and joined, or nil when they cannot be (the caller then
    /// writes the file whole).
    static func encodeSplit(_ yuv: YUVPlanes, measured m: JPEGMeasure, _ split: JPEGMeasure.Split) throws -> [UInt8]? {
        guard (1...100).contains(m.quality) else { return nil }
        let gray: Int32 = yuv.subsampling == TJSAMP_GRAY ? 1 : 0, full: Int32 = yuv.subsampling == TJSAMP_444 ? 1 : 0
        let (w, h, q, rows) = (Int32(yuv.width), Int32(yuv.height), Int32(m.quality), Int32(split.rows))
        let tables = m.tables.raw
        let divisors = try Self.divisorTable.get()[Int(q)]
        let parts = try Parallel.map(2, threads: 2) { part in
            try collect { out, message, length in
                yuv.withReadOnlyPlanePointers { p, strides in
                    withUnsafePointer(to: tables) { cjpeg_encode_part(p, strides, w, h, gray, full, q, $0, rows, Int32(part), out, message, length) }
                }
            }
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var message = [CChar](repeating: 0, count: 200)
        let size = message.withUnsafeMutableBufferPointer { msg in
            yuv.withReadOnlyPlanePointers { p, strides in
                withUnsafePointer(to: tables) { t in
                    withUnsafePointer(to: divisors) { d in
                        cjpeg_splice(parts[0], parts[0].count, parts[1], parts[1].count, p, strides, w, h, gray, full, d, t, rows,
                                     Int64(split.firstBits), Int64(split.totalBits), &out, msg.baseAddress, Int32(msg.count))
                    }
                }
            }
        }
        defer { free(out) }
        guard size > 0, let out else { return nil }
        return Array(UnsafeBufferPointer(start: out, count: size))
    }

    /// Compresses YUV planes (from `planes(_:)` or a resize straight to 4:2:0). With the tables a
    /// `measure` of the same planes and quality found, in one pass: the same bytes as libjpeg's two.
    package func encode(_ yuv: YUVPlanes, quality: Int, progressive: Bool = false, tables: JPEGMeasure.Tables? = nil) throws -> [UInt8] {
        let q = Int32(min(100, max(1, quality))), gray: Int32 = yuv.subsampling == TJSAMP_GRAY ? 1 : 0
        let full: Int32 = yuv.subsampling == TJSAMP_444 ? 1 : 0
        return try Self.collect { out, message, length in
            yuv.withReadOnlyPlanePointers { p, strides in
                func run(_ t: UnsafePointer<cjpeg_tables>?) -> Int {
                    cjpeg_encode_planes(p, strides, Int32(yuv.width), Int32(yuv.height), gray, full, q, progressive ? 1 : 0, t, out, message, length)
                }
                guard let t = tables?.raw else { return run(nil) }
                return withUnsafePointer(to: t) { run($0) }
            }
        }
    }

    /// Qualities measured together: each block's DCT is done once and quantized for every quality
    /// (`cjpeg_multi_rows`), the image's MCU rows split over `threads`. 2000×1250 4:2:0 on one
    /// thread: two qualities 4.3 ms against 5.8 for two of libjpeg's own passes, four 7.3 against
    /// 11.5; one alone 3.1 against 2.9, so a single quality on one thread goes through libjpeg.
    /// - Parameter simd: false takes the plain C path where AVX2 is there too (tests).
    static func measure(_ yuv: YUVPlanes, qualities: [Int], threads: Int, simd: Bool = true) throws -> [JPEGMeasure] {
        if qualities.count == 1 && threads <= 1 && simd { return [try measure(yuv, quality: qualities[0])] }
        let gray: Int32 = yuv.subsampling == TJSAMP_GRAY ? 1 : 0, full: Int32 = yuv.subsampling == TJSAMP_444 ? 1 : 0
        var out: [JPEGMeasure] = []
        for start in stride(from: 0, to: qualities.count, by: Int(CJPEG_MULTI_MAX)) {
            let qs = qualities[start..<min(qualities.count, start + Int(CJPEG_MULTI_MAX))].map { Int32(min(100, max(1, $0))) }
            let table = try Self.divisorTable.get()
            let divisors = qs.map { table[Int($0)] }
            let frame = try Self.frameBytes.get()[Int(gray)]
            var layout = cjpeg_layout()
            cjpeg_layout_of(Int32(yuv.width), Int32(yuv.height), gray, full, &layout)
            let rows = Int(layout.mcu_rows), parts = max(1, min(threads, rows))
            let counted = MultiParts(parts)
            defer { counted.free() }
            _ = try Parallel.map(parts, threads: threads) { p in
                divisors.withUnsafeBufferPointer { d in
                    yuv.withReadOnlyPlanePointers { planes, strides in
                        cjpeg_multi_rows(planes, strides, Int32(yuv.width), Int32(yuv.height), gray, full, d.baseAddress, Int32(d.count),
                                         Int32(rows * p / parts), Int32(rows * (p + 1) / parts), simd ? 1 : 0, counted.parts[p])
                    }
                }
            }
            for (i, q) in qs.enumerated() {
                var tables = cjpeg_tables()
                var lower: Int64 = 0, data: Int64 = 0, total: Int64 = 0, first: Int64 = 0
                try counted.parts.withUnsafeBufferPointer { p in
                    try Self.checked("JPEG measuring failed") { m, n in
                        cjpeg_multi_finish(p.baseAddress, Int32(p.count), Int32(i), gray, frame, &tables, &lower, &data, &total, &first, m, n)
                    }
                }
                let split = parts > 1 ? JPEGMeasure.Split(rows: rows / parts, firstBits: Int(first), totalBits: Int(total)) : nil
                out.append(JPEGMeasure(quality: Int(q), lower: Int(lower), dataBytes: Int(data), tables: .init(raw: tables), split: split))
            }
        }
        return out
    }

    /// Every quality's divisors (`cjpeg_divisor_table`), made the first time a measure needs them.
    private static let divisorTable: Result<[cjpeg_divisors], Error> = Result {
        var table = [cjpeg_divisors](repeating: cjpeg_divisors(), count: 101)
        try table.withUnsafeMutableBufferPointer { t in
            try checked("JPEG quantization tables failed") { m, n in cjpeg_divisor_table(t.baseAddress, m, n) }
        }
        return table
    }

    /// The bytes of a file's headers but its Huffman tables, colour and gray (`cjpeg_frame_bytes`).
    private static let frameBytes: Result<[Int64], Error> = Result {
        try [0, 1].map { gray in
            var n: Int64 = 0
            try checked("JPEG measuring failed") { m, len in cjpeg_frame_bytes(Int32(gray), &n, m, len) }
            return n
        }
    }

    /// Counts of a multi-quality measure, one per range of rows (33 KB each: kept off the stack).
    private final class MultiParts: @unchecked Sendable {
        let parts: [UnsafeMutablePointer<cjpeg_multi_part>?]
        init(_ n: Int) { parts = (0..<n).map { _ in UnsafeMutablePointer<cjpeg_multi_part>.allocate(capacity: 1) } }
        func free() { for p in parts { p?.deallocate() } }
    }

    /// Runs a C call that fills a message and returns nonzero on failure; throws that message.
    private static func checked(_ what: String, _ call: (UnsafeMutablePointer<CChar>?, Int32) -> Int32) throws {
        var message = [CChar](repeating: 0, count: 200)
        let rc = message.withUnsafeMutableBufferPointer { m in call(m.baseAddress, Int32(m.count)) }
        guard rc == 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MediaPrepError(.encodeFailed, "\(what): \(text)")
        }
    }

    /// The baseline file `encode(yuv, quality:)` would write, measured without writing it.
    static func measure(_ yuv: YUVPlanes, quality: Int) throws -> JPEGMeasure {
        let q = Int32(min(100, max(1, quality))), gray: Int32 = yuv.subsampling == TJSAMP_GRAY ? 1 : 0
        let full: Int32 = yuv.subsampling == TJSAMP_444 ? 1 : 0
        var tables = cjpeg_tables()
        var lower: Int64 = 0, data: Int64 = 0
        try checked("JPEG measuring failed") { m, n in
            yuv.withReadOnlyPlanePointers { p, strides in
                cjpeg_measure_planes(p, strides, Int32(yuv.width), Int32(yuv.height), gray, full, q, &tables, &lower, &data, m, n)
            }
        }
        return JPEGMeasure(quality: Int(q), lower: Int(lower), dataBytes: Int(data), tables: .init(raw: tables))
    }
}

/// A quality's cost known before its file is written: libjpeg quantizes, its Huffman symbols are
/// counted instead of coded (a third of an encode: no coefficient buffer, no second pass).
package struct JPEGMeasure: Sendable {
    /// The optimized Huffman tables for these planes at this quality, for the one-pass encode.
    package struct Tables: @unchecked Sendable { let raw: cjpeg_tables }
    let quality: Int
    /// Every byte of the file but the zero bytes stuffed after each 0xFF of its coded data.
    let lower: Int
    /// The coded data's bytes before stuffing.
    let dataBytes: Int
    let tables: Tables
    /// Where a measure split over threads cut the rows, and the coded bits before the cut and in all.
    struct Split: Sendable {
        let rows: Int, firstBits: Int, totalBits: Int
    }
    var split: Split? = nil
    /// The file's expected size: coded data has one 0xFF in 260–580 bytes (photo.jpg at 7 qualities, 4 sizes).
    var expected: Int { lower + dataBytes / Self.stuffingEvery }
    static let stuffingEvery = 300
}


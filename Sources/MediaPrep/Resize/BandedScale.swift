import CFFmpeg

/// A Lanczos scale into planar RGB, a band of output rows at a time, each thread scaling its half of
/// the bands with its own context (`Scaler.scaleRows`) into a band of its own, from the source rows
/// that band reaches split into planes (`PlanarRows`): no planar copy of the whole source or output
/// is ever held. What each band becomes is the caller's (`deliver`).
struct BandedScale: @unchecked Sendable {  // each context and band buffer is used by one thread
    /// Output rows a band: four MCU rows. A band recomputes the source rows its taps reach above it;
    /// at 64 rows that is a few per cent more scaling.
    static let rowsABand = 64
    /// A planar output this small (a preview) is one band a thread, as one whole-frame scale was.
    static let smallOutput = 2 << 20

    /// Output rows of each band: a multiple of 16 (JPEG's MCU rows), for `resizeToPlanes`.
    let bandRows: Int

    let scaler: Scaler
    let util: cff_util
    let source: (width: Int, height: Int, format: AVPixelFormat, rowBytes: Int)
    let width: Int, height: Int
    let planar: (format: AVPixelFormat, planes: Int)
    let threads: Int

    init(_ src: PixelBuffer, width: Int, height: Int, output: PixelLayout, threads maxThreads: Int, filter: Resizer.Filter = .lanczos) throws {
        try self.init(source: (src.width, src.height, src.layout, src.rowBytes), width: width, height: height, output: output,
                      threads: Resizer.threads(src, width: width, height: height, at: maxThreads), filter: filter)
    }

    /// From a source known by its size, layout and row bytes, on `wanted` threads at most.
    init(source src: (width: Int, height: Int, layout: PixelLayout, rowBytes: Int), width: Int, height: Int, output: PixelLayout,
         threads wanted: Int, filter: Resizer.Filter = .lanczos) throws {
        util = try FFmpegLibraries.util()
        source = (src.width, src.height, Resizer.avFormat(src.layout), src.rowBytes)
        (self.width, self.height) = (width, height)
        planar = Resizer.planar(output)
        let perThread = ((height + wanted - 1) / wanted + 15) / 16 * 16
        bandRows = width * height * planar.planes <= Self.smallOutput ? perThread : Self.rowsABand
        threads = max(1, min(wanted, (height + bandRows - 1) / bandRows))
        let chosen = Resizer.scaleFormats(src.layout, output: output, from: (src.width, src.height), to: (width, height))
        (onPlanes, formats) = (chosen.onPlanes, (chosen.from, chosen.to))
        scaler = try Scaler(util: util, source.width, source.height, formats.from, width, height, formats.to, flags: filter.flags, threads: threads)
        channels = src.layout.channels
    }

    /// Whether packed rows are split into planes a band's source rows at a time (`PlanarRows`,
    /// `Resizer.scaleFormats`), or read as they are, converted by swscale.
    let onPlanes: Bool
    /// What swscale is told the source and the scale are.
    let formats: (from: AVPixelFormat, to: AVPixelFormat)
    /// Bytes a source pixel.
    let channels: Int

    /// The source rows output rows `rows` may read, below the ratio where swscale cascades
    /// (`Resizer.scalesPlanes`). Its vertical Lanczos spans at most 1 + 6 × the downscale ratio rows
    /// (three lobes a side; 7 when it enlarges), a few more for SIMD alignment and the 4 lines it
    /// scales ahead, and at the image's edges it shifts the span inside the image: so the span itself,
    /// and some, on either side of each output row's centre. Measured with every other row unmapped
    /// (1440×1080 at ratios 2.7–27, bands of 16 and 64 rows): at most 2.9 ratios below the first
    /// row's centre and 4.8 above the last's; 4,312 scales at ratios 0.5–23.9 stayed inside this.
    static func sourceRows(for rows: Range<Int>, source: (width: Int, height: Int), output: (width: Int, height: Int)) -> Range<Int> {
        let (sh, dh) = (source.height, output.height)
        let ratio = Double(sh) / Double(dh)
        let reach = Int((6 * max(ratio, 1)).rounded(.up)) + 8
        let top = Int(((Double(rows.lowerBound) + 0.5) * ratio - 0.5).rounded(.down)) - reach
        let bottom = Int(((Double(rows.upperBound) - 0.5) * ratio - 0.5).rounded(.up)) + reach + 1
        return max(0, top)..<min(sh, bottom)
    }

    /// As `run`, each band packed first into `format` (RGB24, RGBA) in a buffer of the thread's own:
    /// the consumer gets the packed rows (`rowBytes` apart), their first row and their count.
    func runPacked(_ pixels: UnsafePointer<UInt8>, into format: AVPixelFormat, rowBytes: Int, rows: Range<Int>? = nil,
                   consumer: @Sendable (_ part: Int) throws -> (_ rows: UnsafePointer<UInt8>, _ y: Int, _ count: Int) throws -> Void) throws {
        let (util, planarFormat, width, bandRows) = (util, planar.format, width, bandRows)
        try run(pixels, rows: rows) { part in
            let pack = try Scaler(plain: util, width, bandRows, planarFormat, width, bandRows, format, flags: Resizer.flags)
            let deliver = try consumer(part)
            let packed = BandBuffer(rowBytes * bandRows + 64)
            return { band, y, count in
                try pack.scale(band, y: 0, h: count, into: Scaler.packed(packed.base, stride: rowBytes))
                try deliver(packed.base, y, count)
            }
        }
    }

    /// Scales `pixels` (the source's bytes, with swscale's 64 bytes of slack past the end), handing
    /// each band to the consumer its thread's `consumer(part)` made: (planar band, first row, rows).
    /// Packed sources are split into planes a band's source rows at a time (`sourceRows`).
    /// - Parameter rows: the output rows to make (default all), in bands from its first.
    func run(_ pixels: UnsafePointer<UInt8>, rows wanted: Range<Int>? = nil,
             consumer: @Sendable (_ part: Int) throws -> (_ band: Scaler.Planes, _ y: Int, _ rows: Int) throws -> Void) throws {
        let pixels = SharedPointers(source: pixels, destination: UnsafeMutablePointer(mutating: pixels))
        let made = wanted ?? 0..<height
        let bands = (made.count + bandRows - 1) / bandRows
        let perPart = (bands + threads - 1) / threads
        _ = try Parallel.map(threads, threads: threads) { part in
            let mine = (part * perPart)..<min(bands, (part + 1) * perPart)
            guard !mine.isEmpty else { return }
            let deliver = try consumer(part)
            let stride = (width + 63) / 64 * 64 + 64  // room past each row for swscale's SIMD
            var scaled = [UInt8](repeating: 0, count: stride * bandRows * planar.planes + 64)
            let split = PlanarRows(width: source.width, planes: planar.planes)
            try scaled.withUnsafeMutableBufferPointer { m in
                guard let mb = m.baseAddress else { return }
                let band = Scaler.planar(mb, width: width, height: bandRows, planes: planar.planes, stride: stride)
                for k in mine {
                    let y = made.lowerBound + k * bandRows, rows = min(bandRows, made.upperBound - y)
                    let src: Scaler.Planes
                    if onPlanes {
                        let reads = Self.sourceRows(for: y..<(y + rows), source: (source.width, source.height), output: (width, height))
                        split.fill(from: pixels.source + reads.lowerBound * source.rowBytes, rowBytes: source.rowBytes, channels: channels,
                                   rows: reads.count)
                        src = split.planes(firstRow: reads.lowerBound)
                    } else {
                        src = Scaler.packed(pixels.destination, stride: source.rowBytes)
                    }
                    try scaler.scaleRows(src, source.width, source.height, formats.from, into: band, rows: y..<(y + rows),
                                         width, height, formats.to, context: part)
                    try deliver(band, y, rows)
                }
            }
        }
    }
}

/// A band's bytes, owned by the one thread that fills them, freed with it.
final class BandBuffer {
    let base: UnsafeMutablePointer<UInt8>
    init(_ count: Int) {
        base = .allocate(capacity: count)
        base.initialize(repeating: 0, count: count)
    }
    deinit { base.deallocate() }
}

import CFFmpeg
import CJpeg

extension Resizer {
    /// Output rows scaled, packed and converted at a time: four MCU rows. A band's scale recomputes
    /// the source rows its Lanczos taps reach above it; at 64 rows that is a few per cent more.
    static let planeBandRows = 64

    /// `src` scaled to `width`×`height` in JPEG's planes: `JPEGEncoder().planes(resize(…))` byte for
    /// byte, with neither the packed RGB image nor the whole planar scale ever held. Each thread
    /// scales its half of the output a band of rows at a time (swscale's receive_slice), packs the
    /// band and converts it into the planes. A 2500 px hill-climb candidate held 12.5 MB of packed
    /// RGB beside 12.5 MB of planar scale, then the RGB beside its planes.
    static func resizeToPlanes(_ src: PixelBuffer, width: Int, height: Int, fullChroma: Bool, threads maxThreads: Int = 2) throws -> YUVPlanes {
        guard src.layout == .rgb || src.layout == .rgbx, width > 0, height > 0, (width, height) != (src.width, src.height) else {
            return try JPEGEncoder().planes(try resize(src, width: width, height: height, threads: maxThreads), fullChroma: fullChroma)
        }
        let bands = (height + planeBandRows - 1) / planeBandRows
        let threads = min(bands, src.pixelCount + width * height > 1_000_000 ? max(1, min(2, maxThreads)) : 1)
        let (planarFmt, _) = planar(.rgb)
        let util = try FFmpegLibraries.util()
        var input = src.bytes
        if input.capacity < input.count + 64 { input.reserveCapacity(input.count + 64) }
        let scaler = try Scaler(util: util, src.width, src.height, avFormat(src.layout), width, height, planarFmt, flags: flags, threads: threads)
        let job = BandJob(scaler: scaler, util: util, sourceWidth: src.width, sourceHeight: src.height, sourceFormat: avFormat(src.layout),
                          sourceRow: src.rowBytes, width: width, height: height)
        var yuv = YUVPlanes(width: width, height: height, subsampling: fullChroma ? TJSAMP_444 : TJSAMP_420)
        try input.withUnsafeBufferPointer { s in
            guard let sb = s.baseAddress else { return }
            let source = SharedPointers(source: sb, destination: UnsafeMutablePointer(mutating: sb))
            try yuv.withWriter { writer in
                let perPart = (bands + threads - 1) / threads
                _ = try Parallel.map(threads, threads: threads) { part in
                    try job.run(bands: (part * perPart)..<min(bands, (part + 1) * perPart), context: part, from: source.source, into: writer)
                }
            }
        }
        return yuv
    }

    /// What each thread of `resizeToPlanes` needs; `scaler` has a context for each (used by one thread each).
    private struct BandJob: @unchecked Sendable {
        let scaler: Scaler
        let util: cff_util
        let sourceWidth: Int, sourceHeight: Int, sourceFormat: AVPixelFormat, sourceRow: Int
        let width: Int, height: Int

        /// One thread's bands: scaled into a planar band, packed to RGB, converted into the planes.
        func run(bands: Range<Int>, context: Int, from source: UnsafePointer<UInt8>, into writer: YUVPlanes.Writer) throws {
            guard !bands.isEmpty else { return }
            let (planarFmt, planes) = planar(.rgb)
            let pack = try Scaler(plain: util, width, planeBandRows, planarFmt, width, planeBandRows, AV_PIX_FMT_RGB24, flags: flags)
            let encoder = try JPEGEncoder()
            let rowBytes = width * 3, stride = (width + 63) / 64 * 64 + 64  // room past each row for swscale's SIMD
            var scaled = [UInt8](repeating: 0, count: stride * planeBandRows * planes + 64)
            var packed = [UInt8](repeating: 0, count: rowBytes * planeBandRows + 64)
            let from = Scaler.packed(UnsafeMutablePointer(mutating: source), stride: sourceRow)
            try scaled.withUnsafeMutableBufferPointer { m in
                try packed.withUnsafeMutableBufferPointer { b in
                    guard let mb = m.baseAddress, let bb = b.baseAddress else { return }
                    let band = Scaler.planar(mb, width: width, height: planeBandRows, planes: planes, stride: stride)
                    for k in bands {
                        let y = k * planeBandRows, rows = min(planeBandRows, height - y)
                        try scaler.scaleRows(from, sourceWidth, sourceHeight, sourceFormat, into: band, rows: y..<(y + rows),
                                             width, height, planarFmt, context: context)
                        try pack.scale(band, y: 0, h: rows, into: Scaler.packed(bb, stride: rowBytes))
                        try encoder.convert(rgb: bb, rowBytes: rowBytes, width: width, rows: rows, y: y, into: writer)
                    }
                }
            }
        }
    }
}

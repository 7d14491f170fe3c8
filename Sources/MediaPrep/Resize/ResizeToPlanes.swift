import CFFmpeg
import CJpeg

extension Resizer {
    /// Rows packed and converted at a time: two MCU rows, 240 KB of RGB at 2500 px (stays in L2).
    static let planeBandRows = 32

    /// `src` scaled to `width`×`height` in JPEG's planes: `JPEGEncoder().planes(resize(…))` byte for
    /// byte, without the packed RGB image. The planar scale is packed and converted a band of rows at
    /// a time, half the bands on each thread. A hill-climb candidate held its packed RGB beside the
    /// planar scale and then beside its planes (2500 px: 12.5 MB more at its peak).
    static func resizeToPlanes(_ src: PixelBuffer, width: Int, height: Int, fullChroma: Bool, threads maxThreads: Int = 2) throws -> YUVPlanes {
        guard src.layout == .rgb || src.layout == .rgbx, width > 0, height > 0, (width, height) != (src.width, src.height) else {
            return try JPEGEncoder().planes(try resize(src, width: width, height: height, threads: maxThreads), fullChroma: fullChroma)
        }
        let threads = src.pixelCount + width * height > 1_000_000 ? max(1, min(2, maxThreads)) : 1
        let (planarFmt, planes) = planar(.rgb)
        let util = try FFmpegLibraries.util()
        var input = src.bytes
        if input.capacity < input.count + 64 { input.reserveCapacity(input.count + 64) }
        let stride = Scaler.stride(width, threads: threads)
        let scaler = try Scaler(util: util, src.width, src.height, avFormat(src.layout), width, height, planarFmt, flags: flags, threads: threads)
        var planar = HugePages.zeroed(stride * height * planes + 64)
        var yuv = YUVPlanes(width: width, height: height, subsampling: fullChroma ? TJSAMP_444 : TJSAMP_420)
        let (sw, sh, sf, srcRow) = (src.width, src.height, avFormat(src.layout), src.rowBytes)
        try input.withUnsafeBufferPointer { s in
            try planar.withUnsafeMutableBufferPointer { m in
                guard let mb = m.baseAddress else { return }
                let mid = Scaler.planar(mb, width: width, height: height, planes: planes, stride: stride)
                try scaler.scaleFrame(Scaler.packed(UnsafeMutablePointer(mutating: s.baseAddress), stride: srcRow), sw, sh, sf,
                                      into: mid, width, height, planarFmt)
                let scaled = SharedPointers(source: UnsafePointer(mb), destination: mb)
                try yuv.withWriter { writer in
                    let bands = (height + planeBandRows - 1) / planeBandRows
                    let perPart = (bands + threads - 1) / threads
                    _ = try Parallel.map(threads, threads: threads) { part in
                        try packAndConvert(bands: (part * perPart)..<min(bands, (part + 1) * perPart), from: scaled.source,
                                           stride: stride, width: width, height: height, planes: planes, into: writer, util: util)
                    }
                }
            }
        }
        return yuv
    }

    /// One thread's bands: planar rows packed to RGB in a small buffer, then converted into the planes.
    private static func packAndConvert(bands: Range<Int>, from scaled: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int,
                                       planes: Int, into writer: YUVPlanes.Writer, util: cff_util) throws {
        guard !bands.isEmpty else { return }
        let (planarFmt, _) = planar(.rgb)
        let pack = try Scaler(plain: util, width, planeBandRows, planarFmt, width, planeBandRows, AV_PIX_FMT_RGB24, flags: flags)
        let encoder = try JPEGEncoder()
        let rowBytes = width * 3
        var band = [UInt8](repeating: 0, count: rowBytes * planeBandRows + 64)
        try band.withUnsafeMutableBufferPointer { b in
            guard let bb = b.baseAddress else { return }
            for k in bands {
                let y = k * planeBandRows, rows = min(planeBandRows, height - y)
                // The band's rows in each plane (G, B, R), as a slice starting at its own row 0.
                let start = UnsafeMutablePointer(mutating: scaled) + y * stride
                let src = Scaler.planar(start, width: width, height: height, planes: planes, stride: stride)
                try pack.scale(src, y: 0, h: rows, into: Scaler.packed(bb, stride: rowBytes))
                try encoder.convert(rgb: bb, rowBytes: rowBytes, width: width, rows: rows, y: y, into: writer)
            }
        }
    }
}

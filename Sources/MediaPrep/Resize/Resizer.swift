import CFFmpeg

/// Resampling through libswscale's Lanczos; no hand-written filter.
package enum Resizer {
    static func avFormat(_ layout: PixelLayout) -> AVPixelFormat {
        switch layout {
        case .gray: return AV_PIX_FMT_GRAY8
        case .rgb: return AV_PIX_FMT_RGB24
        case .rgba: return AV_PIX_FMT_RGBA
        case .rgbx: return AV_PIX_FMT_RGB0
        }
    }

    /// swscale's planar form of a layout, which every resize scales into (see `resize`), and its planes.
    static func planar(_ layout: PixelLayout) -> (format: AVPixelFormat, planes: Int) {
        switch layout {
        case .gray: return (AV_PIX_FMT_GRAY8, 1)
        case .rgba: return (AV_PIX_FMT_GBRAP, 4)
        case .rgb, .rgbx: return (AV_PIX_FMT_GBRP, 3)
        }
    }

    /// The format a scale of 3 or 4 planes runs in: swscale's YUV formats, each plane scaled as gray
    /// is, nothing converted between them. The planes hold G, B, R (and A): in and out they are laid
    /// out as GBRP (GBRAP) is, split from packed rows by `PlanarRows`.
    static func identity(planes: Int) -> AVPixelFormat { planes == 4 ? AV_PIX_FMT_YUVA444P : AV_PIX_FMT_YUV444P }

    /// What swscale is told a scale of `layout` rows into `output` reads and writes, and whether the
    /// rows are split into planes first (`scalesPlanes`): the one choice `BandedScale` and
    /// `PackingSliceResizer` both make, whose pixels a take-over must match.
    static func scaleFormats(_ layout: PixelLayout, output: PixelLayout, from source: (width: Int, height: Int),
                             to size: (width: Int, height: Int)) -> (onPlanes: Bool, from: AVPixelFormat, to: AVPixelFormat) {
        let out = Self.planar(output)
        guard scalesPlanes(layout, from: source, to: size) else { return (false, avFormat(layout), out.format) }
        return (true, identity(planes: out.planes), identity(planes: out.planes))
    }

    /// Whether a colour scale runs on planes (`identity`) or, from packed RGB, through swscale's own
    /// conversion. Planes unless swscale cascades: a filter of 171 taps or more (256 × 16 / 24 on
    /// x86-64 with accurate rounding) is split into two scales through a YUV 4:2:0 image in between,
    /// which reads every source row for any output row (measured: 1440×1080 → 1000×36, ratio 30)
    /// and would halve two of the three planes' resolution. Lanczos's 1 + 6 × ratio taps reach it at
    /// a ratio of about 28 either way, bicubic's 1 + 4 × ratio at 42; planes below 24.
    static func scalesPlanes(_ layout: PixelLayout, from source: (width: Int, height: Int), to output: (width: Int, height: Int)) -> Bool {
        layout != .gray && max(Double(source.width) / Double(output.width), Double(source.height) / Double(output.height)) < 24
    }

    /// Full-chroma, accurate-rounding flags keep RGB from being squeezed through 4:2:0 inside swscale
    /// where it converts (video frames); an image's planes are scaled in `identity`, nothing converted.
    static let flags = Filter.lanczos.flags

    /// swscale's kernel. Lanczos for every pixel that is sent or scored; bicubic only where a
    /// small picture is cut from a much larger one (the preview), which Lanczos's six taps a
    /// source pixel and two `sin` a tap make costly and no sharper to see (see `PreviewMaker`).
    package enum Filter: Sendable {
        case lanczos, bicubic
        var flags: Int32 {
            (self == .lanczos ? SWS_LANCZOS : SWS_BICUBIC) | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP
        }
    }

    /// - Parameter threads: at most this many swscale slice threads.
    package static func resize(_ src: PixelBuffer, width: Int, height: Int, threads maxThreads: Int = 2, filter: Filter = .lanczos) throws -> PixelBuffer {
        guard width > 0, height > 0 else {
            throw MediaPrepError(.invalidDimensions, "cannot resize to \(width)×\(height)")
        }
        if width == src.width && height == src.height { return src }
        let fmt = avFormat(src.layout)
        // Opaque RGBA comes out as plain RGB: the padding byte is dropped in the same pass.
        let outLayout: PixelLayout = src.layout == .rgbx ? .rgb : src.layout
        let outFmt = avFormat(outLayout)
        let threads = Self.threads(src, width: width, height: height, at: maxThreads)
        let dstRow = width * outLayout.channels
        // swscale's SIMD paths may write a little past the row end; pad the last row.
        var out = HugePages.zeroed(dstRow * height + 64)
        let input = withSlack(src)
        let util = try FFmpegLibraries.util()
        let (sw, sh, sf, srcRow) = (src.width, src.height, fmt, src.rowBytes)
        if outLayout != .gray {
            // Into planes: swscale's packed-RGB output stage costs more than the scaling itself
            // (5120→1600: 91 ms to RGB24, 38 ms to GBRP); the unscaled shuffle back is cheap.
            // A band at a time (`BandedScale`): the planar scale is never held whole (a 1600 px view:
            // 5 MB less at its peak), each band packed on its own thread, then put in place.
            let scale = try BandedScale(src, width: width, height: height, output: outLayout, threads: maxThreads, filter: filter)
            try input.withUnsafeBufferPointer { s in
                try out.withUnsafeMutableBufferPointer { d in
                    guard let sb = s.baseAddress, let db = d.baseAddress else { return }
                    let rows = SharedPointers(source: sb, destination: db)
                    // Packed apart, then copied: rows edge to edge take no SIMD overrun from another thread.
                    try scale.runPacked(sb, into: outFmt, rowBytes: dstRow) { _ in
                        { packed, y, count in (rows.destination + y * dstRow).update(from: packed, count: count * dstRow) }
                    }
                }
            }
        } else {
            let scaler = try Scaler(util: util, sw, sh, sf, width, height, outFmt, flags: filter.flags, threads: threads)
            try input.withUnsafeBufferPointer { s in
                try out.withUnsafeMutableBufferPointer { d in
                    guard let db = d.baseAddress else { return }
                    let src = Scaler.packed(UnsafeMutablePointer(mutating: s.baseAddress), stride: srcRow)
                    try Scaler.intoRows(db, rowBytes: dstRow, height: height, threads: threads) { rows, stride in
                        try scaler.scaleFrame(src, sw, sh, sf, into: Scaler.packed(rows, stride: stride), width, height, outFmt)
                    }
                }
            }
        }
        out.removeLast(64)
        return PixelBuffer(width: width, height: height, layout: outLayout, storage: out)
    }

    /// Slice threads pay off only on large images; small ones (previews) stay on one core.
    static func threads(_ src: PixelBuffer, width: Int, height: Int, at most: Int) -> Int {
        src.pixelCount + width * height > 1_000_000 ? max(1, min(2, most)) : 1
    }

    /// `src`'s bytes with the 64 bytes of room past the end swscale's SIMD may read (buffers built
    /// elsewhere may lack it).
    static func withSlack(_ src: PixelBuffer) -> [UInt8] {
        var input = src.bytes
        if input.capacity < input.count + 64 { input.reserveCapacity(input.count + 64) }
        return input
    }

    /// Size that fits inside `maxSide` on the long side, never upscaling, never below 1 px.
    package static func fit(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        guard long > maxSide, maxSide > 0 else { return (width, height) }
        let scale = Double(maxSide) / Double(long)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }
}

extension Resizer {
    /// Only the rows of each list of `parts` (16-row bands of the width×height output), stacked a
    /// part at a time, on one thread: a sample of the scaled image at a fraction of its cost, the
    /// same pixels as those rows of `resize` (each is that scale's output rows, `BandedScale`'s `rows`).
    static func resizeBands(_ src: PixelBuffer, width: Int, height: Int, parts: [[(band: Int, rows: Int)]]) throws -> [PixelBuffer] {
        let outLayout: PixelLayout = src.layout == .rgbx ? .rgb : src.layout
        guard outLayout != .gray else {
            let whole = try resize(src, width: width, height: height, threads: 1)
            return parts.map { whole.bands($0) }
        }
        let rowBytes = width * outLayout.channels
        let scale = try BandedScale(src, width: width, height: height, output: outLayout, threads: 1)
        let input = withSlack(src)
        return try input.withUnsafeBufferPointer { s in
            guard let sb = s.baseAddress else { return [] }
            return try parts.map { bands in
                let rows = bands.reduce(0) { $0 + $1.rows }
                var out = PixelBuffer.storage(rows * rowBytes)
                try out.withUnsafeMutableBufferPointer { d in
                    guard let db = d.baseAddress else { return }
                    let stack = SharedPointers(source: sb, destination: db)
                    var at = 0
                    for b in bands {
                        let first = b.band * 16, into = at
                        try scale.runPacked(sb, into: avFormat(outLayout), rowBytes: rowBytes, rows: first..<(first + b.rows)) { _ in
                            { packed, y, count in (stack.destination + (into + y - first) * rowBytes).update(from: packed, count: count * rowBytes) }
                        }
                        at += b.rows
                    }
                }
                return PixelBuffer(width: width, height: rows, layout: outLayout, storage: out)
            }
        }
    }
}

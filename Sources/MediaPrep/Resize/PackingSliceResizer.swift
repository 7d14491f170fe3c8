import CFFmpeg

/// Scales rows fed top to bottom in bands straight into a packed image: swscale's planar output
/// (the precise path, see `Resizer`) passes through a ring of a few rows and is packed as it
/// comes, so only the packed result is ever whole. `SliceResizer` holds both, which for a PNG
/// shrunk on load to 3200×2399 was 2 × 23 MB. Downscaling only; one thread at a time.
final class PackingSliceResizer {
    let source: (width: Int, height: Int, layout: PixelLayout)
    let width: Int
    let height: Int
    private let scaler: Scaler
    private let pack: Scaler?  // nil for gray: one plane is already packed
    private let planes: Int
    /// Rows of planar output a slice of `band` source rows can complete, with room to spare: a
    /// downscale completes at most one row per source row, plus the rows its filter held back
    /// (for Lanczos at ratio r, about 6 r), all of them at the last slice.
    private let ringRows: Int
    private var ring: [UInt8]
    private var out: [UInt8]
    private(set) var rowsFed = 0
    private var rowsOut = 0

    init(width sw: Int, height sh: Int, layout: PixelLayout, toWidth dw: Int, height dh: Int, band: Int) throws {
        guard dw > 0, dh > 0, dw <= sw, dh <= sh, layout != .rgbx else {
            throw MediaPrepError(.invalidDimensions, "cannot shrink \(sw)×\(sh) to \(dw)×\(dh)")
        }
        source = (sw, sh, layout)
        (width, height) = (dw, dh)
        let planar: AVPixelFormat
        (planar, planes) = Resizer.planar(layout)
        let util = try FFmpegLibraries.util()
        scaler = try Scaler(util: util, sw, sh, Resizer.avFormat(layout), dw, dh, planar, flags: Resizer.flags, threads: 1)
        pack = planes == 1 ? nil : try Scaler(plain: util, dw, dh, planar, dw, dh, Resizer.avFormat(layout), flags: Resizer.flags)
        ringRows = band + 64
        ring = HugePages.zeroed(dw * ringRows * planes + 64)
        out = PixelBuffer.storage(dw * dh * layout.channels)
    }

    /// Scales the next `count` source rows, which start at `rows`, and packs the rows they complete.
    /// - Parameters:
    ///   - stride: bytes from one source row to the next (default: rows packed edge to edge).
    ///   - then: given the packed rows this slice completed (their first row, their count).
    func feed(_ rows: UnsafePointer<UInt8>, count: Int, stride: Int? = nil,
              then: ((UnsafePointer<UInt8>, Int) throws -> Void)? = nil) throws {
        let (w, ringRows, planes, done) = (width, ringRows, planes, rowsOut)
        let src = Scaler.packed(UnsafeMutablePointer(mutating: rows), stride: stride ?? source.width * source.layout.channels)
        let made = try ring.withUnsafeMutableBufferPointer { r -> Int in
            guard let base = r.baseAddress else { return 0 }
            // swscale writes output row k at plane + k × width: each plane pointer is set back by the
            // rows already out, so this slice's rows land at the ring's start (integer arithmetic:
            // the pointer handed over is only ever offset back into the ring).
            var dst = Scaler.planar(base, width: w, height: ringRows, planes: planes)
            for i in 0..<planes {
                dst.pointers[i] = UnsafeMutablePointer(bitPattern: Int(bitPattern: base + i * w * ringRows) - done * w)
            }
            return try scaler.scaleSlice(src, y: rowsFed, h: count, into: dst)
        }
        rowsFed += count
        guard made <= ringRows, done + made <= height else {
            throw MediaPrepError(.resizeFailed, "swscale completed \(made) rows of a \(ringRows)-row ring")
        }
        guard made > 0 else { return }
        let rowBytes = w * source.layout.channels
        try ring.withUnsafeMutableBufferPointer { r in
            try out.withUnsafeMutableBufferPointer { o in
                guard let rb = r.baseAddress, let ob = o.baseAddress else { return }
                guard let pack else {
                    (ob + done * rowBytes).update(from: rb, count: made * w)
                    return
                }
                // The ring's rows [0, made) as a slice at `done` of the packing stage.
                let slice = Scaler.planar(rb, width: w, height: ringRows, planes: planes)
                try pack.scale(slice, y: done, h: made, into: Scaler.packed(ob, stride: rowBytes))
            }
        }
        rowsOut += made
        if let then {
            let rowBytes = w * source.layout.channels
            try out.withUnsafeBufferPointer { o in
                guard let ob = o.baseAddress else { return }
                try then(ob + done * rowBytes, made)
            }
        }
    }

    /// The scaled image, once every source row was fed.
    func pixels() throws -> PixelBuffer {
        guard rowsFed == source.height, rowsOut == height else {
            throw MediaPrepError(.resizeFailed, "only \(rowsOut) of \(height) rows were scaled")
        }
        return PixelBuffer(width: width, height: height, layout: source.layout, storage: out)
    }
}

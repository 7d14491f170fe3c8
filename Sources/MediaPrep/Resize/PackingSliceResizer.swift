import CFFmpeg
import FoundationEssentials
import Glibc

/// Scales rows fed top to bottom in bands straight into a packed image: swscale's planar output
/// (the precise path, see `Resizer`) passes through a ring of a few rows and is packed as it
/// comes, so only the packed result is ever whole (holding both, the planar scale then its packing,
/// was 2 × 23 MB for a PNG shrunk on load to 3200×2399, and 2 × 4.8 MB for every 1600 px view
/// scaled beside a decode). Downscaling only; one thread at a time. What a decoder scales beside
/// its rows (`RowPipeline`): the same pixels as scaling the whole image afterwards.
final class PackingSliceResizer {
    let source: (width: Int, height: Int, layout: PixelLayout)
    let width: Int
    let height: Int
    private let planar: AVPixelFormat
    private let filter: Resizer.Filter
    /// swscale's contexts, built by the first `feed`: on the thread that scales, off a decoder's path
    /// (a Lanczos context's filters take a few ms). The pack is nil for gray: one plane is packed.
    private var contexts: (scaler: Scaler, pack: Scaler?)?
    private let planes: Int
    /// Rows of planar output a slice of `band` source rows can complete, with room to spare: a
    /// downscale completes at most one row per source row, plus the rows its filter held back
    /// (for Lanczos at ratio r, about 6 r), all of them at the last slice.
    private let ringRows: Int
    private var ring: [UInt8]
    /// Each slice's rows as planes, for the scale (`PlanarRows`); nil when swscale converts them
    /// (`Resizer.scaleFormats`, as `BandedScale` decides, whose pixels a take-over must match).
    private let split: PlanarRows?
    /// What swscale is told the slices and the scale are.
    private let formats: (from: AVPixelFormat, to: AVPixelFormat)
    private var out: [UInt8]
    private(set) var rowsFed = 0
    /// Rows of the scaled image packed so far (or being packed: reserved under `lock`).
    private(set) var rowsOut = 0
    /// Rows this resizer packs: fewer once another thread takes the rest over (`takeOver`).
    private var limit: Int
    private let lock = PosixLock()

    /// - Parameter keeps: false when the caller takes each slice's rows itself (`feed(_:count:packingAt:)`):
    ///   then the scaled image is never whole here.
    init(width sw: Int, height sh: Int, layout: PixelLayout, toWidth dw: Int, height dh: Int, band: Int, keeps: Bool = true,
         filter: Resizer.Filter = .lanczos) throws {
        guard dw > 0, dh > 0, dw <= sw, dh <= sh, layout != .rgbx else {
            throw MediaPrepError(.invalidDimensions, "cannot shrink \(sw)×\(sh) to \(dw)×\(dh)")
        }
        source = (sw, sh, layout)
        (width, height) = (dw, dh)
        (planar, planes) = Resizer.planar(layout)
        self.filter = filter
        ringRows = band + 64
        ring = HugePages.zeroed(dw * ringRows * planes + 64)
        let chosen = Resizer.scaleFormats(layout, output: layout, from: (sw, sh), to: (dw, dh))
        split = chosen.onPlanes ? PlanarRows(width: sw, planes: planes) : nil
        formats = (chosen.from, chosen.to)
        out = keeps ? PixelBuffer.storage(dw * dh * layout.channels) : []
        limit = dh
    }

    private func built() throws -> (scaler: Scaler, pack: Scaler?) {
        if let c = contexts { return c }
        let util = try FFmpegLibraries.util()
        let (sw, sh, layout) = source
        let c = (try Scaler(util: util, sw, sh, formats.from, width, height, formats.to, flags: filter.flags, threads: 1),
                 planes == 1 ? nil : try Scaler(plain: util, width, height, planar, width, height, Resizer.avFormat(layout), flags: Resizer.flags))
        contexts = c
        return c
    }

    /// Most rows one slice of `band` source rows completes: room a caller packing them itself needs.
    var rowsASliceAtMost: Int { ringRows }

    /// Scales the next `count` source rows, which start at `rows`, and packs the rows they complete.
    /// - Parameters:
    ///   - stride: bytes from one source row to the next (default: rows packed edge to edge).
    ///   - then: given the packed rows this slice completed (their first row, their count).
    func feed(_ rows: UnsafePointer<UInt8>, count: Int, stride: Int? = nil,
              then: ((UnsafePointer<UInt8>, Int) throws -> Void)? = nil) throws {
        guard !out.isEmpty else { throw MediaPrepError(.resizeFailed, "internal: this resizer keeps no rows") }
        let done = rowsOut
        let rowBytes = width * source.layout.channels
        let made = try withOut { ob in try feed(rows, count: count, stride: stride, packingAt: ob + done * rowBytes) }
        if let then, made > 0 {
            try out.withUnsafeBufferPointer { o in
                guard let ob = o.baseAddress else { return }
                try then(ob + done * rowBytes, made)
            }
        }
    }

    /// The same, the rows this slice completes packed at `destination` (room for `rowsASliceAtMost`);
    /// returns how many.
    @discardableResult
    func feed(_ rows: UnsafePointer<UInt8>, count: Int, stride: Int? = nil, packingAt destination: UnsafeMutablePointer<UInt8>) throws -> Int {
        let (w, ringRows, planes, done) = (width, ringRows, planes, rowsOut)
        let (scaler, pack) = try built()
        let rowBytes = stride ?? source.width * source.layout.channels
        let src: Scaler.Planes
        if let split {
            split.fill(from: rows, rowBytes: rowBytes, channels: source.layout.channels, rows: count)
            src = split.planes(firstRow: 0)  // a slice's planes start at its first row
        } else {
            src = Scaler.packed(UnsafeMutablePointer(mutating: rows), stride: rowBytes)
        }
        let completed = try ring.withUnsafeMutableBufferPointer { r -> Int in
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
        guard completed <= ringRows, done + completed <= height else {
            throw MediaPrepError(.resizeFailed, "swscale completed \(completed) rows of a \(ringRows)-row ring")
        }
        // Rows from `limit` on are another thread's: reserved before they are packed, so a limit set
        // after this reservation always lies past them.
        let made = lock.withLock { () -> Int in
            let k = max(0, min(completed, limit - done))
            rowsOut += k
            return k
        }
        guard made > 0 else { return 0 }
        let packedBytes = w * source.layout.channels
        try ring.withUnsafeMutableBufferPointer { r in
            guard let rb = r.baseAddress else { return }
            guard let pack else {
                destination.update(from: rb, count: made * w)
                return
            }
            // The ring's rows [0, made) as a slice at `done` of the packing stage, which writes output
            // row k at destination + (k − done) rows (the pointer set back as the ring's are).
            let slice = Scaler.planar(rb, width: w, height: ringRows, planes: planes)
            let at = UnsafeMutablePointer<UInt8>(bitPattern: Int(bitPattern: destination) - done * packedBytes)
            try pack.scale(slice, y: done, h: made, into: Scaler.packed(at, stride: packedBytes))
        }
        return made
    }

    /// The packed image's bytes for writing rows, borrowed (not mutated as an array): a thread that
    /// took rows over writes other rows of it at the same time (`takeOver`).
    private func withOut<R>(_ body: (UnsafeMutablePointer<UInt8>) throws -> R) throws -> R {
        try out.withUnsafeBufferPointer { o in
            guard let base = o.baseAddress else { throw MediaPrepError(.resizeFailed, "internal: this resizer keeps no rows") }
            return try body(UnsafeMutablePointer(mutating: base))
        }
    }

    /// Whether this resizer has packed every row it will (the rest, if any, taken over).
    var reachedLimit: Bool { lock.withLock { rowsOut >= limit } }

    /// Takes the rows still to come over in part, once every source row is in `source` (the whole
    /// image, with swscale's 64 bytes of slack past it): the lower half of the rows not yet reserved
    /// is scaled here, on the calling thread, from the whole source (`Scaler.scaleRows`: the same
    /// pixels), while the feeding thread packs the upper half. Nothing when too little is left
    /// (`minimumRows`). Returns whether it took any.
    func takeOver(from source: UnsafePointer<UInt8>, minimumRows: Int) throws -> Bool {
        guard !out.isEmpty else { return false }
        let from = lock.withLock { () -> Int? in
            // Past the rows a slice being packed may still complete (at most a ring).
            let split = rowsOut + max(ringRows, (height - rowsOut) / 2)
            guard height - split >= minimumRows else { return nil }
            limit = split
            return split
        }
        guard let from else { return false }
        let (sw, sh, layout) = self.source
        let scale = try BandedScale(source: (sw, sh, layout, sw * layout.channels), width: width, height: height, output: layout,
                                    threads: 1, filter: filter)
        let rowBytes = width * layout.channels
        try withOut { ob in
            let into = SharedPointers(source: source, destination: ob)
            if planes == 1 {
                try scale.run(source, rows: from..<height) { _ in
                    { band, y, count in
                        guard let rows = band.pointers[0] else { return }
                        for r in 0..<count { (into.destination + (y + r) * rowBytes).update(from: rows + r * Int(band.strides[0]), count: rowBytes) }
                    }
                }
            } else {
                try scale.runPacked(source, into: Resizer.avFormat(layout), rowBytes: rowBytes, rows: from..<height) { _ in
                    { packed, y, count in (into.destination + y * rowBytes).update(from: packed, count: count * rowBytes) }
                }
            }
        }
        return true
    }

    /// After a `takeOver`, once the feeding thread stopped: every row is packed.
    func tookOverRest() {
        lock.withLock { rowsOut = height }
        rowsFed = source.height
    }

    /// The packed rows made so far (`rowsOut` of them), `width × channels` bytes apart.
    func withRows<R>(_ body: (UnsafePointer<UInt8>) throws -> R) throws -> R {
        try out.withUnsafeBufferPointer { o in
            guard let ob = o.baseAddress else { throw MediaPrepError(.resizeFailed, "no rows were scaled") }
            return try body(ob)
        }
    }

    /// As `pixels()`; RGBA without its alpha when `keepAlpha` is false (its R, G and B as packed: the
    /// view of an RGBA source found opaque).
    func pixels(keepAlpha: Bool) throws -> PixelBuffer {
        let packed = try pixels()
        return keepAlpha || packed.layout != .rgba ? packed : AlphaOps.dropX(packed)
    }

    /// The scaled image, once every source row was fed.
    func pixels() throws -> PixelBuffer {
        guard rowsFed == source.height, rowsOut == height else {
            throw MediaPrepError(.resizeFailed, "only \(rowsOut) of \(height) rows were scaled")
        }
        return PixelBuffer(width: width, height: height, layout: source.layout, storage: out)
    }
}

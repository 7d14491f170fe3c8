import CFFmpeg

/// swscale contexts, freed on every path, fed caller-owned memory that they neither copy nor free.
/// With `threads` > 1 there is one single-thread context per thread, built side by side, each
/// scaling its own band of output rows (sws_receive_slice): swscale's own slice threads build
/// their contexts one after another, and a Lanczos context's filters (two `sin` a tap) are most
/// of a resize's cost (garden-noisy-5640: 3.5 ms of a 2820→2500 px init against 1.7 ms one context).
final class Scaler {
    let util: cff_util
    /// One context a thread; the first also serves the single-thread calls.
    let contexts: [OpaquePointer]
    var context: OpaquePointer { contexts[0] }

    /// A scaler from `sw`×`sh` in `sf` to `dw`×`dh` in `df` for `threads` threads.
    init(util: cff_util, _ sw: Int, _ sh: Int, _ sf: AVPixelFormat, _ dw: Int, _ dh: Int, _ df: AVPixelFormat,
         flags: Int32, threads: Int = 1) throws {
        self.util = util
        let n = max(1, min(threads, dh))
        let built = try Parallel.map(n, threads: n) { _ in
            Result { try Self.context(util, sw, sh, sf, dw, dh, df, flags: flags) }
        }
        let made = built.compactMap { try? $0.get().pointer }
        if made.count < built.count {
            for c in made { util.sws_freeContext(c) }
            for b in built { _ = try b.get() }  // throws the first failure
        }
        contexts = made
    }

    /// A context's address, handed between threads (each context is used by one thread at a time).
    struct Handle: @unchecked Sendable { let pointer: OpaquePointer }

    private static func context(_ util: cff_util, _ sw: Int, _ sh: Int, _ sf: AVPixelFormat, _ dw: Int, _ dh: Int,
                                _ df: AVPixelFormat, flags: Int32) throws -> Handle {
        guard let c = util.sws_alloc_context() else { throw MediaPrepError(.resizeFailed, "out of memory for a scaler") }
        let options: [(String, Int64)] = [("srcw", Int64(sw)), ("srch", Int64(sh)), ("src_format", Int64(sf.rawValue)),
                                          ("dstw", Int64(dw)), ("dsth", Int64(dh)), ("dst_format", Int64(df.rawValue)),
                                          ("sws_flags", Int64(flags)), ("threads", 1)]
        for (name, value) in options { _ = util.av_opt_set_int(UnsafeMutableRawPointer(c), name, value, 0) }
        guard util.sws_init_context(c, nil, nil) >= 0 else {
            util.sws_freeContext(c)
            throw MediaPrepError(.resizeFailed, "swscale cannot scale \(sw)×\(sh) to \(dw)×\(dh)")
        }
        return Handle(pointer: c)
    }

    /// An unthreaded scaler made the plain way (sws_getContext), as the packing stages and video frames use.
    init(plain util: cff_util, _ sw: Int, _ sh: Int, _ sf: AVPixelFormat, _ dw: Int, _ dh: Int, _ df: AVPixelFormat,
         flags: Int32) throws {
        self.util = util
        guard let c = util.sws_getContext(Int32(sw), Int32(sh), sf, Int32(dw), Int32(dh), df, flags, nil, nil, nil) else {
            throw MediaPrepError(.resizeFailed, "swscale cannot scale \(sw)×\(sh) to \(dw)×\(dh)")
        }
        contexts = [c]
    }

    deinit { for c in contexts { util.sws_freeContext(c) } }

    /// Plane pointers and strides for sws_scale: packed rows (one plane) or `planes` planes of w×h bytes.
    typealias Planes = (pointers: [UnsafeMutablePointer<UInt8>?], strides: [Int32])

    static func packed(_ base: UnsafeMutablePointer<UInt8>?, stride: Int) -> Planes {
        ([base, nil, nil, nil], [Int32(stride), 0, 0, 0])
    }

    /// swscale's planar RGB order is G, B, R (and A), each plane `height` rows `stride` (at least
    /// `width`) bytes apart.
    static func planar(_ base: UnsafeMutablePointer<UInt8>?, width: Int, height: Int, planes: Int, stride: Int? = nil) -> Planes {
        let rowBytes = max(stride ?? width, width)
        var p: [UnsafeMutablePointer<UInt8>?] = [nil, nil, nil, nil], s: [Int32] = [0, 0, 0, 0]
        for i in 0..<min(planes, 4) { p[i] = base.map { $0 + i * rowBytes * height }; s[i] = Int32(rowBytes) }
        return (p, s)
    }

    /// The stride for rows of `rowBytes` that `threads` slice threads write: swscale's SIMD output
    /// runs past a row's end, which with rows packed edge to edge lands in the next row's first
    /// bytes. One thread writes that row afterwards and the spill is overwritten; with two slices the
    /// row that starts the second one may be written first and then clobbered (a 1600 px high resize
    /// differed in 4 pixels of row 800 in 20 of 60 runs). So 64 bytes of room past every row for
    /// more than one thread; edge to edge for one.
    static func stride(_ rowBytes: Int, threads: Int) -> Int { threads > 1 ? (rowBytes + 63) / 64 * 64 + 64 : rowBytes }

    /// Runs `scale` into `height` rows of `rowBytes` at `out`: directly with one thread; with slice
    /// threads into rows with room past their ends (`stride`), then copied edge to edge.
    static func intoRows(_ out: UnsafeMutablePointer<UInt8>, rowBytes: Int, height: Int, threads: Int,
                         _ scale: (UnsafeMutablePointer<UInt8>, Int) throws -> Void) throws {
        let stride = stride(rowBytes, threads: threads)
        guard stride != rowBytes else { return try scale(out, rowBytes) }
        var rows = HugePages.zeroed(stride * height + 64)
        try rows.withUnsafeMutableBufferPointer { r in
            guard let rb = r.baseAddress else { return }
            try scale(rb, stride)
            for y in 0..<height { (out + y * rowBytes).update(from: rb + y * stride, count: rowBytes) }
        }
    }

    /// Source rows [y, y + h) into `dst` (sws_scale's slice interface: slices top to bottom).
    func scale(_ src: Planes, y: Int, h: Int, into dst: Planes) throws {
        _ = try scaleSlice(src, y: y, h: h, into: dst)
    }

    /// As `scale`, returning how many destination rows this slice completed (they follow those of
    /// the slices before).
    func scaleSlice(_ src: Planes, y: Int, h: Int, into dst: Planes) throws -> Int {
        let rc = src.pointers.map { UnsafePointer($0) }.withUnsafeBufferPointer { s in
            dst.pointers.withUnsafeBufferPointer { d in
                util.sws_scale(context, s.baseAddress, src.strides, Int32(y), Int32(h), d.baseAddress, dst.strides)
            }
        }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.resizeFailed, "swscale failed", rc) }
        return Int(rc)
    }

    /// The whole of `src` (sw×sh, format `sf`) into `dst` (dw×dh, `df`) through sws_scale_frame, which
    /// runs the context's slice threads. Both are wrapped as frames whose buffers own nothing.
    func scaleFrame(_ src: Planes, _ sw: Int, _ sh: Int, _ sf: AVPixelFormat,
                    into dst: Planes, _ dw: Int, _ dh: Int, _ df: AVPixelFormat) throws {
        var input = util.av_frame_alloc(), output = util.av_frame_alloc()
        defer { util.av_frame_free(&input); util.av_frame_free(&output) }
        guard let i = input, let o = output else { throw MediaPrepError(.resizeFailed, "out of memory") }
        try wrap(i, src, sw, sh, sf, readOnly: true)
        try wrap(o, dst, dw, dh, df, readOnly: false)
        try run(i, o, height: dh, failure: "swscale failed")
    }

    /// Scales a decoded frame into `dst` through sws_scale_frame (the frame is referenced, not copied).
    func scaleFrame(_ frame: UnsafePointer<AVFrame>, into dst: Planes, _ dw: Int, _ dh: Int, _ df: AVPixelFormat) throws {
        var input = util.av_frame_alloc(), output = util.av_frame_alloc()
        defer { util.av_frame_free(&input); util.av_frame_free(&output) }
        guard let i = input, let o = output, util.av_frame_ref(i, frame) >= 0 else { throw MediaPrepError(.resizeFailed, "out of memory") }
        try wrap(o, dst, dw, dh, df, readOnly: false)
        try run(i, o, height: dh, failure: "swscale cannot convert this frame")
    }

    /// Output rows `rows` of scaling all of `src` (sw×sh, `sf`) to dw×dh in `df`, into `band`: planes
    /// that hold only those rows, by context `k` (one thread a context). The output frame is
    /// addressed from its row 0, which lies `rows.lowerBound` rows before `band`: swscale writes only
    /// the rows asked for, so nothing before `band` is touched. The rows are those of `scaleFrame`.
    func scaleRows(_ src: Planes, _ sw: Int, _ sh: Int, _ sf: AVPixelFormat, into band: Planes, rows: Range<Int>,
                   _ dw: Int, _ dh: Int, _ df: AVPixelFormat, context k: Int) throws {
        guard contexts.indices.contains(k), !rows.isEmpty, rows.upperBound <= dh else {
            throw MediaPrepError(.resizeFailed, "no scaler for rows \(rows) of \(dh)")
        }
        var input = util.av_frame_alloc(), output = util.av_frame_alloc()
        defer { util.av_frame_free(&input); util.av_frame_free(&output) }
        guard let i = input, let o = output else { throw MediaPrepError(.resizeFailed, "out of memory") }
        try wrap(i, src, sw, sh, sf, readOnly: true)
        let shifted = (pointers: zip(band.pointers, band.strides).map { p, s in p.map { $0 - rows.lowerBound * Int(s) } }, strides: band.strides)
        try wrap(o, shifted, dw, dh, df, readOnly: false)
        let rc = Self.receive(util, contexts[k], o, i, sourceHeight: sh, rows: rows)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.resizeFailed, "swscale failed", rc) }
    }

    /// Output rows `rows` of `output` from all `sourceHeight` rows of `input`, by context `c`
    /// (sws_frame_start, send_slice, receive_slice, frame_end): swscale's error code, or ≥ 0.
    private static func receive(_ util: cff_util, _ c: OpaquePointer, _ output: UnsafeMutablePointer<AVFrame>,
                                _ input: UnsafeMutablePointer<AVFrame>, sourceHeight: Int, rows: Range<Int>) -> Int32 {
        var rc = util.sws_frame_start(c, output, input)
        guard rc >= 0 else { return rc }
        defer { util.sws_frame_end(c) }
        rc = util.sws_send_slice(c, 0, UInt32(sourceHeight))
        guard rc >= 0 else { return rc }
        return util.sws_receive_slice(c, UInt32(rows.lowerBound), UInt32(rows.count))
    }

    /// The whole input into the output: one context, or each context its band of output rows
    /// (bands as swscale's own slice threads cut them), side by side.
    private func run(_ input: UnsafeMutablePointer<AVFrame>, _ output: UnsafeMutablePointer<AVFrame>, height: Int,
                     failure: String) throws {
        if contexts.count == 1 {
            let rc = util.sws_scale_frame(context, output, input)
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.resizeFailed, failure, rc) }
            return
        }
        let align = max(1, Int(util.sws_receive_slice_alignment(context)))
        let band = ((height + contexts.count - 1) / contexts.count + align - 1) / align * align
        let frames = (input: Handle(pointer: OpaquePointer(input)), output: Handle(pointer: OpaquePointer(output)))
        let handles = contexts.map { Handle(pointer: $0) }
        let (util, sourceHeight) = (util, Int(input.pointee.height))
        let codes = try Parallel.map(contexts.count, threads: contexts.count) { k -> Int32 in
            let start = k * band, rows = min(band, height - start)
            guard rows > 0 else { return 0 }
            let i = UnsafeMutablePointer<AVFrame>(frames.input.pointer), o = UnsafeMutablePointer<AVFrame>(frames.output.pointer)
            return Self.receive(util, handles[k].pointer, o, i, sourceHeight: sourceHeight, rows: start..<(start + rows))
        }
        if let rc = codes.first(where: { $0 < 0 }) { throw MediaPrepError.ffmpeg(.resizeFailed, failure, rc) }
    }

    private func wrap(_ f: UnsafeMutablePointer<AVFrame>, _ planes: Planes, _ w: Int, _ h: Int, _ format: AVPixelFormat,
                      readOnly: Bool) throws {
        let used = planes.pointers.enumerated().compactMap { i, p in p.map { (i, $0) } }
        // One buffer reference covering the planes (they are one allocation), freeing nothing.
        guard let first = used.first?.1 else { throw MediaPrepError(.resizeFailed, "no image memory") }
        let size = used.map { i, _ in Int(planes.strides[i]) * h }.reduce(0, +)
        guard let buf = util.av_buffer_create(first, size, { _, _ in }, nil, readOnly ? AV_BUFFER_FLAG_READONLY : 0) else {
            throw MediaPrepError(.resizeFailed, "out of memory")
        }
        f.pointee.buf.0 = buf
        withUnsafeMutableBytes(of: &f.pointee.data) { d in
            for (i, p) in used { d.storeBytes(of: p, toByteOffset: i * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
        }
        withUnsafeMutableBytes(of: &f.pointee.linesize) { l in
            for (i, _) in used { l.storeBytes(of: planes.strides[i], toByteOffset: i * 4, as: Int32.self) }
        }
        (f.pointee.width, f.pointee.height, f.pointee.format) = (Int32(w), Int32(h), format.rawValue)
    }

    /// YUV→RGB coefficients for the frame's colour space (BT.709 for HD video, not swscale's 601
    /// default), and whether its YUV is full range (JPEG-style).
    func matchColorspace(of f: UnsafePointer<AVFrame>) {
        let cs: Int32 = switch f.pointee.colorspace {
        case AVCOL_SPC_BT709: SWS_CS_ITU709
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: SWS_CS_BT2020
        case AVCOL_SPC_SMPTE240M: SWS_CS_SMPTE240M
        case AVCOL_SPC_FCC: SWS_CS_FCC
        default: SWS_CS_DEFAULT
        }
        var inv: UnsafeMutablePointer<Int32>? = nil, table: UnsafeMutablePointer<Int32>? = nil
        var srcRange: Int32 = 0, dstRange: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        guard util.sws_getColorspaceDetails(context, &inv, &srcRange, &table, &dstRange, &brightness, &contrast, &saturation) >= 0,
              let coefficients = util.sws_getCoefficients(cs) else { return }
        for c in contexts {
            _ = util.sws_setColorspaceDetails(c, coefficients, Self.isFullRange(f) ? 1 : 0, table, dstRange,
                                              brightness, contrast, saturation)
        }
    }

    static func isFullRange(_ f: UnsafePointer<AVFrame>) -> Bool {
        let fmt = AVPixelFormat(rawValue: f.pointee.format)
        return f.pointee.color_range == AVCOL_RANGE_JPEG || fmt == AV_PIX_FMT_YUVJ420P || fmt == AV_PIX_FMT_YUVJ422P
            || fmt == AV_PIX_FMT_YUVJ444P
    }
}

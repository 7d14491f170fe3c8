import CFFmpeg

/// Resizes an image fed top to bottom in bands (swscale's slice interface), so scaling runs while
/// the decoder is still producing later rows. Same filter and flags as `Resizer`, one thread.
/// A class owning two swscale contexts (freed in deinit); one thread at a time.
final class SliceResizer {
    let source: (width: Int, height: Int, layout: PixelLayout)
    let width: Int
    let height: Int
    private let scaler: OpaquePointer
    private var planar: [UInt8]
    private let planes: Int
    private(set) var rowsFed = 0

    /// - Parameter layout: .gray, .rgb or .rgba; RGBA is scaled with its alpha and may be packed
    ///   without it later (`pixels(keepAlpha:)`), as `Resizer` does for RGBA found to be opaque.
    init(width sw: Int, height sh: Int, layout: PixelLayout, toWidth dw: Int, height dh: Int) throws {
        guard dw > 0, dh > 0, layout != .rgbx else { throw MediaPrepError(.invalidDimensions, "cannot resize to \(dw)×\(dh)") }
        source = (sw, sh, layout)
        width = dw
        height = dh
        planes = layout == .gray ? 1 : (layout == .rgba ? 4 : 3)
        let outFmt = layout == .gray ? AV_PIX_FMT_GRAY8 : (layout == .rgba ? AV_PIX_FMT_GBRAP : AV_PIX_FMT_GBRP)
        guard let s = cff_sws_threaded(Int32(sw), Int32(sh), Resizer.avFormat(layout), Int32(dw), Int32(dh), outFmt, Resizer.flags, 1) else {
            throw MediaPrepError(.resizeFailed, "swscale cannot scale \(sw)×\(sh) to \(dw)×\(dh)")
        }
        scaler = s
        planar = HugePages.zeroed(dw * dh * planes + 64)
    }

    deinit { sws_freeContext(scaler) }

    /// Scales the next `count` source rows, which start at `rows` (the source's row `rowsFed`).
    func feed(_ rows: UnsafePointer<UInt8>, count: Int) throws {
        let stride = source.width * source.layout.channels
        let (w, h, p) = (width, height, planes)
        let rc = planar.withUnsafeMutableBufferPointer { d in
            cff_sws_slice_to_planar(scaler, rows, Int32(stride), Int32(rowsFed), Int32(count), d.baseAddress,
                                    Int32(w), Int32(h), Int32(p))
        }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.resizeFailed, "swscale failed on a slice", rc) }
        rowsFed += count
    }

    /// The scaled image once every source row was fed; RGBA without its alpha when `keepAlpha` is false.
    func pixels(keepAlpha: Bool = true) throws -> PixelBuffer {
        guard rowsFed == source.height else { throw MediaPrepError(.resizeFailed, "only \(rowsFed) of \(source.height) rows were scaled") }
        if planes == 1 {
            return PixelBuffer(width: width, height: height, layout: .gray, storage: Array(planar.prefix(width * height)))
        }
        let alpha = planes == 4 && keepAlpha
        let layout: PixelLayout = alpha ? .rgba : .rgb
        let inFmt = alpha ? AV_PIX_FMT_GBRAP : AV_PIX_FMT_GBRP
        guard let pack = sws_getContext(Int32(width), Int32(height), inFmt, Int32(width), Int32(height), Resizer.avFormat(layout),
                                        Resizer.flags, nil, nil, nil) else {
            throw MediaPrepError(.resizeFailed, "swscale cannot pack \(width)×\(height)")
        }
        defer { sws_freeContext(pack) }
        let row = width * layout.channels
        var out = HugePages.zeroed(row * height + 64)
        let (w, h) = (width, height)
        let rc = planar.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                cff_sws_pack_planar(pack, s.baseAddress, Int32(w), Int32(h), Int32(alpha ? 4 : 3), d.baseAddress, Int32(row))
            }
        }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.resizeFailed, "swscale failed to pack", rc) }
        out.removeLast(64)
        return PixelBuffer(width: width, height: height, layout: layout, storage: out)
    }
}

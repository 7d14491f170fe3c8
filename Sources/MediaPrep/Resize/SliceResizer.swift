import CFFmpeg

/// An image scaled from rows fed beside a decode, top to bottom, and packed when asked for.
protocol ScaledBeside: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Scales the next `count` source rows, which start at `rows`.
    func feed(_ rows: UnsafePointer<UInt8>, count: Int) throws
    /// The scaled image once every source row was fed; RGBA without its alpha when `keepAlpha` is false.
    func pixels(keepAlpha: Bool) throws -> PixelBuffer
}

extension ScaledBeside {
    /// The scaled image with whatever alpha it has.
    func pixels() throws -> PixelBuffer { try pixels(keepAlpha: true) }
}

/// Resizes an image fed top to bottom in bands (swscale's slice interface), so scaling runs while
/// the decoder is still producing later rows. Same filters and flags as `Resizer`, one thread.
/// A class owning two swscale contexts (freed in deinit); one thread at a time.
final class SliceResizer: ScaledBeside {
    let source: (width: Int, height: Int, layout: PixelLayout)
    let width: Int
    let height: Int
    private let scaler: Scaler
    private var planar: [UInt8]
    private let planes: Int
    private(set) var rowsFed = 0

    /// - Parameter layout: .gray, .rgb or .rgba; RGBA is scaled with its alpha and may be packed
    ///   without it later (`pixels(keepAlpha:)`), as `Resizer` does for RGBA found to be opaque.
    init(width sw: Int, height sh: Int, layout: PixelLayout, toWidth dw: Int, height dh: Int, filter: Resizer.Filter = .lanczos) throws {
        guard dw > 0, dh > 0, layout != .rgbx else { throw MediaPrepError(.invalidDimensions, "cannot resize to \(dw)×\(dh)") }
        source = (sw, sh, layout)
        width = dw
        height = dh
        let outFmt: AVPixelFormat
        (outFmt, planes) = Resizer.planar(layout)
        scaler = try Scaler(util: try FFmpegLibraries.util(), sw, sh, Resizer.avFormat(layout), dw, dh, outFmt,
                            flags: filter.flags, threads: 1)
        planar = HugePages.zeroed(dw * dh * planes + 64)
    }

    /// Scales the next `count` source rows, which start at `rows` (the source's row `rowsFed`).
    func feed(_ rows: UnsafePointer<UInt8>, count: Int) throws {
        let stride = source.width * source.layout.channels
        let (w, h, p) = (width, height, planes)
        let y = rowsFed
        try planar.withUnsafeMutableBufferPointer { d in
            try scaler.scale(Scaler.packed(UnsafeMutablePointer(mutating: rows), stride: stride), y: y, h: count,
                             into: Scaler.planar(d.baseAddress, width: w, height: h, planes: p))
        }
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
        let (inFmt, packedPlanes) = Resizer.planar(layout)  // without its alpha plane when not kept
        let pack = try Scaler(plain: scaler.util, width, height, inFmt, width, height, Resizer.avFormat(layout), flags: Resizer.flags)
        let row = width * layout.channels
        var out = HugePages.zeroed(row * height + 64)
        let (w, h) = (width, height)
        try planar.withUnsafeMutableBufferPointer { s in
            try out.withUnsafeMutableBufferPointer { d in
                try pack.scale(Scaler.planar(s.baseAddress, width: w, height: h, planes: packedPlanes), y: 0, h: h,
                               into: Scaler.packed(d.baseAddress, stride: row))
            }
        }
        out.removeLast(64)
        return PixelBuffer(width: width, height: height, layout: layout, storage: out)
    }
}

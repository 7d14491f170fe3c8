import CJpeg
import Glibc

/// A hill-climb candidate's JPEG planes made from an image's rows as its decoder hands them out,
/// on the scaling thread's spare time: `Resizer.resizeToPlanes` of the whole image (4:2:0), byte
/// for byte. Fed top to bottom, one thread at a time.
final class PlanesBeside {
    /// The candidate's long side, which the search asks for it by.
    let long: Int
    let width: Int, height: Int
    private let source: (width: Int, height: Int)
    private let scaler: PackingSliceResizer?  // nil at the source's own size
    private let encoder: JPEGEncoder
    private var yuv: YUVPlanes
    /// Scaled rows not yet converted: fewer than 16, then a slice's (the scaled image is never whole).
    private var pending: [UInt8]
    private var pendingRows = 0
    private var converted = 0

    init(source width: Int, _ height: Int, to size: (width: Int, height: Int), long: Int, band: Int) throws {
        self.long = long
        (self.width, self.height) = size
        self.source = (width, height)
        let scaler = size == (width, height) ? nil
            : try PackingSliceResizer(width: width, height: height, layout: .rgb, toWidth: size.width, height: size.height,
                                      band: band, keeps: false)
        self.scaler = scaler
        encoder = try JPEGEncoder()
        yuv = YUVPlanes(width: size.width, height: size.height, subsampling: TJSAMP_420)
        pending = scaler.map { PixelBuffer.storage((16 + $0.rowsASliceAtMost) * size.width * 3 + 64) } ?? []
    }

    /// The source's RGB rows `[from, from + count)`; `image` is its first row, where every row fed so far still is.
    func feed(_ image: UnsafePointer<UInt8>, from: Int, count: Int) throws {
        guard let scaler else { return try convert(image + converted * width * 3, rows: from + count - converted) }
        let rowBytes = width * 3
        try pending.withUnsafeMutableBufferPointer { p in
            guard let pb = p.baseAddress else { return }
            pendingRows += try scaler.feed(image + from * source.width * 3, count: count, packingAt: pb + pendingRows * rowBytes)
            let before = converted
            try convert(pb, rows: pendingRows)
            let left = pendingRows - (converted - before)
            if left > 0, converted > before { memmove(pb, pb + (converted - before) * rowBytes, left * rowBytes) }
            pendingRows = left
        }
    }

    /// Converts the whole 16-row groups of `rows` rows from `rgb` on, which are the image's rows from
    /// `converted` (every row at the bottom): `convert`'s MCU rows.
    private func convert(_ rgb: UnsafePointer<UInt8>, rows: Int) throws {
        let n = converted + rows == height ? rows : rows / 16 * 16
        guard n > 0 else { return }
        let (w, y) = (width, converted)
        try yuv.withWriter { writer in
            try encoder.convert(rgb: rgb, rowBytes: w * 3, width: w, rows: n, y: y, into: writer)
        }
        converted += n
    }

    /// The planes, once every source row was fed.
    func planes() throws -> YUVPlanes {
        guard converted == height else { throw MediaPrepError(.resizeFailed, "only \(converted) of \(height) candidate rows were made") }
        return yuv
    }
}

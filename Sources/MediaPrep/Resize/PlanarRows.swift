import CFFmpeg

/// Packed RGB, RGBX or RGBA rows split into the planes (G, B, R and, kept, A) a planar scale reads
/// (`Resizer.identity`): swscale's packed-RGB input converts every pixel to YUV and its planar-RGB
/// output back again, each plane scaled as gray skips both (2820×1763 → 1600×1000 Lanczos, one
/// thread: 21.4 ms RGB24 → GBRP, 13.7 ms split (1.7 ms) and scaled as YUV444P; 5120×2880 → 1600×900:
/// 43.0 against 31.3 ms). A buffer of a few rows, refilled: never a planar copy of the whole image.
/// One thread at a time.
final class PlanarRows {
    let width: Int
    let planes: Int
    /// Bytes from one plane row to the next.
    private let stride: Int
    private(set) var rows = 0
    private var buffer: UnsafeMutablePointer<UInt8>

    init(width: Int, planes: Int) {
        self.width = width
        self.planes = planes
        stride = (width + 31) / 32 * 32
        buffer = .allocate(capacity: 1)
    }

    deinit { buffer.deallocate() }

    /// Splits `count` rows of `channels`-byte pixels, `rowBytes` apart from `packed` on, into rows
    /// [0, count) of the planes (the alpha dropped unless four planes are kept).
    func fill(from packed: UnsafePointer<UInt8>, rowBytes: Int, channels: Int, rows count: Int) {
        reserve(count)
        let planeBytes = stride * rows
        for y in 0..<count {
            let row = buffer + y * stride
            cff_planes(packed + y * rowBytes, width, Int32(channels), row, row + planeBytes, row + 2 * planeBytes,
                       planes == 4 ? row + 3 * planeBytes : nil)
        }
    }

    /// Room for `wanted` rows of each plane, and the 64 bytes past the last that swscale's SIMD may read.
    private func reserve(_ wanted: Int) {
        guard wanted > rows else { return }
        buffer.deallocate()
        rows = wanted
        let bytes = stride * rows * planes + 64
        buffer = .allocate(capacity: bytes)
        buffer.initialize(repeating: 0, count: bytes)
    }

    /// The planes as swscale addresses them when the first row filled is image row `first`: each
    /// pointer set back by `first` rows (integer arithmetic: only the rows filled are ever read).
    func planes(firstRow first: Int) -> Scaler.Planes {
        var p = Scaler.planar(buffer, width: width, height: rows, planes: planes, stride: stride)
        for i in 0..<planes {
            p.pointers[i] = UnsafeMutablePointer(bitPattern: Int(bitPattern: buffer + i * stride * rows) - first * stride)
        }
        return p
    }
}

import CJpeg

/// An image in JPEG's color space and chroma layout (Y, Cb, Cr planes; Y only for gray) in one
/// allocation, each plane followed by a gap so SIMD writers may overshoot a row harmlessly.
package struct YUVPlanes: Sendable {
    package let width: Int
    package let height: Int
    let subsampling: TJSAMP
    var storage: [UInt8]
    let offsets: [Int]
    let strides: [Int32]

    init(width: Int, height: Int, subsampling: TJSAMP) {
        self.width = width
        self.height = height
        self.subsampling = subsampling
        var offsets: [Int] = [], strides: [Int32] = []
        var total = 0
        for c in 0..<(subsampling == TJSAMP_GRAY ? 1 : 3) {
            let w = Int(JPEGLibrary.turbo.tjPlaneWidth(Int32(c), Int32(width), Int32(subsampling.rawValue)))
            let h = Int(JPEGLibrary.turbo.tjPlaneHeight(Int32(c), Int32(height), Int32(subsampling.rawValue)))
            let stride = (w + 63) / 64 * 64
            offsets.append(total)
            strides.append(Int32(stride))
            total += stride * h + 64
        }
        self.offsets = offsets
        self.strides = strides
        storage = HugePages.zeroed(total)
    }

    /// Bands of 16 image rows numbered `first`, `first + every`, … below band `below`, stacked: the
    /// planes `JPEGEncoder.planes` makes of `PixelBuffer.everyBand` with the same arguments, byte for
    /// byte (TurboJPEG converts and downsamples within a band of 16 rows; a band cut short by the
    /// bottom edge, padded by repeating its last row, can only come last in both).
    func everyBand(_ every: Int, from first: Int, below: Int) -> YUVPlanes {
        let picked = SampleBands.picked(every, from: first, below: below, height: height)
        var out = YUVPlanes(width: width, height: picked.reduce(0) { $0 + $1.rows }, subsampling: subsampling)
        for c in 0..<offsets.count {
            // A band's rows in this plane, as TurboJPEG lays out an image of that height (4:2:0: chroma
            // halved, rounded up; luma padded to an even count).
            func planeRows(_ n: Int) -> Int { Int(JPEGLibrary.turbo.tjPlaneHeight(Int32(c), Int32(n), Int32(subsampling.rawValue))) }
            let (src, dst, stride) = (offsets[c], out.offsets[c], Int(strides[c]))
            var at = 0
            for (b, n) in picked {
                let (from, count) = (b * planeRows(16), planeRows(n))
                out.storage.withUnsafeMutableBufferPointer { o in
                    storage.withUnsafeBufferPointer { i in
                        guard let ob = o.baseAddress, let ib = i.baseAddress else { return }
                        (ob + dst + at * stride).update(from: ib + src + from * stride, count: count * stride)
                    }
                }
                at += count
            }
        }
        return out
    }

    /// Plane pointers (nil past the last plane) and strides, three of each, read only, for the
    /// encoder: no copy. Through the mutable form every encode copied the shared planes (2500×1667:
    /// 6.4 MB a trial, two at once, each in fresh pages).
    func withReadOnlyPlanePointers<R>(_ body: (UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int32>?) -> R) -> R {
        let (offsets, strides) = (self.offsets, self.strides)
        return storage.withUnsafeBufferPointer { b in
            let (ptrs, s) = Self.layout(b.baseAddress, offsets, strides) { $0 + $1 }
            return ptrs.withUnsafeBufferPointer { p in s.withUnsafeBufferPointer { body(p.baseAddress, $0.baseAddress) } }
        }
    }

    /// The same, writable, for TurboJPEG's conversion and swscale.
    mutating func withPlanePointers<R>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, UnsafeMutablePointer<Int32>?) -> R) -> R {
        let (offsets, strides) = (self.offsets, self.strides)
        return storage.withUnsafeMutableBufferPointer { b in
            var (ptrs, s) = Self.layout(b.baseAddress, offsets, strides) { $0 + $1 }
            return ptrs.withUnsafeMutableBufferPointer { p in s.withUnsafeMutableBufferPointer { body(p.baseAddress, $0.baseAddress) } }
        }
    }

    /// Plane addresses for writers that each fill their own rows on their own thread (`Resizer.resizeToPlanes`).
    struct Writer: @unchecked Sendable {
        let bases: [UnsafeMutablePointer<UInt8>]
        let strides: [Int32]
        let subsampling: TJSAMP
    }

    /// Runs `body` with this image's planes open for writing by row bands.
    mutating func withWriter<R>(_ body: (Writer) throws -> R) throws -> R {
        let (offsets, strides, subsampling) = (self.offsets, self.strides, self.subsampling)
        return try storage.withUnsafeMutableBufferPointer { b in
            guard let base = b.baseAddress else { throw MediaPrepError(.encodeFailed, "no plane memory") }
            return try body(Writer(bases: offsets.map { base + $0 }, strides: strides, subsampling: subsampling))
        }
    }

    /// Three plane starts from `base` (nil past the last plane) and three strides (0 past it).
    private static func layout<P>(_ base: P?, _ offsets: [Int], _ strides: [Int32], _ advance: (P, Int) -> P) -> ([P?], [Int32]) {
        ((0..<3).map { i in i < offsets.count ? base.map { advance($0, offsets[i]) } : nil },
         strides + Array(repeating: 0, count: 3 - strides.count))
    }
}

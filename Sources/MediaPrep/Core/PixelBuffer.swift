import Glibc

/// Channel layout of 8-bit interleaved pixels; gray stays gray so JPEGs of it stay one-channel.
package enum PixelLayout: Int, Sendable {
    case gray = 1
    case rgb = 3
    case rgba = 4
    /// RGBA whose alpha is known to be all 255: kept 4 bytes wide so dropping alpha costs no copy;
    /// swscale reads it as RGB0 and TurboJPEG as RGBX.
    case rgbx = 5

    package var channels: Int { self == .rgbx ? 4 : rawValue }
}

/// Decoded pixels kept as one contiguous value so every pipeline stage can be pure.
package struct PixelBuffer: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let layout: PixelLayout
    /// Rows top to bottom, `width * layout.channels` bytes each, no padding.
    package var bytes: [UInt8]

    /// Validates that `bytes` holds exactly `width × height` pixels of `layout`.
    package init(width: Int, height: Int, layout: PixelLayout, bytes: [UInt8]) throws {
        guard width > 0, height > 0, bytes.count == width * height * layout.channels else {
            throw MediaPrepError(.invalidDimensions, "\(bytes.count) bytes is not \(width)×\(height) \(layout) pixels")
        }
        self.init(width: width, height: height, layout: layout, storage: bytes)
    }

    /// For pipeline stages that computed `storage`'s size from the same dimensions.
    init(width: Int, height: Int, layout: PixelLayout, storage: [UInt8]) {
        self.width = width
        self.height = height
        self.layout = layout
        self.bytes = storage
    }

    package var rowBytes: Int { width * layout.channels }

    /// Zeroed pixel storage with 64 bytes of capacity past its end: swscale's SIMD loads read up
    /// to 16 bytes beyond the last row, which must stay inside the allocation.
    static func storage(_ count: Int) -> [UInt8] {
        HugePages.zeroed(count, spare: 64)
    }
    package var pixelCount: Int { width * height }

    /// The pixel at (x, y) as RGBA, gray and RGB expanded; for tests and sampling.
    package func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * layout.channels
        switch layout {
        case .gray: return (bytes[i], bytes[i], bytes[i], 255)
        case .rgb: return (bytes[i], bytes[i + 1], bytes[i + 2], 255)
        case .rgba: return (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3])
        case .rgbx: return (bytes[i], bytes[i + 1], bytes[i + 2], 255)
        }
    }
}

/// Bands of 16 rows (one 4:2:0 MCU row): what the size predictions sample, from pixels
/// (`PixelBuffer.everyBand`) or from YUV planes (`YUVPlanes.everyBand`), the same bands either way.
enum SampleBands {
    /// Bands `first`, `first + every`, … below band `below` that start inside `height` rows, with
    /// their rows (a band cut short by the bottom edge comes as it is).
    static func picked(_ every: Int, from first: Int, below: Int, height: Int) -> [(band: Int, rows: Int)] {
        stride(from: first, to: below, by: every).filter { $0 * 16 < height }.map { ($0, min(16, height - $0 * 16)) }
    }

    /// Every `every`-th whole band from band `every / 2`, for an image of `height` rows: nil when it
    /// is too short to sample (fewer than 4 × `every` whole bands).
    static func sampling(height: Int, every: Int) -> (first: Int, below: Int)? {
        let bands = height / 16
        guard every > 1, bands >= every * 4 else { return nil }
        return (every / 2, bands)
    }
}

extension PixelBuffer {
    /// Every `every`-th band of 16 rows (one 4:2:0 MCU row), stacked: an image whose JPEG is about
    /// that fraction of the whole one's (4:2:0 chroma never mixes rows across bands), for predicting
    /// sizes at a fraction of the cost. Whole bands only. Nil when the image is too short to sample.
    func sampledBands(every: Int) -> (pixels: PixelBuffer, fraction: Double)? {
        guard let (first, below) = SampleBands.sampling(height: height, every: every) else { return nil }
        let sample = everyBand(every, from: first, below: below)
        return (sample, Double(sample.height) / Double(height))
    }

    /// Bands of 16 rows number `first`, `first + every`, … below band `below`, stacked in order; a
    /// band cut short by the image's bottom edge comes as it is. What both size predictions sample
    /// (`sampledBands` for JPEG, `PNGEncoder.estimate`).
    func everyBand(_ every: Int, from first: Int, below: Int) -> PixelBuffer {
        bands(SampleBands.picked(every, from: first, below: below, height: height))
    }

    /// The 16-row bands `picked` lists, stacked.
    func bands(_ picked: [(band: Int, rows: Int)]) -> PixelBuffer {
        let band = 16 * rowBytes
        let height = picked.reduce(0) { $0 + $1.rows }
        var out = PixelBuffer.storage(height * rowBytes)
        bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                var at = 0
                for (b, n) in picked {
                    (d + at).update(from: s + b * band, count: n * rowBytes)
                    at += n * rowBytes
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: layout, storage: out)
    }
}

/// Large pixel buffers in 2 MB pages where the kernel allows them on request (THP "madvise", as on
/// Debian): a 5120 px RGBA decode otherwise takes ~14,000 page faults as its rows are first written.
enum HugePages {
    static let size = 2 << 20

    /// `count` zero bytes with `spare` more of capacity, huge-page advised before the first touch.
    static func zeroed(_ count: Int, spare: Int = 0) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count + spare) { buffer, initialized in
            if let base = buffer.baseAddress { advise(base, count + spare) }
            buffer.initialize(repeating: 0)
            initialized = count
        }
    }

    static func advise(_ base: UnsafeMutablePointer<UInt8>, _ count: Int) {
        guard count >= 4 * size else { return }
        let start = (Int(bitPattern: base) + size - 1) / size * size
        let end = (Int(bitPattern: base) + count) / size * size
        guard end > start, let p = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(p, end - start, MADV_HUGEPAGE)  // advice only: a refusal changes nothing
    }
}

extension PixelBuffer {
    /// Luma, Pillow's "L" conversion (ITU-R 601-2: what quality.py scores), one byte a pixel, with the
    /// same spare capacity past the end as `storage` (swscale may read there when it is resized).
    /// - Parameter threads: 2 converts the two halves side by side (a 1600 px view's took 1.5 ms on one core).
    func luma(threads: Int = 1) -> [UInt8] {
        if layout == .gray { return bytes }
        let n = pixelCount, c = layout.channels
        guard threads > 1, n >= 500_000 else {
            return [UInt8](unsafeUninitializedCapacity: n + 64) { d, count in
                bytes.withUnsafeBufferPointer { s in
                    guard let sb = s.baseAddress, let db = d.baseAddress else { return }
                    Self.luma(sb, c, into: db, 0..<n)
                }
                count = n
            }
        }
        var out = [UInt8](repeating: 0, count: n + 64)
        Parallel.pixels(n, from: bytes, into: &out, threads: threads) { s, d, range in Self.luma(s, c, into: d, range) }
        out.removeLast(64)  // kept as capacity: swscale may read there
        return out
    }

    private static func luma(_ s: UnsafePointer<UInt8>, _ c: Int, into d: UnsafeMutablePointer<UInt8>, _ range: Range<Int>) {
        for i in range {
            let r = Int(s[i * c]), g = Int(s[i * c + 1]), b = Int(s[i * c + 2])
            d[i] = UInt8((r * 299 + g * 587 + b * 114 + 500) / 1000)
        }
    }

    /// One gray channel, for content the detector found gray: the luma the score sees.
    func grayscale(threads: Int = 1) -> PixelBuffer {
        layout == .gray ? self : PixelBuffer(width: width, height: height, layout: .gray, storage: luma(threads: threads))
    }
}

extension PixelBuffer {
    /// The rows `range`, as their own image.
    func rows(_ range: Range<Int>) throws -> PixelBuffer {
        guard range.lowerBound >= 0, range.upperBound <= height, !range.isEmpty else {
            throw MediaPrepError(.invalidDimensions, "rows \(range) are outside a \(width)×\(height) image")
        }
        return PixelBuffer(width: width, height: range.count, layout: layout,
                           storage: Array(bytes[(range.lowerBound * rowBytes)..<(range.upperBound * rowBytes)]))
    }
}

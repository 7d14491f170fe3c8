import Glibc
import UploadPlanner

/// The frames a two-pass encode's first pass scaled, kept for its second pass (and any pass after an
/// overshoot) in a private scratch file: YUV 4:2:0 at the output size, each with its timestamp,
/// duration and colour tags. The second pass then decodes and scales nothing: a 60 s 1080p clip fitted
/// to 1,047,552 bytes spent 8.9 s decoding and scaling its source again for the second pass.
/// Bounded (`maxBytes`); where the first pass does not fit it, or the disk refuses a write, the
/// passes decode as before.
final class FrameCache {
    /// What this cache may hold now, reserved from `budget`: the frames the clip was expected to have
    /// (60 s of 640×360 at 30 fps is 622 MB, 60 s of 1080p 5.6 GB), grown while the room allows when
    /// the clip has more (a frame rate its container under-reports).
    private(set) var maxBytes: Int

    struct Record {
        var pts: Int64
        var duration: Int64
        var seconds: Double
        var primaries: Int32, transfer: Int32, colorspace: Int32
    }

    let width: Int, height: Int
    private let path: String
    private var fd: Int32
    private(set) var usable = true
    private(set) var frames = 0
    private var readAt: off_t = 0
    private var frameBytes: Int { width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }
    private static let headerBytes = 8 + 8 + 8 + 12

    private let budget: FrameCacheBudget
    private let scratch: String

    /// A cache for `frames` frames of `width`×`height`, or nil when they would not fit `maxBytes` or
    /// the room the process's caches share (`budget`).
    init?(width: Int, height: Int, frames: Int, maxBytes: Int? = nil, budget: FrameCacheBudget = .shared) throws {
        let bytes = (width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) + Self.headerBytes) * max(1, frames)
        let scratch = try OutputWriter.scratchDirectory()
        guard width > 0, height > 0, bytes <= maxBytes ?? .max, budget.reserve(bytes, scratch: scratch) else { return nil }
        (self.width, self.height, self.maxBytes, self.budget, self.scratch) = (width, height, bytes, budget, scratch)
        path = scratch + "/frames-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        fd = FileNameBytes.withCString(path) { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else {
            budget.release(bytes)
            return nil
        }
    }

    deinit {
        close(fd)
        unlink(path)
        budget.release(maxBytes)
    }

    /// Appends one frame (its planes as the scaler wrote them); a write the disk refuses ends the cache.
    func append(_ r: Record, planes: [UnsafeMutablePointer<UInt8>?], strides: [Int32]) {
        guard usable else { return }
        let need = (frames + 1) * (frameBytes + Self.headerBytes)
        if need > maxBytes {
            let more = max(need - maxBytes, maxBytes / 16)
            guard budget.reserve(more, scratch: scratch) else { return drop() }
            maxBytes += more
        }
        var header = [UInt8](repeating: 0, count: Self.headerBytes)
        header.withUnsafeMutableBytes { h in
            h.storeBytes(of: r.pts, toByteOffset: 0, as: Int64.self)
            h.storeBytes(of: r.duration, toByteOffset: 8, as: Int64.self)
            h.storeBytes(of: r.seconds, toByteOffset: 16, as: Double.self)
            h.storeBytes(of: r.primaries, toByteOffset: 24, as: Int32.self)
            h.storeBytes(of: r.transfer, toByteOffset: 28, as: Int32.self)
            h.storeBytes(of: r.colorspace, toByteOffset: 32, as: Int32.self)
        }
        let ok = header.withUnsafeMutableBytes { h in
            (try? vectors(UnsafeMutableRawPointer(h.baseAddress), planes: planes, strides: strides)).map { PosixIO.writeAll(fd, vectors: $0) } ?? false
        }
        guard ok else { return drop() }
        frames += 1
    }

    /// Stops caching: the passes after decode the source again.
    func drop() {
        usable = false
        _ = ftruncate(fd, 0)
        budget.release(maxBytes)
        maxBytes = 0
    }

    /// The next frame's time, in seconds from the stream's start, without reading it; nil at the end.
    func peekSeconds() -> Double? {
        var t = 0.0
        let n = withUnsafeMutableBytes(of: &t) { pread(fd, $0.baseAddress, 8, readAt + 16) }
        return n == 8 ? t : nil
    }

    /// From the first frame again, for a pass that reads the cache.
    func rewind() { readAt = 0 }

    /// The next frame's record, its planes written into `planes`; nil at the end.
    func next(into planes: [UnsafeMutablePointer<UInt8>?], strides: [Int32]) throws -> Record? {
        var header = [UInt8](repeating: 0, count: Self.headerBytes)
        let got = try header.withUnsafeMutableBytes { h -> Int? in
            PosixIO.readAll(fd, vectors: try vectors(UnsafeMutableRawPointer(h.baseAddress), planes: planes, strides: strides), at: readAt)
        }
        if got == 0 { return nil }
        guard got == Self.headerBytes + frameBytes else { throw MediaPrepError(.encodeFailed, "the first pass's frames could not be read back") }
        readAt += off_t(Self.headerBytes + frameBytes)
        return header.withUnsafeBytes { h in
            Record(pts: h.load(fromByteOffset: 0, as: Int64.self), duration: h.load(fromByteOffset: 8, as: Int64.self),
                   seconds: h.load(fromByteOffset: 16, as: Double.self), primaries: h.load(fromByteOffset: 24, as: Int32.self),
                   transfer: h.load(fromByteOffset: 28, as: Int32.self), colorspace: h.load(fromByteOffset: 32, as: Int32.self))
        }
    }

    /// A frame's record and planes as the file holds them: the header, then each plane in one piece,
    /// or row by row where its stride is wider. Written and read in place, never gathered into a
    /// buffer (a 30 s 4K clip's first pass keeps 2.8 GB).
    private func vectors(_ header: UnsafeMutableRawPointer?, planes: [UnsafeMutablePointer<UInt8>?], strides: [Int32]) throws -> [iovec] {
        var vectors = [iovec(iov_base: header, iov_len: Self.headerBytes)]
        for (plane, (w, rows)) in [(width, height), ((width + 1) / 2, (height + 1) / 2), ((width + 1) / 2, (height + 1) / 2)].enumerated() {
            guard plane < planes.count, plane < strides.count, let base = planes[plane] else {
                throw MediaPrepError(.encodeFailed, "a frame without its planes")
            }
            let stride = Int(strides[plane])
            if stride == w {
                vectors.append(iovec(iov_base: UnsafeMutableRawPointer(base), iov_len: w * rows))
            } else {
                for y in 0..<rows { vectors.append(iovec(iov_base: UnsafeMutableRawPointer(base + y * stride), iov_len: w)) }
            }
        }
        return vectors
    }
}

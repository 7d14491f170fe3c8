import Glibc
import UploadPlanner

/// The frames a two-pass encode's first pass scaled, kept for its second pass (and any pass after an
/// overshoot) in a private scratch file: YUV 4:2:0 at the output size, each with its timestamp,
/// duration and colour tags. The second pass then decodes and scales nothing: a 60 s 1080p clip fitted
/// to 1,047,552 bytes spent 8.9 s decoding and scaling its source again for the second pass.
/// Bounded by the room it is given (`ScratchRecords`); where the first pass does not fit it, or the
/// disk refuses a write, the passes decode as before.
final class FrameCache {
    struct Record {
        var pts: Int64
        var duration: Int64
        var seconds: Double
        var primaries: Int32, transfer: Int32, colorspace: Int32
    }

    let width: Int, height: Int
    /// The frames, each after its record, room for the clip's expected count taken from the room the
    /// process's caches share, grown while it allows when the clip has more (a frame rate its container
    /// under-reports): 60 s of 640×360 at 30 fps is 622 MB, 60 s of 1080p 5.6 GB.
    private let records: ScratchRecords
    private var next = 0
    private static let headerBytes = 8 + 8 + 8 + 12

    var usable: Bool { records.usable }
    var frames: Int { records.count }

    /// A cache for `frames` frames of `width`×`height`, or nil when they would not fit `maxBytes` or
    /// the room the process's caches share (`budget`).
    init?(width: Int, height: Int, frames: Int, maxBytes: Int? = nil, budget: FrameCacheBudget = .shared) throws {
        let recordBytes = Self.headerBytes + width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)  // the record, Y, U and V
        guard width > 0, height > 0, recordBytes * max(1, frames) <= maxBytes ?? .max,
              let records = try ScratchRecords(recordBytes: recordBytes, expected: max(1, frames), budget: budget) else { return nil }
        (self.width, self.height, self.records) = (width, height, records)
    }

    /// Appends one frame (its planes as the scaler wrote them); a write the disk refuses ends the cache.
    func append(_ r: Record, planes: [UnsafeMutablePointer<UInt8>?], strides: [Int32]) {
        guard usable else { return }
        var header = [UInt8](repeating: 0, count: Self.headerBytes)
        header.withUnsafeMutableBytes { h in
            h.storeBytes(of: r.pts, toByteOffset: 0, as: Int64.self)
            h.storeBytes(of: r.duration, toByteOffset: 8, as: Int64.self)
            h.storeBytes(of: r.seconds, toByteOffset: 16, as: Double.self)
            h.storeBytes(of: r.primaries, toByteOffset: 24, as: Int32.self)
            h.storeBytes(of: r.transfer, toByteOffset: 28, as: Int32.self)
            h.storeBytes(of: r.colorspace, toByteOffset: 32, as: Int32.self)
        }
        header.withUnsafeMutableBytes { h in
            guard let v = try? vectors(UnsafeMutableRawPointer(h.baseAddress), planes: planes, strides: strides) else { return drop() }
            records.append(v)
        }
    }

    /// Stops caching: the passes after decode the source again.
    func drop() { records.drop() }

    /// The next frame's time, in seconds from the stream's start, without reading it; nil at the end.
    func peekSeconds() -> Double? {
        var t = 0.0
        let ok = withUnsafeMutableBytes(of: &t) { b in
            (try? records.read(next, from: 16, into: [iovec(iov_base: b.baseAddress, iov_len: 8)])) != nil
        }
        return ok ? t : nil
    }

    /// From the first frame again, for a pass that reads the cache.
    func rewind() { next = 0 }

    /// The next frame's record, its planes written into `planes`; nil at the end.
    func next(into planes: [UnsafeMutablePointer<UInt8>?], strides: [Int32]) throws -> Record? {
        guard next < records.count else { return nil }
        var header = [UInt8](repeating: 0, count: Self.headerBytes)
        try header.withUnsafeMutableBytes { h in
            try records.read(next, into: try vectors(UnsafeMutableRawPointer(h.baseAddress), planes: planes, strides: strides))
        }
        next += 1
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

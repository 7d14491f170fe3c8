import Glibc
import UploadPlanner

/// An animation decoded once: its first whole pass keeps every canvas in a private scratch file, and
/// the passes after read them back instead of decoding again. A budget's tries read an animation up
/// to 16 times, two passes a try, and decoding was a third of their time (a 160-frame 1024² WebP:
/// libwebp and libwebpdemux 35 % of `perf` samples). Within the room the process's frame caches share
/// (`FrameCacheBudget`); past it, or where the disk refuses a write, the passes decode as before.
final class CachedAnimation: AnimationSource {
    private let inner: AnimationSource
    private let budget: FrameCacheBudget
    private var state = State.unread

    private enum State { case unread, kept(ScratchRecords), uncached }

    init(_ inner: AnimationSource, budget: FrameCacheBudget = .shared) {
        (self.inner, self.budget) = (inner, budget)
    }

    var width: Int { inner.width }
    var height: Int { inner.height }
    var plays: Int { inner.plays }

    func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
        switch state {
        case .kept(let store):
            let frameBytes = width * height * 4
            for index in 0..<store.count {
                var duration: Int64 = 0
                let canvas = try [UInt8](unsafeUninitializedCapacity: frameBytes) { c, count in
                    try withUnsafeMutableBytes(of: &duration) { d in
                        try store.read(index, into: [iovec(iov_base: d.baseAddress, iov_len: 8),
                                                     iovec(iov_base: UnsafeMutableRawPointer(c.baseAddress), iov_len: frameBytes)])
                    }
                    count = frameBytes
                }
                try body(PixelBuffer(width: width, height: height, layout: .rgba, storage: canvas), Int(duration))
            }
        case .uncached:
            try inner.forEachFrame(body)
        case .unread:
            // Only a pass read to its end is kept: one stopped early (a first frame) has not seen them all.
            state = .uncached
            let store = try? ScratchRecords(recordBytes: 8 + width * height * 4, budget: budget)
            try inner.forEachFrame { pixels, ms in
                if let store, store.usable { Self.keep(pixels, ms: ms, in: store) }
                try body(pixels, ms)
            }
            if let store, store.usable { state = .kept(store) }
        }
    }

    /// A canvas after its duration (the frame's size checked by the record's).
    private static func keep(_ pixels: PixelBuffer, ms: Int, in store: ScratchRecords) {
        var duration = Int64(ms)
        withUnsafeMutableBytes(of: &duration) { d in
            pixels.bytes.withUnsafeBytes { p in
                store.append([iovec(iov_base: d.baseAddress, iov_len: 8),
                              iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress), iov_len: p.count)])
            }
        }
    }
}

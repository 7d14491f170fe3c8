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
    private var store: Store?
    private var state = State.unread

    private enum State { case unread, kept, uncached }

    init(_ inner: AnimationSource, budget: FrameCacheBudget = .shared) {
        (self.inner, self.budget) = (inner, budget)
    }

    var width: Int { inner.width }
    var height: Int { inner.height }
    var plays: Int { inner.plays }

    func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
        switch state {
        case .kept:
            if let store { return try store.replay(width: width, height: height, body) }
            try inner.forEachFrame(body)
        case .uncached:
            try inner.forEachFrame(body)
        case .unread:
            // Only a pass read to its end is kept: one stopped early (a first frame) has not seen them all.
            state = .uncached
            let store = try? Store(budget: budget, frameBytes: width * height * 4)
            try inner.forEachFrame { pixels, ms in
                if let store, store.usable { store.append(pixels, ms: ms) }
                try body(pixels, ms)
            }
            if let store, store.usable {
                (self.store, state) = (store, .kept)
            }
        }
    }

    /// The canvases, each after its duration, in a scratch file removed when the animation goes;
    /// its room reserved a few megabytes at a time.
    private final class Store {
        private(set) var usable = true
        private let budget: FrameCacheBudget
        private let scratch: String
        private let path: String
        private let fd: Int32
        private let frameBytes: Int
        private var frames = 0
        private var reserved = 0
        /// Room taken at a time: 32 MB or one frame.
        private let chunk: Int

        init(budget: FrameCacheBudget, frameBytes: Int) throws {
            (self.budget, self.frameBytes) = (budget, frameBytes)
            chunk = max(32 << 20, frameBytes + 8)
            scratch = try OutputWriter.scratchDirectory()
            path = scratch + "/canvases-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            fd = FileNameBytes.withCString(path) { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
            guard fd >= 0 else { throw MediaPrepError(.encodeFailed, "no scratch file for the animation's frames") }
        }

        deinit {
            close(fd)
            unlink(path)
            budget.release(reserved)
        }

        func append(_ pixels: PixelBuffer, ms: Int) {
            guard usable else { return }
            guard pixels.bytes.count == frameBytes else { return drop() }
            if (frames + 1) * (frameBytes + 8) > reserved {
                guard budget.reserve(chunk, scratch: scratch) else { return drop() }
                reserved += chunk
            }
            var duration = Int64(ms)
            let ok = withUnsafeMutableBytes(of: &duration) { d in
                pixels.bytes.withUnsafeBytes { p in
                    PosixIO.writeAll(fd, vectors: [iovec(iov_base: d.baseAddress, iov_len: 8),
                                                   iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress), iov_len: p.count)])
                }
            }
            guard ok else { return drop() }
            frames += 1
        }

        /// Stops keeping: the room goes back, and the passes after decode again.
        private func drop() {
            usable = false
            _ = ftruncate(fd, 0)
            budget.release(reserved)
            reserved = 0
        }

        func replay(width: Int, height: Int, _ body: (PixelBuffer, Int) throws -> Void) throws {
            var at: off_t = 0
            for _ in 0..<frames {
                var duration: Int64 = 0
                var got: Int? = nil
                let canvas = [UInt8](unsafeUninitializedCapacity: frameBytes) { c, count in
                    got = withUnsafeMutableBytes(of: &duration) { d in
                        PosixIO.readAll(fd, vectors: [iovec(iov_base: d.baseAddress, iov_len: 8),
                                                      iovec(iov_base: UnsafeMutableRawPointer(c.baseAddress), iov_len: frameBytes)], at: at)
                    }
                    count = got == frameBytes + 8 ? frameBytes : 0
                }
                guard canvas.count == frameBytes else { throw MediaPrepError(.encodeFailed, "the animation's kept frames could not be read back") }
                at += off_t(frameBytes + 8)
                try body(PixelBuffer(width: width, height: height, layout: .rgba, storage: canvas), Int(duration))
            }
        }
    }
}

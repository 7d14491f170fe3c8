import Glibc
import UploadPlanner

/// Records of one size (a frame and what goes with it) appended to a private scratch file and read
/// back by index, within the room the process's frame caches share (`FrameCacheBudget`), taken a
/// few megabytes at a time. A write the disk refuses, or room not given, ends it (`usable`): the file
/// is emptied and the room goes back.
final class ScratchRecords {
    let recordBytes: Int
    private(set) var count = 0
    private(set) var usable = true
    private let budget: FrameCacheBudget
    private let scratch: String
    private let path: String
    private let fd: Int32
    private var reserved = 0
    /// Room taken at a time: 32 MB or one record.
    private let chunk: Int

    init(recordBytes: Int, budget: FrameCacheBudget) throws {
        (self.recordBytes, self.budget) = (recordBytes, budget)
        chunk = max(32 << 20, recordBytes)
        scratch = try OutputWriter.scratchDirectory()
        path = scratch + "/frames-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        fd = FileNameBytes.withCString(path) { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw MediaPrepError(.encodeFailed, "no scratch file for an animation's frames") }
    }

    deinit {
        close(fd)
        unlink(path)
        budget.release(reserved)
    }

    /// Appends one record from `vectors`, which must hold `recordBytes` in all.
    func append(_ vectors: [iovec]) {
        guard usable else { return }
        guard vectors.reduce(0, { $0 + $1.iov_len }) == recordBytes else { return drop() }
        if (count + 1) * recordBytes > reserved {
            guard budget.reserve(chunk, scratch: scratch) else { return drop() }
            reserved += chunk
        }
        guard PosixIO.writeAll(fd, vectors: vectors) else { return drop() }
        count += 1
    }

    /// Reads record `index` into `vectors` (`recordBytes` in all).
    func read(_ index: Int, into vectors: [iovec]) throws {
        guard usable, index < count,
              PosixIO.readAll(fd, vectors: vectors, at: off_t(index) * off_t(recordBytes)) == recordBytes else {
            throw MediaPrepError(.encodeFailed, "an animation's kept frames could not be read back")
        }
    }

    private func drop() {
        usable = false
        _ = ftruncate(fd, 0)
        budget.release(reserved)
        reserved = 0
    }
}

import Glibc
import UploadPlanner

/// Records of one size (a frame and what goes with it) appended to a private scratch file and read
/// back by index, within the room the process's frame caches share (`FrameCacheBudget`): a video's
/// scaled frames for its second pass, an animation's canvases and scaled frames for its tries. The
/// room expected is taken at the start, more a sixteenth at a time as records come. A write the disk
/// refuses, or room not given, ends it (`drop`): the file is emptied and the room goes back.
final class ScratchRecords {
    let recordBytes: Int
    private(set) var count = 0
    private(set) var usable = true
    private let budget: FrameCacheBudget
    private let scratch: String
    private let path: String
    private let fd: Int32
    private var reserved = 0

    /// Records in a new scratch file, with room for `expected` of them taken now; nil when the room or
    /// the file is not given.
    init?(recordBytes: Int, expected: Int = 0, budget: FrameCacheBudget) throws {
        (self.recordBytes, self.budget) = (recordBytes, budget)
        scratch = try OutputWriter.scratchDirectory()
        let room = recordBytes * max(0, expected)
        guard recordBytes > 0, room == 0 || budget.reserve(room, scratch: scratch) else { return nil }
        reserved = room
        path = scratch + "/frames-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        fd = FileNameBytes.withCString(path) { open($0, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else {
            budget.release(room)
            return nil
        }
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
        let need = (count + 1) * recordBytes
        if need > reserved {
            let more = max(need - reserved, reserved / 16)
            guard budget.reserve(more, scratch: scratch) else { return drop() }
            reserved += more
        }
        guard PosixIO.writeAll(fd, vectors: vectors) else { return drop() }
        count += 1
    }

    /// Reads from record `index`, `offset` bytes in, exactly what `vectors` hold.
    func read(_ index: Int, from offset: Int = 0, into vectors: [iovec]) throws {
        let bytes = vectors.reduce(0) { $0 + $1.iov_len }
        guard usable, index < count, offset + bytes <= recordBytes,
              PosixIO.readAll(fd, vectors: vectors, at: off_t(index) * off_t(recordBytes) + off_t(offset)) == bytes else {
            throw MediaPrepError(.encodeFailed, "kept frames could not be read back")
        }
    }

    /// Stops keeping: the file is emptied and the room goes back.
    func drop() {
        usable = false
        _ = ftruncate(fd, 0)
        budget.release(reserved)
        reserved = 0
    }
}

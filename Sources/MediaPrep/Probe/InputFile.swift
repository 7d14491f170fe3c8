import Glibc

/// One input opened once: a single `open` and `fstat`, its start read for sniffing, and the rest
/// read on only when the whole file is needed (an image), continuing where the start left off.
final class InputFile {
    let path: String
    let size: Int
    private let fd: Int32

    init(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw MediaPrepError(.unreadableFile, errno == ENOENT ? "no such file: \(path)" : "cannot read \(path): \(reason)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw MediaPrepError(.unreadableFile, "\(path) is not a regular file")
        }
        guard st.st_size > 0 else {
            close(fd)
            throw MediaPrepError(.emptyInput, "\(path) is empty")
        }
        (self.path, self.fd, size) = (path, fd, Int(st.st_size))
    }

    deinit { close(fd) }

    /// The first `count` bytes (fewer for a shorter file).
    func head(_ count: Int) -> [UInt8] { read(into: [], upTo: min(count, size)) }

    /// The whole file, reusing `start` (its first bytes, already read); refused over `limit`.
    func whole(after start: [UInt8], limit: Int = FileBytes.maxReadBytes) throws -> [UInt8] {
        guard size <= limit else {
            throw MediaPrepError(.overLimit, "\(path) is \(size) bytes, over the \(limit)-byte limit for reading an image into memory")
        }
        return start.count >= size ? start : read(into: start, upTo: size)
    }

    /// `start` followed by the file's bytes from `start.count` up to `end`, by POSIX reads into
    /// uninitialized memory (only the bytes read count: a file that shrank comes out shorter).
    private func read(into start: [UInt8], upTo end: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: end) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, end)
            var got = start.count
            start.withUnsafeBufferPointer { s in if let b = s.baseAddress { base.update(from: b, count: s.count) } }
            while got < end {
                let n = pread(fd, base + got, end - got, off_t(got))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                got += n
            }
            initialized = got
        }
    }
}

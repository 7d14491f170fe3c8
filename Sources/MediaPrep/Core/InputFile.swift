import Glibc
import UploadPlanner

/// One input opened once: a single `open` and `fstat`, its start read for sniffing, and the rest
/// read on only when the whole file is needed (an image), continuing where the start left off.
final class InputFile {
    let path: String
    let size: Int
    private let fd: Int32

    init(_ path: String) throws {
        let (fd, size) = try Self.openRegular(path)
        (self.path, self.fd, self.size) = (path, fd, size)
    }

    /// Opens `path` without blocking (a FIFO would wait forever for a writer in `open`), then accepts only
    /// a regular file of a real file system: a FIFO, socket or device, or a `/proc` or `/sys` file
    /// (sizes that are not their content), is refused at once with a coded error.
    static func openRegular(_ path: String) throws -> (fd: Int32, size: Int) {
        let fd = FileNameBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw MediaPrepError(.unreadableFile, errno == ENOENT ? "no such file: \(path)" : "cannot read \(path): \(reason)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            throw MediaPrepError(.unreadableFile, "cannot stat \(path): \(String(cString: strerror(errno)))")
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw MediaPrepError(.unreadableFile, "\(path) is \(kind(st.st_mode)), not a regular file")
        }
        if let type = fileSystemType(fd), kernelFileSystems.contains(type) {
            close(fd)
            throw MediaPrepError(.unsupportedFormat, "\(path) is a kernel file (/proc, /sys), not media")
        }
        guard st.st_size > 0 else {
            close(fd)
            throw MediaPrepError(.emptyInput, "\(path) is empty")
        }
        return (fd, Int(st.st_size))
    }

    /// procfs, sysfs, debugfs, securityfs, cgroup, cgroup2, tracefs, configfs.
    private static let kernelFileSystems: [Int] = [0x9FA0, 0x6265_6572, 0x6462_6720, 0x7363_6673, 0x27E0EB, 0x6367_7270, 0x7472_6163, 0x6265_6570]

    private typealias FStatFS = @convention(c) (Int32, UnsafeMutableRawPointer?) -> Int32
    /// glibc's `fstatfs` (its header is not in Swift's Glibc module), looked up once by name.
    private static let fstatfsCall = PosixIO.symbol("fstatfs", as: FStatFS.self)

    /// `f_type`, the first member (a C `long`) of `struct statfs` on every Linux ABI; the buffer is
    /// larger than the struct (120 bytes on x86-64 and arm64).
    private static func fileSystemType(_ fd: Int32) -> Int? {
        guard let call = fstatfsCall else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        guard call(fd, buffer) == 0 else { return nil }
        return buffer.load(as: Int.self) & 0xFFFF_FFFF
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a folder"
        default: return "not a file"
        }
    }

    deinit { close(fd) }

    /// The open descriptor, for a reader that takes the file as it needs it (it stays open meanwhile).
    func withDescriptor<R>(_ body: (Int32) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(fd) }
    }

    /// `count` bytes at `offset` (fewer at the end), for walking a container's boxes.
    func read(at offset: Int, count: Int) throws -> [UInt8] {
        let end = min(size, offset + count)
        guard offset < end else { return [] }
        return [UInt8](unsafeUninitializedCapacity: end - offset) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            initialized = fill(base, from: offset, count: end - offset)
        }
    }

    /// Reads `count` bytes at `offset` into `base`; returns how many it got (fewer if the file shrank).
    private func fill(_ base: UnsafeMutablePointer<UInt8>, from offset: Int, count: Int) -> Int {
        var got = 0
        while got < count {
            let n = pread(fd, base + got, count - got, off_t(offset + got))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return got
    }

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
            start.withUnsafeBufferPointer { s in if let b = s.baseAddress { base.update(from: b, count: s.count) } }
            initialized = start.count + fill(base + start.count, from: start.count, count: end - start.count)
        }
    }
}

import Glibc
import UploadPlanner

/// A range of the input, new bytes, or zeros: what a rewrite writes, in order.
package enum FilePiece: Sendable, Equatable {
    case source(Range<Int>)
    case bytes([UInt8])
    case zeros(Int)

    var count: Int {
        switch self {
        case .source(let r): return r.count
        case .bytes(let b): return b.count
        case .zeros(let n): return n
        }
    }
}


/// Copies byte ranges of one file into a new one, with its own read loop: a source that shrinks or
/// lies about its size is an error, never a spin or a short file sent as if whole.
package enum FileCopier {
    /// The whole file, checked to be as long as it was when planned.
    package static func copy(from source: String, expectedSize: Int, to destination: String) throws {
        try write([.source(0..<expectedSize)], from: source, expectedSize: expectedSize, to: destination)
    }

    static func write(_ pieces: [FilePiece], from source: String, expectedSize: Int, to destination: String) throws {
        // The same checks as the probe's (no FIFO, device or kernel file), then the size it planned for.
        let (input, size) = try InputFile.openRegular(source)
        defer { close(input) }
        guard size == expectedSize else {
            throw MediaPrepError(.truncated, "\(source) changed size while it was prepared (\(expectedSize) bytes, now \(size))")
        }
        var st = stat()
        let output = FileNameBytes.withCString(destination) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard output >= 0 else { throw writeError(destination) }
        var ok = false
        defer {
            close(output)
            if !ok { unlink(destination) }
        }
        _ = posix_fadvise(input, 0, 0, POSIX_FADV_SEQUENTIAL)
        var written = 0
        for piece in pieces {
            defer { written += piece.count }
            switch piece {
            case .source(let r): try copyRange(r, from: input, source: source, to: output, at: written, destination: destination)
            case .bytes(let b): try b.withUnsafeBytes { try writeAll(output, $0, destination) }
            case .zeros(let n):
                let block = [UInt8](repeating: 0, count: min(n, 1 << 20))
                var left = n
                while left > 0 {
                    let k = min(left, block.count)
                    try block.withUnsafeBytes { try writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<k]), destination) }
                    left -= k
                }
            }
        }
        guard fstat(input, &st) == 0, Int(st.st_size) == expectedSize else {
            throw MediaPrepError(.truncated, "\(source) changed size while it was copied")
        }
        ok = true
    }

    /// `copy_file_range` first (no copy through user space; a reflink where the file system can),
    /// POSIX reads where the kernel cannot; either way a read that ends early is an error. When input
    /// and output offsets share their place in a page (a rewrite that keeps sizes), the few bytes up to
    /// the page boundary go through user space so the kernel copies whole pages (1 GiB MOV, ext4:
    /// 325 ms aligned against 385 ms at offset 6121).
    private static func copyRange(_ r: Range<Int>, from input: Int32, source: String, to output: Int32, at outputOffset: Int,
                                  destination: String) throws {
        var offset = off_t(r.lowerBound)
        var left = r.count
        let misalignment = r.lowerBound % 4096
        if misalignment != 0, (r.lowerBound - outputOffset) % 4096 == 0 {
            let head = min(4096 - misalignment, left)
            try userCopy(head, from: input, at: &offset, source: source, to: output, destination: destination)
            left -= head
        }
        while left > 0, let copyFileRange = kernelCopy {
            let n = copyFileRange(input, &offset, output, nil, min(left, 1 << 30), 0)
            if n > 0 { left -= n; continue }
            if n == 0 { throw shrank(source) }
            if errno == EINTR { continue }
            guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP, EPERM].contains(errno) else {
                if errno == ENOSPC || errno == EDQUOT || errno == EFBIG { throw writeError(destination) }
                throw MediaPrepError(.unreadableFile, "cannot read \(source): \(String(cString: strerror(errno)))")
            }
            break
        }
        if left > 0 { try userCopy(left, from: input, at: &offset, source: source, to: output, destination: destination) }
    }

    private static func userCopy(_ count: Int, from input: Int32, at offset: inout off_t, source: String, to output: Int32,
                                 destination: String) throws {
        var buffer = [UInt8](repeating: 0, count: min(count, 1 << 20))
        var left = count
        while left > 0 {
            let n = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, min(left, $0.count), offset) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw MediaPrepError(.unreadableFile, "cannot read \(source): \(String(cString: strerror(errno)))") }
            if n == 0 { throw shrank(source) }
            try buffer.withUnsafeBytes { try writeAll(output, UnsafeRawBufferPointer(rebasing: $0[0..<n]), destination) }
            offset += off_t(n)
            left -= n
        }
    }

    private typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<off_t>?, Int32, UnsafeMutablePointer<off_t>?, Int, UInt32) -> Int

    /// glibc's `copy_file_range` (declared only under `_GNU_SOURCE`, so looked up once by name).
    private static let kernelCopy = PosixIO.symbol("copy_file_range", as: CopyFileRange.self)

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, _ destination: String) throws {
        guard PosixIO.writeAll(fd, bytes) else { throw writeError(destination) }
    }

    private static func shrank(_ source: String) -> MediaPrepError {
        MediaPrepError(.truncated, "\(source) ended before its stated size while it was copied (it shrank, or its size is not its content)")
    }

    static func writeError(_ destination: String) -> MediaPrepError {
        MediaPrepError(.writeFailed, "cannot write \(destination): \(String(cString: strerror(errno)))")
    }
}

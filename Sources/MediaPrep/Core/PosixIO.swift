import Glibc

/// The few POSIX steps several places need, written once: a write that goes on until every byte is
/// out (or says why not), and glibc functions Swift's Glibc module does not declare.
package enum PosixIO {
    /// Writes all of `bytes`, retrying after EINTR and short writes; false with `errno` set on failure.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, base + done, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// Writes every byte the vectors point at, in order, without gathering them first (writev, at
    /// most 1,024 vectors a call), retrying after EINTR and short writes; false with `errno` set.
    package static func writeAll(_ fd: Int32, vectors: [iovec]) -> Bool {
        var v = vectors
        var i = 0
        advance(&v, &i, by: 0)
        while i < v.count {
            let n = v.withUnsafeBufferPointer { b in b.baseAddress.map { writev(fd, $0 + i, Int32(min(1024, v.count - i))) } ?? -1 }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            advance(&v, &i, by: n)
        }
        return true
    }

    /// Moves past `n` bytes a writev or preadv took, from vector `i` on: whole vectors skipped, the
    /// one it stopped in begun where it stopped, and `i` left at the next vector with bytes to go.
    private static func advance(_ v: inout [iovec], _ i: inout Int, by n: Int) {
        var left = n
        while i < v.count && (left > 0 || v[i].iov_len == 0) {
            if left >= v[i].iov_len {
                left -= v[i].iov_len
                i += 1
            } else {
                v[i].iov_base = v[i].iov_base.map { $0 + left }
                v[i].iov_len -= left
                left = 0
            }
        }
    }

    /// Reads from `offset` into the vectors, in order, until they are full or the file ends (preadv,
    /// retrying after EINTR and short reads); the bytes read, or nil with `errno` set on failure.
    package static func readAll(_ fd: Int32, vectors: [iovec], at offset: off_t) -> Int? {
        var v = vectors
        var (i, done) = (0, 0)
        advance(&v, &i, by: 0)
        while i < v.count {
            let n = v.withUnsafeBufferPointer { b in
                b.baseAddress.map { preadv(fd, $0 + i, Int32(min(1024, v.count - i)), offset + off_t(done)) } ?? -1
            }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            done += n
            advance(&v, &i, by: n)
        }
        return done
    }

    /// A line for people on stderr (a failed write there has nowhere to be told).
    package static func writeStandardError(_ s: String) {
        _ = writeAll(STDERR_FILENO, Array(s.utf8))
    }

    private final class ThreadBody { let run: @Sendable () -> Void; init(_ run: @escaping @Sendable () -> Void) { self.run = run } }

    /// Runs `body` on a thread of its own, detached: for a loop that blocks in read(2), which would
    /// hold one of the concurrency pool's few threads. False when no thread could be started.
    @discardableResult
    package static func detachThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// A kernel file (/proc, /sys, a cgroup's) read with read(2) until its end, at most `limit` bytes:
    /// its stated size is not its content, which Foundation's reader does not expect.
    package static func kernelFile(_ path: String, limit: Int = 8192) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        var got = 0
        while got < limit {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + got }, limit - got) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return got > 0 ? String(decoding: buffer.prefix(got), as: UTF8.self) : nil
    }

    /// A process's own peak resident size in KiB (VmHWM of /proc/PID/status). Not getrusage's or
    /// wait4's ru_maxrss: Linux carries the pre-exec memory map's high-water mark (the parent's)
    /// into a child.
    package static func peakResidentKiB(pid: String = "self") -> Int? {
        kernelField("/proc/\(pid)/status", "VmHWM:")
    }

    /// Bytes of memory the kernel says can be had without swapping (MemAvailable: free memory and
    /// reclaimable page cache), or nil.
    package static func availableMemory() -> Int? {
        kernelField("/proc/meminfo", "MemAvailable:").map { $0 * 1024 }
    }

    /// The number after `key` on its line of a kernel status file ("VmHWM:  592448 kB"), or nil.
    private static func kernelField(_ path: String, _ key: String) -> Int? {
        guard let text = kernelFile(path), let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    /// Bytes an unprivileged process may still write on the filesystem holding `path`, or nil.
    package static func freeSpace(_ path: String) -> Int? {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return nil }
        return Int(s.f_bavail) * Int(s.f_frsize)
    }

    /// A glibc function by name (`copy_file_range`, `fstatfs`, `sched_getaffinity`: declared only
    /// under `_GNU_SOURCE` or in headers the module lacks), or nil where this libc has none.
    static func symbol<F>(_ name: String, as type: F.Type) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}

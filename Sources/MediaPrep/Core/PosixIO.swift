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

    /// A glibc function by name (`copy_file_range`, `fstatfs`, `sched_getaffinity`: declared only
    /// under `_GNU_SOURCE` or in headers the module lacks), or nil where this libc has none.
    static func symbol<F>(_ name: String, as type: F.Type) -> F? {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}

import FoundationEssentials
import Glibc

/// File reading with errors typed for the CLI.
package enum FileBytes {
    /// Files larger than this are never read into memory (images over it are refused; videos,
    /// voice and plain files are copied and planned by size without being read).
    package static let maxReadBytes = 256 * 1024 * 1024

    /// The whole file, by POSIX reads (Foundation's `contents(atPath:)` leaks 4 KB on an empty file).
    package static func read(_ path: String, limit: Int = maxReadBytes) throws -> [UInt8] {
        let (fd, size) = try InputFile.openRegular(path)  // refuses missing paths, FIFOs, devices, /proc and empty files
        defer { close(fd) }
        guard size <= limit else {
            throw MediaPrepError(.overLimit, "\(path) is \(size) bytes, over the \(limit)-byte limit for reading an image into memory")
        }
        // Only the bytes read count as initialized: no zeroing pass over a 12 MB photo first.
        let out = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, size)
            var got = 0
            while got < size {
                let n = Glibc.read(fd, base + got, size - got)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                got += n
            }
            initialized = got  // less when the file shrank while being read
        }
        guard !out.isEmpty else { throw MediaPrepError(.unreadableFile, "cannot read \(path)") }
        return out
    }

    /// The first bytes only, for sniffing large files without reading them whole.
    package static func head(_ path: String, count: Int = 64) throws -> [UInt8] {  // FormatSniffer.headerLength
        let file = try InputFile(path)
        return file.head(count)
    }

    /// The last bytes only (end markers of a file that may be cut off).
    package static func tail(_ path: String, count: Int) throws -> [UInt8] {
        let file = try InputFile(path)
        return try file.read(at: max(0, file.size - count), count: count)
    }

    /// Size of a regular file; directories, missing paths, FIFOs, devices and kernel files are refused
    /// here, before any stage tries to read or copy them.
    package static func size(_ path: String) throws -> Int { try InputFile(path).size }
}

import FoundationEssentials
import Glibc
import UploadPlanner

/// The files a batch works through: a known list, or paths that keep arriving (a queue, stdin).
public struct BatchInputs: Sendable {
    public let stream: AsyncStream<String>
    /// Known up front for a list; nil for a stream.
    public let count: Int?
    /// A list's paths, known up front (an iPhone Live Photo's still and movie are paired from them).
    package var paths: [String]? = nil

    public static func list(_ paths: [String]) -> BatchInputs {
        let (stream, c) = AsyncStream<String>.makeStream()
        for p in paths { c.yield(p) }
        c.finish()
        return BatchInputs(stream: stream, count: paths.count, paths: paths)
    }

    /// Command-line arguments as files: folders walked recursively in sorted order, hidden entries
    /// skipped, each real folder once.
    public static func expand(_ arguments: [String]) -> [String] { InputWalker.expand(arguments) }

    public static func stream(_ paths: AsyncStream<String>) -> BatchInputs {
        BatchInputs(stream: paths, count: nil)
    }

    /// Newline-separated paths (or `separator`-separated: 0 for `find -print0`) from a file descriptor
    /// (stdin for `-`), yielded as each arrives; names are bytes (`FileNameBytes`).
    public static func lines(fileDescriptor fd: Int32, separator: UInt8 = 0x0A) -> BatchInputs {
        let (stream, c) = AsyncStream<String>.makeStream()
        let started = PosixIO.detachThread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                pending += chunk[0..<n]
                var from = 0
                while let nl = pending[from...].firstIndex(of: separator) {
                    let line = FileNameBytes.string(pending[from..<nl])
                    from = nl + 1
                    let path = separator == 0x0A && line.hasSuffix("\r") ? String(line.dropLast()) : line
                    if !path.isEmpty { c.yield(path) }
                }
                pending.removeFirst(from)
            }
            let last = FileNameBytes.string(pending)
            if !last.isEmpty { c.yield(last) }
            c.finish()
        }
        if !started { c.finish() }
        return BatchInputs(stream: stream, count: nil)
    }
}


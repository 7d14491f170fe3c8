import Foundation

/// The files a batch works through: a known list, or paths that keep arriving (a queue, stdin).
public struct BatchInputs: Sendable {
    public let stream: AsyncStream<String>
    /// Known up front for a list; nil for a stream.
    public let count: Int?

    public static func list(_ paths: [String]) -> BatchInputs {
        let (stream, c) = AsyncStream<String>.makeStream()
        for p in paths { c.yield(p) }
        c.finish()
        return BatchInputs(stream: stream, count: paths.count)
    }

    /// Command-line arguments as files: folders walked recursively in sorted order, hidden entries
    /// skipped, each real folder once.
    public static func expand(_ arguments: [String]) -> [String] { InputWalker.expand(arguments) }

    public static func stream(_ paths: AsyncStream<String>) -> BatchInputs {
        BatchInputs(stream: paths, count: nil)
    }

    /// Newline-separated paths from a file descriptor (stdin for `-`), yielded as each line arrives.
    public static func lines(fileDescriptor fd: Int32) -> BatchInputs {
        let (stream, c) = AsyncStream<String>.makeStream()
        let thread = Thread {
            let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let nl = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...nl)
                    let path = line.hasSuffix("\r") ? String(line.dropLast()) : line
                    if !path.isEmpty { c.yield(path) }
                }
            }
            let last = String(decoding: pending, as: UTF8.self)
            if !last.isEmpty { c.yield(last) }
            c.finish()
        }
        thread.start()
        return BatchInputs(stream: stream, count: nil)
    }
}

/// Expands command-line arguments into files: folders walked recursively in sorted order,
/// hidden entries skipped, each real folder visited once (symlink loops end there).
package enum InputWalker {
    package static func expand(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var seen = Set<String>()
        for a in arguments { walk(a, top: true, into: &out, seen: &seen) }
        return out
    }

    /// True when `path` names a folder (following links).
    package static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    private static func walk(_ path: String, top: Bool, into out: inout [String], seen: inout Set<String>) {
        guard isDirectory(path) else {
            // A missing or unreadable path given by the user is kept: preparing it reports why.
            out.append(path)
            return
        }
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard seen.insert(real).inserted else { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            if top { out.append(path) }
            return
        }
        let base = path.hasSuffix("/") ? String(path.dropLast()) : path
        for name in names.sorted() where !name.hasPrefix(".") {
            walk(base + "/" + name, top: false, into: &out, seen: &seen)
        }
    }
}

import Foundation

/// Writes prepared files atomically under unique names, never replacing anything.
public enum OutputWriter {
    /// Writes `data` as `dir/base.ext`, or `base_1.ext`, `base_2.ext`… if taken (as SimpleX's
    /// uniqueCombine does). The bytes go to a temporary file first and are hard-linked into
    /// place, which fails rather than overwrites if the name appeared meanwhile.
    public static func writeUnique(_ data: [UInt8], directory dir: String, base: String, ext: String,
                                   cancellation: CancellationFlag? = nil) throws -> String {
        try place(directory: dir, base: base, ext: ext, cancellation: cancellation) { tmp in FileManager.default.createFile(atPath: tmp, contents: Data(data)) }
    }

    /// Copies a file (a video may be large: it is never read into memory) under a unique name.
    public static func copyUnique(from source: String, directory dir: String, base: String, ext: String,
                                  cancellation: CancellationFlag? = nil) throws -> String {
        try place(directory: dir, base: base, ext: ext, cancellation: cancellation) { tmp in
            (try? FileManager.default.copyItem(atPath: source, toPath: tmp)) != nil
        }
    }

    /// Temporary files being filled right now; an interrupted process removes them on its way out.
    private static let pending = TemporaryFiles()

    /// Removes every temporary file still being written (for a signal handler's last step).
    public static func removeTemporaryFiles() { pending.removeAll() }

    static func place(directory dir: String, base: String, ext: String, cancellation: CancellationFlag? = nil,
                      fill: (String) -> Bool) throws -> String {
        try cancellation?.check()
        var isDir: ObjCBool = false
        if !FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw MediaPrepError(.writeFailed, "cannot create \(dir): \(error.localizedDescription)")
            }
        } else if !isDir.boolValue {
            throw MediaPrepError(.writeFailed, "\(dir) is not a directory")
        }
        let tmp = dir + "/.mediaprep-\(UUID().uuidString).tmp"
        pending.add(tmp)
        defer { pending.remove(tmp) }
        guard fill(tmp) else {
            unlink(tmp)
            throw MediaPrepError(.writeFailed, "cannot write in \(dir)")
        }
        defer { unlink(tmp) }
        // Interrupted while filling: the temporary file goes, nothing is linked into place.
        try cancellation?.check()
        for n in 0..<10_000 {
            let dotExt = ext.isEmpty ? "" : "." + ext
            let name = n == 0 ? base + dotExt : "\(base)_\(n)" + dotExt
            let path = dir + "/" + name
            if link(tmp, path) == 0 { return path }
            if errno != EEXIST { throw MediaPrepError(.writeFailed, "cannot create \(path): \(String(cString: strerror(errno)))") }
        }
        throw MediaPrepError(.writeFailed, "no free name for \(base).\(ext) in \(dir)")
    }

    /// Writes `data` to an explicit path atomically (temporary file, then rename), refusing to
    /// replace `protected` (the input it was made from).
    public static func writeReplacing(_ data: [UInt8], to path: String, protecting protected: String? = nil) throws {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if let protected, URL(fileURLWithPath: protected).standardizedFileURL.resolvingSymlinksInPath() == url.resolvingSymlinksInPath() {
            throw MediaPrepError(.writeFailed, "refusing to overwrite the input \(protected)")
        }
        let dir = url.deletingLastPathComponent().path
        let tmp = dir + "/.mediaprep-\(UUID().uuidString).tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(data)) else {
            throw MediaPrepError(.writeFailed, "cannot write in \(dir)")
        }
        if rename(tmp, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw MediaPrepError(.writeFailed, "cannot create \(path): \(reason)")
        }
    }
}

/// Paths of temporary files in progress, guarded by a lock (workers add and remove them concurrently).
private final class TemporaryFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var paths = Set<String>()
    func add(_ p: String) { lock.lock(); paths.insert(p); lock.unlock() }
    func remove(_ p: String) { lock.lock(); paths.remove(p); lock.unlock() }
    func removeAll() {
        lock.lock()
        for p in paths { unlink(p) }
        paths.removeAll()
        lock.unlock()
    }
}

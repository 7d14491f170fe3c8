import Synchronization
import Foundation
import UploadPlanner

/// Writes prepared files atomically under unique names, never replacing anything.
package enum OutputWriter {
    /// Writes `data` as `dir/base.ext`, or `base_1.ext`, `base_2.ext`… if taken (as SimpleX's
    /// uniqueCombine does). The bytes go to a temporary file first and are hard-linked into
    /// place, which fails rather than overwrites if the name appeared meanwhile.
    package static func writeUnique(_ data: [UInt8], directory dir: String, base: String, ext: String,
                                   cancellation: CancellationFlag? = nil) throws -> String {
        try stage(data, directory: dir, base: base, ext: ext, cancellation: cancellation).commit()
    }

    /// Copies a file (a video may be large: it is never read into memory) under a unique name.
    package static func copyUnique(from source: String, directory dir: String, base: String, ext: String,
                                  cancellation: CancellationFlag? = nil) throws -> String {
        try stageCopy(from: source, directory: dir, base: base, ext: ext, cancellation: cancellation).commit()
    }

    /// Temporary files being filled right now; an interrupted process removes them on its way out.
    private static let pending = TemporaryFiles()

    /// Removes every temporary file still being written (for a signal handler's last step).
    package static func removeTemporaryFiles() { pending.removeAll() }

    /// Writes `data` under a temporary name in `dir`; `commit` gives it its final, unique name.
    package static func stage(_ data: [UInt8], directory dir: String, base: String, ext: String,
                             cancellation: CancellationFlag? = nil) throws -> StagedFile {
        try stage(directory: dir, base: base, ext: ext, cancellation: cancellation) { tmp in
            FileManager.default.createFile(atPath: tmp, contents: Data(data))
        }
    }

    /// Copies `source` under a temporary name in `dir`, for `commit` to name.
    package static func stageCopy(from source: String, directory dir: String, base: String, ext: String,
                                 cancellation: CancellationFlag? = nil) throws -> StagedFile {
        let size = try FileBytes.size(source)
        return try stageProduced(directory: dir, base: base, ext: ext, cancellation: cancellation) { tmp in
            try FileCopier.copy(from: source, expectedSize: size, to: tmp)
        }
    }

    /// Lets `produce` write the file itself (an encoder or muxer) under the temporary name; a
    /// throw removes whatever it wrote.
    package static func stageProduced(directory dir: String, base: String, ext: String, cancellation: CancellationFlag? = nil,
                                     produce: (String) throws -> Void) throws -> StagedFile {
        var failure: Error? = nil
        do {
            return try stage(directory: dir, base: base, ext: ext, cancellation: cancellation) { tmp in
                do { try produce(tmp); return true } catch { failure = error; return false }
            }
        } catch {
            throw failure ?? error
        }
    }

    static func stage(directory dir: String, base: String, ext: String, cancellation: CancellationFlag?,
                      fill: (String) -> Bool) throws -> StagedFile {
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
        guard fill(tmp) else {
            discard(tmp)
            throw MediaPrepError(.writeFailed, "cannot write in \(dir)")
        }
        // Interrupted while filling: the temporary file goes, nothing is linked into place.
        if cancellation?.isCancelled == true {
            discard(tmp)
            try cancellation?.check()
        }
        return StagedFile(directory: dir, base: base, ext: ext, temporaryPath: tmp)
    }

    static func discard(_ tmp: String) {
        unlink(tmp)
        pending.remove(tmp)
    }

    /// Writes `data` to an explicit path atomically (temporary file, then rename), refusing to
    /// replace `protected` (the input it was made from).
    package static func writeReplacing(_ data: [UInt8], to path: String, protecting protected: String? = nil) throws {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        if let protected, URL(fileURLWithPath: protected).standardizedFileURL.resolvingSymlinksInPath() == url.resolvingSymlinksInPath() {
            throw MediaPrepError(.invalidArgument, "refusing to overwrite the input \(protected)")
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

/// A prepared file under a temporary name, waiting for its final one: a batch names its files in
/// input order, whatever order they finish in.
package struct StagedFile: Sendable {
    package let directory: String
    package let base: String
    package let ext: String
    let temporaryPath: String

    /// Links the file into place as `base.ext`, or `base_1.ext`, `base_2.ext`… if taken (as
    /// SimpleX's uniqueCombine does); a hard link fails rather than overwrites a name that
    /// appeared meanwhile. The temporary name goes either way.
    package func commit() throws -> String {
        defer { OutputWriter.discard(temporaryPath) }
        let dotExt = ext.isEmpty ? "" : "." + ext
        for n in 0..<10_000 {
            let name = n == 0 ? base + dotExt : "\(base)_\(n)" + dotExt
            let path = directory + "/" + name
            if FileNameBytes.withCString(path, { link(temporaryPath, $0) }) == 0 { return path }
            if errno != EEXIST { throw MediaPrepError(.writeFailed, "cannot create \(path): \(String(cString: strerror(errno)))") }
        }
        throw MediaPrepError(.writeFailed, "no free name for \(base)\(dotExt) in \(directory)")
    }

    /// Removes the file without naming it (its input turned out unsendable).
    package func discard() { OutputWriter.discard(temporaryPath) }
}

/// Paths of temporary files in progress, guarded by a lock (workers add and remove them concurrently).
///
/// `@unchecked Sendable` over an NSLock rather than `Synchronization.Mutex`: ThreadSanitizer does not see
/// the Mutex's futex on Linux and reported two jobs staging outputs at once (a long screenshot's parts
/// beside another image) as a race on the set; a pthread mutex it understands.
private final class TemporaryFiles: @unchecked Sendable {
    private let lock = NSLock()
    private var paths = Set<String>()
    func add(_ p: String) { lock.withLock { _ = paths.insert(p) } }
    func remove(_ p: String) { lock.withLock { _ = paths.remove(p) } }
    func removeAll() {
        lock.withLock {
            for p in paths { unlink(p) }
            paths.removeAll()
        }
    }
}

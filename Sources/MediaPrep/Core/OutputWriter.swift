import Synchronization
import FoundationEssentials
import Glibc
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
        try stageProduced(directory: dir, base: base, ext: ext, cancellation: cancellation) { tmp in try writeNew(data, to: tmp) }
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

    /// $TMPDIR, else /tmp: where scratch files go.
    static var temporaryBase: String { Environment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp" }

    /// The same, ending in "/" as NSTemporaryDirectory gives it.
    package static var temporaryDirectory: String {
        let base = temporaryBase
        return base.hasSuffix("/") ? base : base + "/"
    }

    static func stage(directory dir: String, base: String, ext: String, cancellation: CancellationFlag?,
                      fill: (String) -> Bool) throws -> StagedFile {
        try cancellation?.check()
        if !InputWalker.isDirectory(dir) {
            if InputWalker.exists(dir) { throw MediaPrepError(.writeFailed, "\(dir) is not a directory") }
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw MediaPrepError(.writeFailed, "cannot create \(dir): \(error)")
            }
        }
        pending.sweepOnce(dir)
        let tmp = temporaryName(in: dir)
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

    /// `.mediaprep-HOST-PID-UUID.tmp`: whose it is, so that a later run on this host can remove what
    /// a killed one left (SIGKILL, power loss), and never what a live one, here or on another machine
    /// sharing the folder, is still writing.
    static func temporaryName(in dir: String) -> String { dir + "/" + ownPrefix + UUID().uuidString + ".tmp" }

    static let hostTag: String = {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        let text = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let safe = String(text.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }.prefix(32))
        return safe.isEmpty ? "host" : safe
    }()

    static let ownPrefix = ".mediaprep-\(hostTag)-\(getpid())-"

    /// Removes the temporary files in `dir` whose writer, a process of this host, is gone.
    package static func sweep(_ dir: String) {
        let prefix = ".mediaprep-\(hostTag)-"
        for name in InputWalker.allNames(dir) ?? [] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let pid = Int32(rest.prefix { $0 != "-" }), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = dir + "/" + name
            if InputWalker.isDirectory(path) { try? FileManager.default.removeItem(atPath: path) } else { unlink(path) }
        }
    }

    /// A folder only this process writes in (0700, under TMPDIR), for encoder statistics and other
    /// scratch files: never `--out`. Removed with the temporary files; a killed run's is swept.
    package static func scratchDirectory() throws -> String { try pending.scratch() }

    /// Creates `path` with `data`, or says why not (a full disk: "No space left on device").
    static func writeNew(_ data: [UInt8], to path: String) throws {
        let fd = FileNameBytes.withCString(path) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw FileCopier.writeError(path) }
        defer { close(fd) }
        guard PosixIO.writeAll(fd, data) else {
            let e = FileCopier.writeError(path)
            unlink(path)
            throw e
        }
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
        let tmp = temporaryName(in: dir)
        try writeNew(data, to: tmp)
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
    /// Each name is tried from where this process last found one free, so a batch of 100,000 photos
    /// taken in the same second is named in linear time, without a cap.
    package func commit() throws -> String {
        defer { OutputWriter.discard(temporaryPath) }
        let dotExt = ext.isEmpty ? "" : "." + ext
        let key = directory + "/" + base + dotExt
        var n = NameCounters.shared.start(key)
        while true {
            let name = n == 0 ? base + dotExt : "\(base)_\(n)" + dotExt
            let path = directory + "/" + name
            if FileNameBytes.withCString(path, { link(temporaryPath, $0) }) == 0 {
                NameCounters.shared.used(key, n)
                return path
            }
            if errno != EEXIST { throw MediaPrepError(.writeFailed, "cannot create \(path): \(String(cString: strerror(errno)))") }
            n += 1
        }
    }

    /// `--resume`: renames the file to `path` (folders made as needed), replacing what an earlier
    /// attempt left there; the rename is atomic, so the name always holds a complete file.
    package func commit(replacing path: String) throws -> String {
        defer { OutputWriter.discard(temporaryPath) }
        let parent = FilePath.parent(of: path)
        if !InputWalker.isDirectory(parent) {
            do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
                throw MediaPrepError(.writeFailed, "cannot create \(parent): \(error)")
            }
        }
        guard FileNameBytes.withCString(path, { rename(temporaryPath, $0) }) == 0 else {
            throw MediaPrepError(.writeFailed, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }

    /// Removes the file without naming it (its input turned out unsendable).
    package func discard() { OutputWriter.discard(temporaryPath) }
}

/// The next `_N` to try for each name this process gave out.
private final class NameCounters: @unchecked Sendable {
    static let shared = NameCounters()
    private let lock = PosixLock()
    private var next: [String: Int] = [:]
    func start(_ key: String) -> Int { lock.withLock { next[key] ?? 0 } }
    func used(_ key: String, _ n: Int) { lock.withLock { next[key] = max(next[key] ?? 0, n + 1) } }
}

/// Paths of temporary files in progress, guarded by a lock (workers add and remove them concurrently).
///
/// `@unchecked Sendable` over a PosixLock rather than `Synchronization.Mutex`: ThreadSanitizer does not see
/// the Mutex's futex on Linux and reported two jobs staging outputs at once (a long screenshot's parts
/// beside another image) as a race on the set; a pthread mutex it understands.
private final class TemporaryFiles: @unchecked Sendable {
    private let lock = PosixLock()
    private var paths = Set<String>()
    private var swept = Set<String>()
    private var scratchPath: String?
    func add(_ p: String) { lock.withLock { _ = paths.insert(p) } }
    func remove(_ p: String) { lock.withLock { _ = paths.remove(p) } }

    /// Each output folder is swept once per run, before the first file is staged there.
    func sweepOnce(_ dir: String) {
        guard lock.withLock({ swept.insert(dir).inserted }) else { return }
        OutputWriter.sweep(dir)
    }

    func scratch() throws -> String {
        try lock.withLock {
            if let s = scratchPath { return s }
            let base = OutputWriter.temporaryBase
            OutputWriter.sweep(base)
            var template = Array((base + "/" + OutputWriter.ownPrefix + "XXXXXX").utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }) else {
                throw MediaPrepError(.writeFailed, "cannot create a private folder in \(base): \(String(cString: strerror(errno)))")
            }
            let path = String(cString: made)
            scratchPath = path
            return path
        }
    }

    func removeAll() {
        lock.withLock {
            for p in paths { unlink(p) }
            paths.removeAll()
            if let s = scratchPath {
                for name in InputWalker.allNames(s) ?? [] { unlink(s + "/" + name) }
                rmdir(s)
                scratchPath = nil
            }
        }
    }
}

import FoundationEssentials
import Glibc
import UploadPlanner

/// Expands command-line arguments into files: folders walked recursively in sorted order, hidden
/// entries skipped, each real folder visited once (symlink loops end there). A path named on the
/// command line is followed wherever it points (the user asked for it); a symbolic link met while
/// walking is followed only while it stays inside the folder given, as `find`, `git add` and `rsync`
/// do not leave the tree either, unless `followSymlinks`. Names are read as bytes (`FileNameBytes`).
package enum InputWalker {
    /// A link the walk did not follow, and why.
    package struct Skipped: Sendable, Equatable {
        package let path: String
        package let reason: String
    }

    package static func expand(_ arguments: [String], followSymlinks: Bool = false,
                               skipped: (Skipped) -> Void = { _ in }) -> [String] {
        var walk = Walk(follow: followSymlinks)
        for a in arguments {
            guard isDirectory(a), let root = realPath(a) else {
                // A missing or unreadable path given by the user is kept: preparing it reports why.
                walk.out.append(a)
                continue
            }
            walk.folder(a, root: root, top: true)
        }
        walk.skipped.forEach(skipped)
        return walk.out
    }

    /// A regular file's size by stat, 0 for anything else: the batch's scheduling weight, taken
    /// without opening the file (the probe opens it once; gdb counted two opens a photo).
    package static func sizeHint(_ path: String) -> Int {
        var st = stat()
        guard FileNameBytes.withCString(path, { stat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFREG else { return 0 }
        return Int(st.st_size)
    }

    /// True when something is at `path` (following links).
    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return FileNameBytes.withCString(path) { stat($0, &st) } == 0
    }

    /// True when `path` names a folder (following links).
    package static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return FileNameBytes.withCString(path) { stat($0, &st) } == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    static func realPath(_ path: String) -> String? {
        guard let p = FileNameBytes.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(p) }
        return FileNameBytes.string(UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
    }

    /// A folder's entry names as bytes, hidden ones left out, sorted.
    static func names(_ path: String) -> [String]? {
        allNames(path)?.filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Every entry name of a folder, hidden ones too (not `.` and `..`), in the order the file system gives.
    package static func allNames(_ path: String) -> [String]? {
        guard let d = FileNameBytes.withCString(path, { opendir($0) }) else { return nil }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            // In place, up to its NUL: a dirent is only as long as its name (d_reclen), so copying the
            // 256-byte d_name array would read past a short record (found by AddressSanitizer).
            let name = withUnsafeMutablePointer(to: &e.pointee.d_name) { field in
                field.withMemoryRebound(to: UInt8.self, capacity: 1) { p in
                    FileNameBytes.string(UnsafeBufferPointer(start: p, count: strlen(UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self))))
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private struct Walk {
        let follow: Bool
        var skipped: [Skipped] = []
        var out: [String] = []
        var seen = Set<String>()

        mutating func folder(_ path: String, root: String, top: Bool) {
            guard let real = realPath(path), seen.insert(real).inserted else { return }
            guard let names = InputWalker.names(path) else {
                if top { out.append(path) }
                return
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            for name in names { entry(base + "/" + name, root: root) }
        }

        mutating func entry(_ path: String, root: String) {
            var st = stat()
            guard FileNameBytes.withCString(path, { lstat($0, &st) }) == 0 else { return }
            var isFolder = st.st_mode & S_IFMT == S_IFDIR
            if st.st_mode & S_IFMT == S_IFLNK {
                guard let target = realPath(path) else {
                    return skipped.append(Skipped(path: path, reason: "a symbolic link to nothing"))
                }
                let inside = target == root || target.hasPrefix(root == "/" ? "/" : root + "/")
                guard inside || follow else {
                    return skipped.append(Skipped(path: path, reason: "a symbolic link to \(target), outside \(root) (--follow-symlinks follows it)"))
                }
                isFolder = isDirectory(path)  // only a link needs a second look, at what it points to
            }
            if isFolder { folder(path, root: root, top: false) } else { out.append(path) }
        }
    }
}

import UploadPlanner

/// One of N disjoint parts of an input set, for an engine's task K (`$JOB_COMPLETION_INDEX`, a CI
/// matrix index, a Dask task number): an input belongs to shard FNV-1a-64(relative path's bytes) mod N,
/// the same on every machine, OS and run, so a rerun of shard 3 is the same work whatever was added.
package struct Shard: Sendable, Equatable {
    package let index: Int
    package let count: Int

    package init?(index: Int, count: Int) {
        guard count > 0, index >= 0, index < count else { return nil }
        (self.index, self.count) = (index, count)
    }

    /// `K/N`.
    package init?(parsing spec: String) {
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    package func contains(_ relativePath: String) -> Bool {
        Int(Self.hash(relativePath) % UInt64(count)) == index
    }

    static func hash(_ s: String) -> UInt64 {
        Bytes.fnv1a(FileNameBytes.bytes(s))
    }
}

/// An input's path relative to the folder given (`album/2026/b.jpg` walked from `album` is
/// `2026/b.jpg`), or as given for a file named directly (a leading `./` or `/` dropped): what shards
/// and `--resume` names are made from, stable across machines that mount the folder elsewhere.
package enum RelativeName {
    package static func of(_ path: String, folders: [String]) -> String {
        for f in folders {
            let root = f.hasSuffix("/") ? f : f + "/"
            if path.hasPrefix(root) { return String(path.dropFirst(root.count)) }
        }
        var p = Substring(path)
        while p.hasPrefix("./") { p = p.dropFirst(2) }
        while p.hasPrefix("/") { p = p.dropFirst() }
        return String(p)
    }
}

/// Path arithmetic on strings, as NSString's `deletingLastPathComponent` and `pathExtension` do it,
/// without Foundation proper.
package enum FilePath {
    /// The folder part: "a/b/c.jpg" → "a/b", "/c.jpg" → "/", "c.jpg" → "".
    package static func parent(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        guard let slash = p.lastIndex(of: "/") else { return "" }
        if slash == p.startIndex { return "/" }
        var parent = p[..<slash]
        while parent.count > 1, parent.hasSuffix("/") { parent = parent.dropLast() }
        return String(parent)
    }

    /// The last component: "a/b/c.jpg" → "c.jpg", "/" → "/".
    package static func lastComponent(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        if p == "/" { return "/" }
        return String(p.lastIndex(of: "/").map { p[p.index(after: $0)...] } ?? p)
    }

    /// The extension of the last component, without its dot: "c.tar.gz" → "gz", ".profile" → "".
    package static func pathExtension(_ path: String) -> String {
        let name = lastComponent(path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}

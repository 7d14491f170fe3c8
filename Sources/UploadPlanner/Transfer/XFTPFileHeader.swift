/// The XFTP FileHeader simplexmq encrypts in front of the file: 1-byte length, name, `'0'` (no extra).
public struct XFTPFileHeader: Sendable, Equatable {
    public static let maxNameBytes = 255

    /// The name as it goes on the wire, cut to 255 UTF-8 bytes.
    public let fileName: String

    /// simplexmq writes the name length in one byte and would wrap past 255; we cut the
    /// stem at a character boundary and keep the extension, so the receiver still sees the type.
    public init(fileName: String) {
        self.fileName = Self.fit(fileName)
    }

    public var encodedSize: Int { 1 + fileName.utf8.count + 1 }

    static func fit(_ name: String) -> String {
        guard name.utf8.count > maxNameBytes else { return name }
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            let e = String(name[dot...])
            if e.utf8.count <= 16 { ext = e }
        }
        var stem = ext.isEmpty ? name : String(name[..<name.index(name.endIndex, offsetBy: -ext.count)])
        while stem.utf8.count + ext.utf8.count > maxNameBytes { stem.removeLast() }
        return stem + ext
    }
}

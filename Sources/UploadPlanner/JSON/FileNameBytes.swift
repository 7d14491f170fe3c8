/// File names are bytes, not text: a name that is not UTF-8 (`caf\xe9.jpg` from an old archive or a
/// Samba share) travels in a `String` with each undecodable byte b as the private-use scalar
/// U+10FC00 + b, becomes the same byte again at every system call, and is written `\xE9` in text and
/// `\udce9` in JSON — Python's surrogateescape (PEP 383): `os.fsencode(json.loads(line)["input"])`
/// gives the original bytes back.
public enum FileNameBytes {
    static let base: UInt32 = 0x10FC00

    /// The name's bytes as a String, losslessly.
    public static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let b = Array(bytes)
        if let s = String(validating: b, as: UTF8.self) { return s }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < b.count {
            let lead = b[i]
            let n = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0
            if n > 0, i + n <= b.count, let s = String(validating: b[i..<i + n], as: UTF8.self) {
                out.append(contentsOf: s.unicodeScalars)
                i += n
            } else {
                out.append(Unicode.Scalar(base + UInt32(lead)) ?? "?")
                i += 1
            }
        }
        return String(out)
    }

    /// The byte a scalar stands for, when it stands for one.
    public static func escapedByte(_ u: Unicode.Scalar) -> UInt8? {
        u.value >= base + 0x80 && u.value <= base + 0xFF ? UInt8(u.value - base) : nil
    }

    /// The bytes the file system knows the name by.
    public static func bytes(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            if let b = escapedByte(u) { out.append(b) } else { out += Array(String(u).utf8) }
        }
        return out
    }

    /// Calls `body` with the name as the C string the system knows.
    public static func withCString<R>(_ s: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard s.unicodeScalars.contains(where: { escapedByte($0) != nil }) else { return try s.withCString(body) }
        let c = bytes(s).map { CChar(bitPattern: $0) } + [0]
        return try c.withUnsafeBufferPointer { p in
            guard let base = p.baseAddress else { return try s.withCString(body) }
            return try body(base)
        }
    }

    /// For a terminal: undecodable bytes as `\xE9`, control characters as `\u{…}`, the rest as it is.
    public static func display(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { escapedByte($0) != nil || ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F }) else { return s }
        var out = ""
        for u in s.unicodeScalars {
            if let b = escapedByte(u) {
                out += "\\x" + String(b, radix: 16, uppercase: true)
            } else if (u.value < 0x20 && u != "\n") || u.value == 0x7F {
                out += "\\u{" + String(u.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// For a name another program will read as text (a SimpleX file name): undecodable bytes as `_`.
    public static func portable(_ s: String) -> String {
        String(String.UnicodeScalarView(s.unicodeScalars.map { escapedByte($0) != nil ? "_" : $0 }))
    }
}

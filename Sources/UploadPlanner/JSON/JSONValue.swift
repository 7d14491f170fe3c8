/// A JSON tree whose objects keep their key order, so output is byte-for-byte stable
/// (Foundation's JSONEncoder orders keys differently from run to run).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    public struct Member: Sendable, Equatable {
        public let key: String
        public let value: JSONValue
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public static func int(_ v: Int) -> JSONValue { .int(Int64(v)) }
    public static func optional(_ v: String?) -> JSONValue { v.map { .string($0) } ?? .null }

    /// Compact JSON: no spaces, slashes unescaped, non-ASCII kept as UTF-8.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            if d.isFinite && d == d.rounded() && abs(d) < 1e15 { out += String(Int64(d)) }
            else if d.isFinite { out += String(d) }
            else { out += "null" }
        case .string(let s): Self.quote(s, into: &out)
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                v.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                Self.quote(m.key, into: &out)
                out += ":"
                m.value.write(to: &out)
            }
            out += "}"
        }
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case _ where FileNameBytes.escapedByte(u) != nil:
                // A file-name byte that is not UTF-8: PEP 383's lone surrogate (FileNameBytes).
                out += "\\udc" + String(FileNameBytes.escapedByte(u) ?? 0, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

/// Types that render themselves as ordered JSON.
public protocol JSONRepresentable {
    var json: JSONValue { get }
}

import Foundation

/// A JSON Schema (draft-04/07) validator for the keywords the SARIF 2.1.0 schema uses: type, $ref
/// (local), properties, required, additionalProperties, items, minItems, uniqueItems, enum,
/// minimum/maximum, pattern, anyOf/oneOf, and the uri/uri-reference/date-time formats. A keyword it
/// does not know fails validation rather than passing unseen.
public struct JSONSchema {
    let root: [String: Any]
    static let known: Set<String> = ["$schema", "id", "$id", "title", "description", "default", "definitions", "type", "$ref",
                                     "properties", "required", "additionalProperties", "items", "minItems", "uniqueItems", "enum",
                                     "minimum", "maximum", "pattern", "anyOf", "oneOf", "format"]

    public init(data: Data) throws {
        guard let r = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Failure(path: "$", message: "schema is not an object") }
        root = r
    }

    public struct Failure: Error, CustomStringConvertible {
        public let path: String, message: String
        public var description: String { "\(path): \(message)" }
    }

    /// Every way `instance` breaks the schema (empty: valid).
    public func validate(_ instance: Any) -> [Failure] {
        var failures: [Failure] = []
        check(instance, root, "$", &failures)
        return failures
    }

    private func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let d = node as? [String: Any], let next = d[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    private func typeMatches(_ v: Any, _ t: String) -> Bool {
        switch t {
        case "object": return v is [String: Any]
        case "array": return v is [Any]
        case "string": return v is String
        case "boolean": return isBoolean(v)
        case "integer":
            guard let n = v as? NSNumber, !isBoolean(v) else { return false }
            return n.doubleValue.rounded() == n.doubleValue
        case "number": return v is NSNumber && !isBoolean(v)
        case "null": return v is NSNull
        default: return false
        }
    }

    private func equal(_ a: Any, _ b: Any) -> Bool {
        if let x = a as? String, let y = b as? String { return x == y }
        if let x = a as? NSNumber, let y = b as? NSNumber { return isBoolean(a) == isBoolean(b) && x.isEqual(y) }
        if a is NSNull && b is NSNull { return true }
        if let x = a as? [Any], let y = b as? [Any] { return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) } }
        if let x = a as? [String: Any], let y = b as? [String: Any] {
            return x.count == y.count && x.allSatisfy { k, v in y[k].map { equal(v, $0) } ?? false }
        }
        return false
    }

    /// JSONSerialization's true and false are NSNumbers of a boolean class.
    private func isBoolean(_ v: Any) -> Bool { String(describing: type(of: v)).contains("Boolean") }

    private func check(_ v: Any, _ s: [String: Any], _ path: String, _ out: inout [Failure]) {
        for key in s.keys where !Self.known.contains(key) { out.append(Failure(path: path, message: "schema keyword \(key) not supported")) }
        if let ref = s["$ref"] as? String {
            guard let target = resolve(ref) else { out.append(Failure(path: path, message: "unresolved \(ref)")); return }
            check(v, target, path, &out)
        }
        if let t = s["type"] {
            let types = (t as? [String]) ?? [(t as? String) ?? ""]
            if !types.contains(where: { typeMatches(v, $0) }) { out.append(Failure(path: path, message: "not of type \(types)")); return }
        }
        if let e = s["enum"] as? [Any], !e.contains(where: { equal($0, v) }) {
            out.append(Failure(path: path, message: "\(v) not one of \(e)"))
        }
        if let n = v as? NSNumber, !(typeMatches(v, "boolean")) {
            if let m = s["minimum"] as? NSNumber, n.doubleValue < m.doubleValue { out.append(Failure(path: path, message: "\(n) < minimum \(m)")) }
            if let m = s["maximum"] as? NSNumber, n.doubleValue > m.doubleValue { out.append(Failure(path: path, message: "\(n) > maximum \(m)")) }
        }
        if let str = v as? String {
            if let p = s["pattern"] as? String {
                let re = try? NSRegularExpression(pattern: p)
                if re?.firstMatch(in: str, range: NSRange(str.startIndex..., in: str)) == nil { out.append(Failure(path: path, message: "\(str) does not match \(p)")) }
            }
            if let f = s["format"] as? String, !formatMatches(str, f) { out.append(Failure(path: path, message: "\(str) is not a \(f)")) }
        }
        if let a = v as? [Any] {
            if let m = s["minItems"] as? Int, a.count < m { out.append(Failure(path: path, message: "fewer than \(m) items")) }
            if s["uniqueItems"] as? Bool == true {
                for i in a.indices { for j in a.indices where j > i && equal(a[i], a[j]) { out.append(Failure(path: path, message: "items \(i) and \(j) repeat")) } }
            }
            if let items = s["items"] as? [String: Any] { for (i, x) in a.enumerated() { check(x, items, "\(path)[\(i)]", &out) } }
        }
        if let o = v as? [String: Any] {
            let props = s["properties"] as? [String: Any] ?? [:]
            for r in s["required"] as? [String] ?? [] where o[r] == nil { out.append(Failure(path: path, message: "missing required \(r)")) }
            for (k, x) in o {
                if let p = props[k] as? [String: Any] {
                    check(x, p, "\(path).\(k)", &out)
                } else if s["additionalProperties"] as? Bool == false {
                    out.append(Failure(path: path, message: "property \(k) not allowed"))
                } else if let extra = s["additionalProperties"] as? [String: Any] {
                    check(x, extra, "\(path).\(k)", &out)
                }
            }
        }
        if let any = s["anyOf"] as? [[String: Any]] {
            if !any.contains(where: { sub in var f: [Failure] = []; check(v, sub, path, &f); return f.isEmpty }) {
                out.append(Failure(path: path, message: "matches none of anyOf"))
            }
        }
        if let one = s["oneOf"] as? [[String: Any]] {
            let n = one.filter { sub in var f: [Failure] = []; check(v, sub, path, &f); return f.isEmpty }.count
            if n != 1 { out.append(Failure(path: path, message: "matches \(n) of oneOf, not exactly one")) }
        }
    }

    private func formatMatches(_ s: String, _ format: String) -> Bool {
        switch format {
        case "uri": return URL(string: s)?.scheme != nil
        case "uri-reference": return URL(string: s) != nil
        case "date-time": return ISO8601DateFormatter().date(from: s) != nil
        default: return true  // formats are annotations in draft-04 unless a validator opts in
        }
    }
}

import Foundation
import UploadPlanner

/// Writes to stdout/stderr; JSON mode prints exactly one document on stdout.
enum Output {
    static func line(_ s: String) {
        FileHandle.standardOutput.write(Data((s + "\n").utf8))
    }

    static func error(_ s: String) {
        FileHandle.standardError.write(Data(("mediaprep: " + s + "\n").utf8))
    }

    static func json(_ v: JSONValue) { line(v.serialized) }
}

extension Optional where Wrapped == Int {
    var json: JSONValue { map { .int($0) } ?? .null }
}

extension Optional where Wrapped == Double {
    var json: JSONValue { map { .double($0) } ?? .null }
}

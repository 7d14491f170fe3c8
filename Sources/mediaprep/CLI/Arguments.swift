/// A command-line mistake: printed with the command's usage, exit status 2.
struct UsageError: Error {
    let message: String
}

/// One option a command accepts.
struct OptionSpec {
    let names: [String]
    /// Value name for `--help`; nil for a flag.
    let value: String?
    let help: String
    var repeatable = false

    var key: String { names[0] }
}

/// Parsed arguments: positionals in order, option values by their first name.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var wantsHelp = false

    func value(_ key: String) -> String? { values[key]?.last }
    func all(_ key: String) -> [String] { values[key] ?? [] }
    func has(_ key: String) -> Bool { flags.contains(key) }

    func int(_ key: String, min: Int64 = Int64.min) throws -> Int64? {
        guard let v = value(key) else { return nil }
        guard let n = Int64(v), n >= min else { throw UsageError(message: "\(key) takes a whole number\(min > Int64.min ? " ≥ \(min)" : ""), got \(v)") }
        return n
    }

    /// Parses `--name value`, `--name=value`, short aliases, flags and `--` (end of options).
    static func parse(_ args: [String], options: [OptionSpec]) throws -> ParsedArguments {
        var out = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        func spec(_ name: String) -> OptionSpec? { options.first { $0.names.contains(name) } }
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" {
                out.positionals.append(a)
                continue
            }
            if a == "--" { onlyPositionals = true; continue }
            if a == "--help" || a == "-h" { out.wantsHelp = true; continue }
            var name = a
            var inline: String? = nil
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            guard let s = spec(name) else { throw UsageError(message: "unknown option \(name)") }
            if s.value == nil {
                if inline != nil { throw UsageError(message: "\(name) takes no value") }
                out.flags.insert(s.key)
                continue
            }
            let v: String
            if let inline { v = inline } else {
                guard i < args.count else { throw UsageError(message: "\(name) needs a value (\(s.value ?? "VALUE"))") }
                v = args[i]
                i += 1
            }
            if !s.repeatable, out.values[s.key] != nil { throw UsageError(message: "\(name) given twice") }
            out.values[s.key, default: []].append(v)
        }
        return out
    }
}

/// A subcommand, in the manner of swift-argument-parser's command structs.
protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    static var options: [OptionSpec] { get }
    init(_ args: ParsedArguments) throws
    /// Returns the exit status: 0 all good, 1 some input failed.
    func run() -> Int32
}

extension Command {
    static var help: String {
        var s = "\(summary)\n\nusage: mediaprep \(usage)\n"
        if !options.isEmpty {
            s += "\noptions:\n"
            for o in options {
                let left = o.names.joined(separator: ", ") + (o.value.map { " " + $0 } ?? "")
                s += "  " + left.padding(toLength: max(28, left.count + 2), withPad: " ", startingAt: 0) + o.help + "\n"
            }
        }
        s += "  -h, --help                  show this help\n"
        return s
    }
}

import Foundation

import MediaPrep
/// A command-line mistake: printed with the command's usage, exit status 2.
struct UsageError: Error {
    let message: String
}

/// How one option is spelled and explained; declared once per option, read by the parser,
/// the usage line and `--help`.
struct OptionSpec: Sendable {
    let names: [String]
    /// Value name for `--help`; nil for a flag.
    let value: String?
    let help: String
    var repeatable = false
    /// Shown in the usage line (rarely used options are left to `--help`).
    var inUsage = true
    /// Shown without brackets; the command's init enforces it.
    var required = false
}

/// A command's options as an enum: a lookup of an option the command does not declare is a
/// compile error, not a silent nil.
protocol CommandOption: CaseIterable, Hashable, Sendable {
    var spec: OptionSpec { get }
}

/// Parsed arguments: positionals in order, option values keyed by the command's own option type.
///
/// Kept by the option's place in `allCases`, not in a Dictionary or Set keyed by it, and the type
/// itself unconstrained (its members constrained instead): metadata whose generic requirements must
/// be checked at run time makes the runtime search every protocol conformance in the binary, about
/// 0.1 million instructions a start each (callgrind).
struct Arguments<Option> {
    var positionals: [String] = []
    private var values: [[String]]
    private var flags: [Bool]
    var wantsHelp = false
}

extension Arguments where Option: CommandOption {
    init() {
        values = Array(repeating: [], count: Option.allCases.count)
        flags = Array(repeating: false, count: Option.allCases.count)
    }

    private static func slot(_ o: Option) -> Int {
        var i = 0
        for c in Option.allCases {
            if c == o { return i }
            i += 1
        }
        return 0
    }

    func value(_ o: Option) -> String? { values[Self.slot(o)].last }
    func all(_ o: Option) -> [String] { values[Self.slot(o)] }
    func has(_ o: Option) -> Bool { flags[Self.slot(o)] }

    func int(_ o: Option, min: Int64 = Int64.min, max: Int64 = Int64.max) throws -> Int64? {
        guard let v = value(o) else { return nil }
        let name = o.spec.names[0]
        guard let n = Int64(v), n >= min, n <= max else {
            var range = ""
            if min > Int64.min { range += " ≥ \(min)" }
            if max < Int64.max { range += (range.isEmpty ? " " : " and ") + "≤ \(max)" }
            throw UsageError(message: "\(name) takes a whole number\(range), got \(v)")
        }
        return n
    }

    /// Parses `--name value`, `--name=value`, short aliases, flags and `--` (end of options).
    static func parse(_ args: [String]) throws -> Arguments {
        var out = Arguments()
        var i = 0
        var onlyPositionals = false
        func option(_ name: String) -> Option? { Option.allCases.first { $0.spec.names.contains(name) } }
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
            guard let o = option(name) else {
                throw UsageError(message: "unknown option \(name)" + Suggestion.hint(name, Option.allCases.flatMap { $0.spec.names }))
            }
            let s = o.spec
            if s.value == nil {
                if inline != nil { throw UsageError(message: "\(name) takes no value") }
                out.flags[slot(o)] = true
                continue
            }
            let v: String
            if let inline { v = inline } else {
                guard i < args.count else { throw UsageError(message: "\(name) needs a value (\(s.value ?? "VALUE"))") }
                v = args[i]
                i += 1
            }
            if !s.repeatable, !out.values[slot(o)].isEmpty { throw UsageError(message: "\(name) given twice") }
            out.values[slot(o)].append(v)
        }
        return out
    }
}

/// A subcommand, in the manner of swift-argument-parser's command structs: its declaration
/// (name, positionals, option enum) generates parsing, the usage line and `--help`.
protocol Command: Sendable {
    associatedtype Option: CommandOption
    static var name: String { get }
    static var summary: String { get }
    /// Positional arguments as the usage line shows them, e.g. `FILE|DIR|-...`.
    static var positionals: String { get }
    /// A second form of the command, if any (shown as another usage line).
    static var alternateUsage: String? { get }
    init(_ args: Arguments<Option>) throws
    /// Returns the exit status: 0 all good, 1 some input failed, 130/143 interrupted.
    func run() async -> Int32
    /// The same as `run`, on the calling thread with no task, when this command's inputs need none:
    /// it then starts as a plain Swift program does (three pool threads and their futex waits cost
    /// `plan` 6.0 ms against a static "hello"'s 2.8). Nil: `run` in a task.
    func runNow() -> Int32?
}

extension Command {
    func runNow() -> Int32? { nil }
}

/// A parsed command line: answered already (help, a usage error, a command run on this thread), or
/// a command for a task to run.
enum Start {
    case done(Int32)
    case task(any Command)
}

extension Command {
    static var alternateUsage: String? { nil }

    /// Every option's declaration, for completion scripts.
    static var optionSpecs: [OptionSpec] { Option.allCases.map(\.spec) }

    static var usage: String {
        var parts = [name]
        if !positionals.isEmpty { parts.append(positionals) }
        for o in Option.allCases where o.spec.inUsage {
            let s = o.spec
            let option = s.names[0] + (s.value.map { " " + $0 } ?? "")
            parts.append((s.required ? option : "[" + option + "]") + (s.repeatable ? "..." : ""))
        }
        return parts.joined(separator: " ")
    }

    static var help: String {
        var s = "\(summary)\n\nusage: mediaprep \(usage)\n"
        if let alt = alternateUsage { s += "       mediaprep \(name) \(alt)\n" }
        let options = Option.allCases.map(\.spec)
        if !options.isEmpty {
            s += "\noptions:\n"
            for o in options {
                let left = o.names.joined(separator: ", ") + (o.value.map { " " + $0 } ?? "")
                s += "  " + left.padded(to: max(28, left.count + 2)) + o.help + "\n"
            }
        }
        s += "  -h, --help                  show this help\n"
        return s
    }

    /// Parses `argv` (after the command name) and runs; usage mistakes exit 2 with the help text.
    static func main(_ argv: [String]) async -> Int32 {
        do {
            let parsed = try Trace.time("parse arguments") { try Arguments<Option>.parse(argv) }
            if parsed.wantsHelp {
                Output.line(help)
                return 0
            }
            let command = try Trace.time("set up the command") { try Self(parsed) }
            return await command.run()
        } catch let e as UsageError {
            Output.error(e.message + "\n\n" + help)
            return 2
        } catch {
            Output.error("\(error)")
            return 2
        }
    }

    /// Parses `argv` and runs what needs no task on the calling thread.
    static func start(_ argv: [String]) -> Start {
        do {
            let parsed = try Trace.time("parse arguments") { try Arguments<Option>.parse(argv) }
            if parsed.wantsHelp {
                Output.line(help)
                return .done(0)
            }
            let command = try Trace.time("set up the command") { try Self(parsed) }
            return command.runNow().map(Start.done) ?? .task(command)
        } catch let e as UsageError {
            Output.error(e.message + "\n\n" + help)
            return .done(2)
        } catch {
            Output.error("\(error)")
            return .done(2)
        }
    }
}

import FoundationEssentials
import Glibc

import UploadPlanner

/// One input's whole outcome, in input order: `result` is the prepared attachment or its error;
/// `json` and `summary` are what the CLI prints for it.
public struct BatchItem: Sendable {
    /// Position in the input, counting from 0.
    public let index: Int
    package var item: PreparedItem
    /// nil when preparation failed.
    package var transfer: TransferPlan?
    /// nil when the input cannot be sent.
    package var composedMessage: ComposedMessage?

    package init(index: Int, item: PreparedItem) {
        self.index = index
        self.item = item
    }

    /// The object of SPEC section 7's `prepare --json` array (and of each `--jsonl` line).
    public var json: JSONValue {
        let it = item
        func int(_ v: Int?) -> JSONValue { v.map { .int($0) } ?? .null }
        var members: [JSONValue.Member] = [
            .init("input", .string(it.input)), .init("kind", .string(it.kind.rawValue)),
            .init("output", .optional(it.output)), .init("bytes", int(it.bytes)),
            .init("width", int(it.width)), .init("height", int(it.height)),
            .init("durationSeconds", int(it.durationSeconds)), .init("preview", .optional(it.preview)),
            .init("format", .optional(it.format?.rawValue)), .init("quality", int(it.quality)),
            .init("route", .optional(it.route?.rawValue)),
            .init("autoReceive", it.autoReceive.map { .bool($0) } ?? .null),
            .init("transfer", transfer?.json ?? .null), .init("composedMessage", composedMessage?.json ?? .null),
            .init("error", it.error?.json ?? .null),
        ]
        // A long screenshot's parts: which one of how many (only then, so other items are unchanged).
        if let p = it.part { members.append(.init("part", .object([.init("index", .int(p.index)), .init("of", .int(p.of))]))) }
        if it.skipped { members.append(.init("skipped", .bool(true))) }
        members.append(.init("reason", .string(reason)))
        if let c = it.flattenedOnto { members.append(.init("flattenedOnto", .string(Background.hex(c)))) }
        return .object(members)
    }

    /// One sentence: why this kind, route and quality, or why it failed.
    public var reason: String {
        let it = item
        if let e = it.error { return e.message }
        if it.skipped { return it.skipReason ?? "already prepared by an earlier run (--resume)" }
        let text = it.reasons.joined(separator: "; ")
        return text.isEmpty ? "sent as it is" : text
    }

    /// The line `prepare` prints for this input.
    public var summary: String {
        let it = item
        if let e = it.error { return "\(it.input): error \(e.code.rawValue): \(e.message)" }
        if it.skipped { return "\(it.input) → \(it.output ?? "-"): skipped, \(it.skipReason ?? "already prepared (--resume)")" }
        var s = "\(it.input)\(it.part.map { " (part \($0.index) of \($0.of))" } ?? "") → \(it.output ?? "-"): \(it.kind.rawValue)"
        if let w = it.width, let h = it.height { s += " \(w)×\(h)" }
        if let b = it.bytes { s += ", \(b) bytes" }
        if let d = it.durationSeconds { s += ", \(d) s" }
        var how: [String] = []
        if let f = it.format { how.append(f.rawValue) }
        if let q = it.quality { how.append("q\(q)") }
        if let r = it.route { how.append(r.rawValue) }
        if !how.isEmpty { s += " (" + how.joined(separator: ", ") + ")" }
        if let c = it.flattenedOnto { s += "; transparency flattened onto \(Background.describe(c))" }
        if let p = it.preview { s += "; preview \(p.count) chars" }
        if let t = transfer { s += "; " + t.summary }
        return s
    }
}

extension MediaPrepError {
    /// `{"code", "message", "class"}`, as every JSON document of the CLI reports an error; `class` is
    /// `environment` when retrying elsewhere may succeed, `input` when the file itself is at fault.
    public var json: JSONValue {
        .object([.init("code", .string(code.rawValue)), .init("message", .string(message)),
                 .init("class", .string(isEnvironmental ? "environment" : "input"))])
    }
}

/// What a batch hands its caller as it goes: each input's item, in input order, and each full
/// batch of messages (at most 10, as one `/_send` takes) once no later input can change it.
public enum BatchEvent: Sendable {
    case item(BatchItem)
    /// No attachment was sent: the text alone, as a `text` or `link` message.
    case text(TextMessage)
    case messages([ComposedMessage], sendLine: String?)
}

/// How a streamed batch ended.
public struct BatchSummary: Sendable {
    public var inputs = 0
    public var prepared = 0
    public var failed = 0
    /// Of `failed`, those the environment caused (`MediaPrepError.isEnvironmental`).
    public var environmentFailed = 0
    /// Inputs whose output an earlier run had already made (`BatchOptions.resumeName`).
    public var skipped = 0
    /// True when there were inputs and text, no input became a message, and so the text was not sent.
    public var textNotSent: Bool { inputs > 0 && prepared == 0 }
    /// Stopped by cancellation (SIGINT/SIGTERM in the CLI): inputs not started were skipped.
    public var interrupted = false

    public init() {}
}

/// A whole batch's outcome at once, for callers that do not stream.
public struct BatchResult: Sendable {
    public var items: [BatchItem]
    /// The text-only message, when no input became a message and there was text.
    public var text: TextMessage?
    /// Batches of at most 10 messages, the text, quote and mentions on the very last one.
    public var messages: [[ComposedMessage]]
    /// One `/_send` line per batch of messages, when a chat was given.
    public var sendLines: [String]
    public var summary: BatchSummary
}

import Foundation
import MediaPrep
import UploadPlanner

/// `mediaprep prepare`: every input becomes the file, preview, transfer and message SimpleX would send.
struct PrepareCommand: Command {
    static let name = "prepare"
    static let summary = "prepare photos, GIFs, videos, voice notes and files for sending"
    static let usage = "prepare FILE... [--out DIR] [--profile simplex|bluesky] [--max-bytes N] [--max-side N] [--max-pixels N] [--text T] [--quote ITEM_ID] [--mention NAME=MEMBER_ID]... [--send @ID|#ID] [--recipients N] [--no-xftp] [--json]"
    static let options = [
        OptionSpec(names: ["--out", "-o"], value: "DIR", help: "folder for prepared files (default: mediaprep-out)"),
        OptionSpec(names: ["--profile"], value: "NAME", help: "simplex (255 KiB, default) or bluesky (1,000,000 bytes, 2000 px)"),
        OptionSpec(names: ["--max-bytes"], value: "N", help: "custom image byte budget"),
        OptionSpec(names: ["--max-side"], value: "N", help: "custom cap on an image's long side"),
        OptionSpec(names: ["--max-pixels"], value: "N", help: "refuse images with more pixels after shrink-on-load (default 100000000)"),
        OptionSpec(names: ["--text"], value: "T", help: "message text (on the last message)"),
        OptionSpec(names: ["--quote"], value: "ITEM_ID", help: "reply to this chat item (on the last message)"),
        OptionSpec(names: ["--mention"], value: "NAME=ID", help: "mention a group member (at most 3)", repeatable: true),
        OptionSpec(names: ["--send"], value: "@ID|#ID", help: "print the /_send line for a contact or group"),
        OptionSpec(names: ["--recipients"], value: "N", help: "recipients for the transfer plan (default 1)"),
        OptionSpec(names: ["--no-xftp"], value: nil, help: "plan transfers without XFTP"),
        OptionSpec(names: ["--json"], value: nil, help: "print one JSON document"),
    ]

    let inputs: [String]
    let preparer: AttachmentPreparer
    let text: String
    let quote: Int64?
    let mentions: [String: Int64]
    let send: SendCommand.Chat?
    let recipients: Int
    let xftp: Bool
    let json: Bool

    init(_ a: ParsedArguments) throws {
        guard !a.positionals.isEmpty else { throw UsageError(message: "prepare needs at least one FILE") }
        inputs = a.positionals
        var profile = ImageProfile.simplex
        if let p = a.value("--profile") {
            guard let named = ImageProfile.named(p) else { throw UsageError(message: "unknown profile \(p) (simplex, bluesky)") }
            profile = named
        }
        if let b = try a.int("--max-bytes", min: 1024) { profile.maxBytes = Int(b); profile.name = "custom" }
        if let s = try a.int("--max-side", min: 16) { profile.maxSide = Int(s); profile.name = "custom" }
        var preparer = AttachmentPreparer(profile: profile, outputDirectory: a.value("--out") ?? "mediaprep-out",
                                          timestamp: Int64(Date().timeIntervalSince1970))
        if let m = try a.int("--max-pixels", min: 1) { preparer.maxPixels = Int(m) }
        self.preparer = preparer
        text = a.value("--text") ?? ""
        quote = try a.int("--quote", min: 0)
        var m: [String: Int64] = [:]
        for spec in a.all("--mention") {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let id = Int64(parts[1]) else {
                throw UsageError(message: "--mention takes NAME=MEMBER_ID, got \(spec)")
            }
            m[parts[0]] = id
        }
        guard m.count <= SimplexLimits.simplex.maxMentions else { throw UsageError(message: "at most 3 mentions per message") }
        mentions = m
        do { send = try a.value("--send").map(SendCommand.parseChat) } catch { throw UsageError(message: "\(error)") }
        recipients = Int(try a.int("--recipients", min: 0) ?? 1)
        xftp = !a.has("--no-xftp")
        json = a.has("--json")
    }

    /// What `run` prints: one JSON value (or text lines), the /_send lines, and the exit status.
    struct Result {
        let items: [PreparedItem]
        let json: JSONValue
        let text: [String]
        let sendLines: [String]
        let status: Int32
    }

    func execute() -> Result {
        var items = inputs.map { preparer.prepare(path: $0) }
        let planner = TransferPlanner(xftpAvailable: xftp)
        var transfers: [TransferPlan?] = Array(repeating: nil, count: items.count)
        for i in items.indices where items[i].error == nil {
            guard let out = items[i].output, let bytes = items[i].bytes else { continue }
            let fileName = out.split(separator: "/").last.map(String.init) ?? out
            let plan = planner.plan(size: Int64(bytes), kind: items[i].uploadKind, fileName: fileName, recipients: recipients)
            if plan.method == .rejected {
                items[i].error = MediaPrepError(.overLimit, plan.reason ?? "cannot be sent")
            }
            transfers[i] = plan
        }
        let (messages, batches) = compose(items)
        let chat = send
        let lines = chat.map { c in batches.filter { !$0.isEmpty }.map { SendCommand(chat: c, messages: $0).line } } ?? []
        return Result(items: items,
                      json: .array(items.indices.map { i in itemJSON(items[i], transfers[i], messages[i]) }),
                      text: items.indices.map { i in itemText(items[i], transfers[i]) },
                      sendLines: lines,
                      status: items.contains { $0.error != nil } ? 1 : 0)
    }

    func run() -> Int32 {
        let r = execute()
        if json { Output.json(r.json) } else { r.text.forEach(Output.line) }
        // With --json, stdout holds exactly one document; the /_send lines go to stderr.
        for line in r.sendLines {
            if json { FileHandle.standardError.write(Data((line + "\n").utf8)) } else { Output.line(line) }
        }
        return r.status
    }

    /// Messages per item (nil for failed ones) and the batches of at most 10 a /_send takes;
    /// the text, quote and mentions go on the very last message, as the app does.
    func compose(_ items: [PreparedItem]) -> ([ComposedMessage?], [[ComposedMessage]]) {
        let ok = items.indices.filter { items[$0].error == nil && items[$0].content != nil }
        var perItem = [ComposedMessage?](repeating: nil, count: items.count)
        var batches: [[ComposedMessage]] = []
        let size = SimplexLimits.simplex.maxMediaPerMessage
        let groups = stride(from: 0, to: ok.count, by: size).map { Array(ok[$0..<min($0 + size, ok.count)]) }
        for (g, group) in groups.enumerated() {
            let last = g == groups.count - 1
            let attachments = group.map { i in
                MessageComposer.Attachment(filePath: items[i].output.map { ($0 as NSString).lastPathComponent }, content: items[i].content ?? .file(text: ""))
            }
            guard let msgs = try? MessageComposer().compose(attachments, text: last ? text : "", quotedItemId: last ? quote : nil,
                                                            mentions: last ? mentions : [:]) else { continue }
            for (k, i) in group.enumerated() { perItem[i] = msgs[k] }
            batches.append(msgs)
        }
        if ok.isEmpty, send != nil, !text.isEmpty,
           let msgs = try? MessageComposer().compose([], text: text, quotedItemId: quote, mentions: mentions) {
            batches.append(msgs)
        }
        return (perItem, batches)
    }

    func itemJSON(_ it: PreparedItem, _ transfer: TransferPlan?, _ message: ComposedMessage?) -> JSONValue {
        .object([
            .init("input", .string(it.input)), .init("kind", .string(it.kind.rawValue)),
            .init("output", .optional(it.output)), .init("bytes", it.bytes.json),
            .init("width", it.width.json), .init("height", it.height.json),
            .init("durationSeconds", it.durationSeconds.json), .init("preview", .optional(it.preview)),
            .init("format", .optional(it.format)), .init("quality", it.quality.json), .init("route", .optional(it.route)),
            .init("autoReceive", it.autoReceive.map { .bool($0) } ?? .null),
            .init("transfer", transfer?.json ?? .null), .init("composedMessage", message?.json ?? .null),
            .init("error", it.error?.json ?? .null),
        ])
    }

    func itemText(_ it: PreparedItem, _ transfer: TransferPlan?) -> String {
        if let e = it.error { return "\(it.input): error \(e.code.rawValue): \(e.message)" }
        var s = "\(it.input) → \(it.output ?? "-"): \(it.kind.rawValue)"
        if let w = it.width, let h = it.height { s += " \(w)×\(h)" }
        if let b = it.bytes { s += ", \(b) bytes" }
        if let d = it.durationSeconds { s += ", \(d) s" }
        var how: [String] = []
        if let f = it.format { how.append(f) }
        if let q = it.quality { how.append("q\(q)") }
        if let r = it.route { how.append(r) }
        if !how.isEmpty { s += " (" + how.joined(separator: ", ") + ")" }
        if let p = it.preview { s += "; preview \(p.count) chars" }
        if let t = transfer, let b = it.bytes { s += "; " + PlanCommand.describe(t, size: Int64(b)) }
        return s
    }
}

extension Optional where Wrapped == String {
    var json: JSONValue { map { .string($0) } ?? .null }
}

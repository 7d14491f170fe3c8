import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// `mediaprep prepare`: every input becomes the file, preview, transfer and message SimpleX would send.
struct PrepareCommand: Command {
    static let name = "prepare"
    static let summary = "prepare photos, GIFs, videos, voice notes and files for sending"
    static let positionals = "FILE|DIR|-..."

    enum Option: CommandOption {
        case out, profile, maxBytes, maxSide, background, maxPixels, pixelBudget, timeLimit, text, quote, mention, send, recipients, noXFTP
        case quality, video, videoMaxBytes, videoMaxHeight, trim, trimToFit, motion, strict, audio, longImages, autoReceive, noLinkPreview, allowPrivateHosts, jobs, json, jsonl, quiet, followSymlinks, shard, null
        case resume, manifest, threads
        var spec: OptionSpec {
            switch self {
            case .out: return OptionSpec(names: ["--out", "-o"], value: "DIR", help: "folder for prepared files (default: mediaprep-out)")
            case .profile: return OptionSpec(names: ["--profile"], value: "simplex|bluesky", help: "simplex (255 KiB, default) or bluesky (1,000,000 bytes, 2000 px)")
            case .maxBytes: return MediaFlags.maxBytes
            case .maxSide: return MediaFlags.maxSide
            case .background: return MediaFlags.background
            case .maxPixels: return OptionSpec(names: ["--max-pixels"], value: "N", help: "refuse images with more pixels after shrink-on-load (default 100000000)")
            case .pixelBudget: return OptionSpec(names: ["--pixel-budget"], value: "MP", help: "megapixels decoded at once across jobs (default 192); a larger image runs alone")
            case .timeLimit: return OptionSpec(names: ["--time-limit"], value: "SECONDS",
                                               help: "longest one picture or animation may take once started, else timeout (default 120; 0: none)")
            case .text: return OptionSpec(names: ["--text"], value: "T", help: "message text (on the last message; alone, a text message)")
            case .quote: return OptionSpec(names: ["--quote"], value: "ITEM_ID", help: "reply to this chat item (on the last message)")
            case .mention: return OptionSpec(names: ["--mention"], value: "NAME=ID", help: "mention a group member (at most 3)", repeatable: true)
            case .send: return OptionSpec(names: ["--send"], value: "@ID|#ID", help: "print the /_send lines for a contact or group")
            case .recipients: return OptionSpec(names: ["--recipients"], value: "N", help: "recipients for the transfer plan (default 1)")
            case .noXFTP: return OptionSpec(names: ["--no-xftp"], value: nil, help: "plan transfers without XFTP")
            case .quality: return MediaFlags.quality
            case .videoMaxHeight: return MediaFlags.videoMaxHeight
            case .trim: return MediaFlags.trim
            case .trimToFit: return MediaFlags.trimToFit
            case .motion: return MediaFlags.motion
            case .strict: return MediaFlags.strictPrepare
            case .video: return MediaFlags.video
            case .videoMaxBytes: return MediaFlags.videoMaxBytes
            case .audio: return MediaFlags.audio
            case .longImages: return MediaFlags.longImages
            case .autoReceive: return MediaFlags.autoReceive
            case .noLinkPreview: return OptionSpec(names: ["--no-link-preview"], value: nil, help: "send text with a URL as plain text, fetching nothing")
            case .allowPrivateHosts: return OptionSpec(names: ["--allow-private-hosts"], value: nil, help: "let link previews fetch from loopback, private and link-local addresses")
            case .jobs: return Bulk.jobs
            case .json: return Bulk.json
            case .jsonl: return Bulk.jsonl
            case .quiet: return Bulk.quiet
            case .followSymlinks: return Bulk.followSymlinks
            case .shard: return Bulk.shard
            case .null: return Bulk.null
            case .resume: return OptionSpec(names: ["--resume"], value: nil,
                                            help: "name outputs after their inputs (OUT/PATH.EXT), skip inputs already done: a retried run leaves one output each")
            case .threads: return OptionSpec(names: ["--threads"], value: "N", help: "threads one input may use (default: the cores available ÷ --jobs)")
            case .manifest: return OptionSpec(names: ["--manifest"], value: "FILE", help: "append a JSON line per input as it ends (input, output, kind, bytes, error)")
            }
        }
    }

    let positionalInputs: [String]
    let options: BatchOptions
    let mode: Bulk.Mode
    let quiet: Bool
    let walk: Bulk.Walk
    let manifest: String?

    init(_ a: Arguments<Option>) throws {
        let profile = try MediaFlags.profile(a, profile: .profile, maxBytes: .maxBytes, maxSide: .maxSide, background: .background)
        var o = BatchOptions(outputDirectory: a.value(.out) ?? "mediaprep-out")
        o.profile = profile
        if let m = try a.int(.maxPixels, min: 1) { o.maxPixels = Int(m) }
        if let mp = try a.int(.pixelBudget, min: 1, max: 100_000) { o.pixelBudget = Int(mp) * 1_000_000 }
        if let t = try a.int(.timeLimit, min: 0, max: 86_400) { o.timeLimit = t == 0 ? nil : Double(t) }
        o.text = a.value(.text) ?? ""
        o.quotedItemId = try a.int(.quote, min: 0)
        var m: [String: Int64] = [:]
        for spec in a.all(.mention) {
            let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let id = Int64(parts[1]) else {
                throw UsageError(message: "--mention takes NAME=MEMBER_ID, got \(spec)")
            }
            m[parts[0]] = id
        }
        guard m.count <= SimplexLimits.simplex.maxMentions else { throw UsageError(message: "at most 3 mentions per message") }
        o.mentions = m
        do { o.chat = try a.value(.send).map(SendCommand.parseChat) } catch { throw UsageError(message: "\(error)") }
        o.recipients = Int(try a.int(.recipients, min: 0) ?? 1)
        o.xftp = !a.has(.noXFTP)
        o.jobs = Bulk.jobs(try a.int(.jobs, min: 1, max: 256))
        o.threadsPerInput = try a.int(.threads, min: 1, max: 256).map(Int.init)
        o.media = try MediaFlags.options(a, profile: &o.profile, video: .video, videoMaxBytes: .videoMaxBytes, videoMaxHeight: .videoMaxHeight,
                                         autoReceive: .autoReceive, audio: .audio, longImages: .longImages, quality: .quality, maxBytes: .maxBytes,
                                           trim: .trim, trimToFit: .trimToFit, motion: .motion, strict: .strict)
        if a.has(.noLinkPreview) {
            o.linkPreviews = nil
        } else {
            o.linkPreviews?.allowPrivateHosts = a.has(.allowPrivateHosts)
        }
        guard !a.positionals.isEmpty || !o.text.isEmpty else {
            throw UsageError(message: "prepare needs at least one FILE (or --text for a text message)")
        }
        mode = try Bulk.mode(json: a.has(.json), jsonl: a.has(.jsonl))
        positionalInputs = a.positionals
        quiet = a.has(.quiet)
        walk = try Bulk.walk(a, followSymlinks: .followSymlinks, shard: .shard, null: .null)
        manifest = a.value(.manifest)
        if a.has(.resume) {
            let folders = a.positionals.filter { $0 != "-" && InputWalker.isDirectory($0) }
            o.resumeName = { RelativeName.of($0, folders: folders) }
        }
        options = o
    }

    func run() async -> Int32 {
        let (trap, progress, batch, inputs) = Trace.time("set up the batch") {
            (SignalTrap(), ProgressBar.install(quiet: quiet), BatchPreparer(options), Bulk.inputs(positionalInputs, walk))
        }
        let state = RunState()
        let mode = self.mode
        let tally = Tally()
        let started = Date()
        let manifest: Manifest?
        do { manifest = try self.manifest.map { try Manifest(path: $0, outputDirectory: options.outputDirectory) } } catch {
            Output.error("\(error)")
            return 75
        }
        await trap.run {
            let summary = await batch.run(inputs, cancellation: trap.cancellation, progress: progress) { event in
                switch event {
                case .item(let item):
                    Trace.time("describe the item") { state.report(item.json, text: item.summary, mode: mode) }
                    manifest?.record(item)
                    tally.add(item)
                case .text(let t): state.report(t.json, text: t.summary, mode: mode)
                case .messages(_, let line?):
                    // --json: on the item whose message closes the batch; --jsonl (one object an input): stderr.
                    switch mode {
                    case .text: Output.line(line)
                    case .json: state.attachSendLine(line)
                    case .jsonl: state.sendLines.append(line)
                    }
                case .messages(_, nil):
                    break
                }
            }
            state.summary = summary
        }
        ProgressBar.finish()
        if mode == .json { Trace.time("report") { Output.json(.array(state.items)) } }
        for line in state.sendLines { Output.stderr(line) }
        let seconds = Date().timeIntervalSince(started)
        if mode == .text, state.summary.inputs > 1 { Output.line(tally.line(state.summary, seconds: seconds)) }
        // JSON modes: stdout is SPEC §7's one object an input; the run's totals go last on stderr.
        if mode != .text { Output.stderr(JSONValue.object([.init("summary", tally.json(state.summary, seconds: seconds))]).serialized) }
        if !options.text.isEmpty, state.summary.textNotSent, trap.exitStatus == nil {
            Output.error("the text was not sent: no attachment could be prepared, and a caption does not go alone (send it with --text and no files)")
        }
        if let status = trap.exitStatus {
            let s = state.summary
            Output.error("interrupted: \(s.prepared) prepared, \(s.failed) failed, the rest not started; no partial file left")
            return status
        }
        return Bulk.exitStatus(state.summary)
    }
}

/// What a text run adds up to: "12 inputs: 9 prepared (6 images, 2 videos, 1 voice note), 1 skipped,
/// 2 failed; 3,412,007 bytes written in 4.1 s".
private final class Tally: @unchecked Sendable {
    private var kinds: [String: Int] = [:]
    private var bytes = 0

    func add(_ item: BatchItem) {
        guard case .success(let a) = item.result, item.json.objectMembers?.contains(where: { $0.key == "skipped" }) != true else { return }
        kinds[a.kind.rawValue, default: 0] += 1
        bytes += a.bytes
    }

    func json(_ s: BatchSummary, seconds: Double) -> JSONValue {
        .object([.init("inputs", .int(s.inputs)), .init("prepared", .int(s.prepared)), .init("skipped", .int(s.skipped)),
                 .init("failed", .int(s.failed)), .init("environmentFailed", .int(s.environmentFailed)),
                 .init("byKind", .object(kinds.sorted { $0.key < $1.key }.map { .init($0.key, .int($0.value)) })),
                 .init("bytesWritten", .int(bytes)), .init("seconds", .double((seconds * 1000).rounded() / 1000))])
    }

    func line(_ s: BatchSummary, seconds: Double) -> String {
        func n(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        let names: [(String, String, String)] = [("image", "image", "images"), ("animatedImage", "GIF", "GIFs"), ("video", "video", "videos"),
                                                 ("voice", "voice note", "voice notes"), ("file", "file", "files")]
        let parts = names.compactMap { k, one, many in kinds[k].map { n($0, one, many) } }
        var text = n(s.inputs, "input", "inputs") + ": \(s.prepared) prepared" + (parts.isEmpty ? "" : " (" + parts.joined(separator: ", ") + ")")
        if s.skipped > 0 { text += ", \(s.skipped) skipped" }
        if s.failed > 0 { text += ", \(s.failed) failed" }
        return text + "; \(bytes) bytes written in \(String(format: "%.1f", seconds)) s"
    }
}


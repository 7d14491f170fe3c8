import FoundationEssentials
import Glibc
import Dispatch
import MediaPrep
import UploadPlanner

/// The bulk options every file-taking command shares: folders, `-`, `--jobs`, `--jsonl`,
/// `--quiet`, and a clean stop on SIGINT/SIGTERM.
enum Bulk {
    static let jobs = OptionSpec(names: ["--jobs", "-j"], value: "N", help: "inputs worked on at once (default: the core count)")
    static let jsonl = OptionSpec(names: ["--jsonl"], value: nil, help: "one JSON object per input as each finishes, in input order")
    static let quiet = OptionSpec(names: ["--quiet", "-q"], value: nil, help: "no progress bar on stderr")
    static let json = OptionSpec(names: ["--json"], value: nil, help: "print one JSON document")
    static let followSymlinks = OptionSpec(names: ["--follow-symlinks"], value: nil,
                                           help: "follow symbolic links met in folders even where they lead out of the folder given")

    static let shard = OptionSpec(names: ["--shard"], value: "K/N",
                                  help: "only the inputs of shard K of N (0 ≤ K < N): by a hash of each path relative to the folder given, the same on every machine")
    static let null = OptionSpec(names: ["-0", "--null"], value: nil, help: "paths on stdin are separated by NUL bytes (find -print0)")

    /// How file arguments become inputs: links, a shard, stdin's separator.
    struct Walk: Sendable {
        var followSymlinks = false
        var shard: Shard?
        var nulSeparated = false
    }

    static func walk<O: CommandOption>(_ a: Arguments<O>, followSymlinks: O, shard: O, null: O) throws -> Walk {
        var w = Walk(followSymlinks: a.has(followSymlinks), nulSeparated: a.has(null))
        if let spec = a.value(shard) {
            guard let s = Shard(parsing: spec) else { throw UsageError(message: "--shard takes K/N with 0 ≤ K < N, got \(spec)") }
            w.shard = s
        }
        return w
    }

    /// FILE, DIR (walked recursively, sorted, hidden entries skipped) and `-` (paths on stdin, one per
    /// line or, with `-0`, NUL-separated); with a shard, only that shard's inputs.
    static func inputs(_ positionals: [String], _ walk: Walk = Walk()) -> BatchInputs {
        let folders = positionals.filter { $0 != "-" && InputWalker.isDirectory($0) }
        func keep(_ path: String) -> Bool {
            walk.shard.map { $0.contains(RelativeName.of(path, folders: folders)) } ?? true
        }
        func expand(_ paths: [String]) -> [String] {
            InputWalker.expand(paths, followSymlinks: walk.followSymlinks) { s in
                Output.error("\(s.path): skipped: \(s.reason)")
            }.filter(keep)
        }
        guard positionals.contains("-") else { return .list(expand(positionals)) }
        let (stream, c) = AsyncStream<String>.makeStream()
        let stdin = BatchInputs.lines(fileDescriptor: STDIN_FILENO, separator: walk.nulSeparated ? 0 : 0x0A)
        let before = positionals.prefix { $0 != "-" }
        let after = positionals.drop { $0 != "-" }.dropFirst()
        Task {
            for p in expand(Array(before)) { c.yield(p) }
            for await p in stdin.stream as AsyncStream<String> where keep(p) { c.yield(p) }
            for p in expand(Array(after)) { c.yield(p) }
            c.finish()
        }
        return .stream(stream)
    }

    static func jobs(_ n: Int64?) -> Int { n.map(Int.init) ?? Cores.available }

    /// How results are printed: text lines, one JSON document, or one JSON object per input.
    enum Mode { case text, json, jsonl }

    static func mode(json: Bool, jsonl: Bool) throws -> Mode {
        guard !(json && jsonl) else { throw UsageError(message: "--json and --jsonl exclude each other") }
        return jsonl ? .jsonl : (json ? .json : .text)
    }
}

extension Bulk {
    /// 75 (`EX_TEMPFAIL`) when the environment failed any input (an engine retries exactly those),
    /// else 1 when an input was rejected (retrying cannot help), else 0.
    static func exitStatus(_ s: BatchSummary) -> Int32 {
        s.environmentFailed > 0 ? 75 : s.failed > 0 ? 1 : 0
    }
}

/// Turns SIGINT, SIGTERM, SIGHUP (a closed terminal or ssh session) and SIGPIPE (`mediaprep … | head`)
/// into cancellation of the batch: no temporary file is left, and the command exits 128 + the signal.
final class SignalTrap: @unchecked Sendable {
    let cancellation = CancellationFlag()
    private let lock = PosixLock()
    private var caught: Int32 = 0
    private var sources: [DispatchSourceSignal] = []
    private var task: Task<Void, Never>?

    /// The trap of the command running now: a write to a closed pipe stops its batch (`Output`).
    private static let currentLock = PosixLock()
    nonisolated(unsafe) private static weak var currentTrap: SignalTrap?
    static var current: SignalTrap? {
        get { currentLock.withLock { currentTrap } }
        set { currentLock.withLock { currentTrap = newValue } }
    }

    /// Checks once a second that the process that started this one lives: an engine's worker killed
    /// with SIGKILL must not leave its mediaprep running on as an orphan, writing beside the retry.
    private var parentWatch: DispatchSourceTimer?

    init() {
        defer { Self.current = self }
        let parent = getppid()
        if parent > 1 {
            let t = DispatchSource.makeTimerSource(queue: .global())
            t.schedule(deadline: .now() + 1, repeating: 1)
            t.setEventHandler { [weak self] in if getppid() != parent { self?.fire(SIGHUP) } }
            t.resume()
            parentWatch = t
        }
        for sig in Self.signals {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [weak self] in self?.fire(sig) }
            s.resume()
            sources.append(s)
        }
    }

    static let signals = [SIGINT, SIGTERM, SIGHUP, SIGPIPE]

    /// The signal that stopped the run, if any.
    var caughtSignal: Int32 { lock.lock(); defer { lock.unlock() }; return caught }

    /// 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, 141 for SIGPIPE, as shells report a process
    /// those signals ended.
    var exitStatus: Int32? { caughtSignal == 0 ? nil : 128 + caughtSignal }

    /// Runs `body` as a task the signals cancel, and waits for it.
    func run(_ body: @escaping @Sendable () async -> Void) async {
        let t = Task { await body() }
        setTask(t)
        await t.value
    }

    private func setTask(_ t: Task<Void, Never>) {
        lock.lock(); task = t; lock.unlock()
    }

    func fire(_ sig: Int32) {
        lock.lock()
        let first = caught == 0
        if first { caught = sig }
        let t = task
        lock.unlock()
        guard first else { return }
        cancellation.cancel()
        t?.cancel()
        // Jobs stop at their next stage; should one hang in C code, do not wait for ever.
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            OutputWriter.removeTemporaryFiles()
            _exit(128 + sig)
        }
    }

    deinit {
        parentWatch?.cancel()
        for s in sources { s.cancel() }
        // SIGPIPE stays ignored: a write to a closed pipe is an error to handle, not a death.
        for sig in [SIGINT, SIGTERM, SIGHUP] { signal(sig, SIG_DFL) }
    }
}

/// What a run collects while events stream in (touched by the one task that runs the batch).
final class RunState: @unchecked Sendable {
    var items: [JSONValue] = []
    /// `check --format sarif`: every result, for the one document printed at the end.
    var results: [SendCheck.Result] = []
    var sendLines: [String] = []
    var summary = BatchSummary()

    /// `--json`: a batch's `/_send` line on the item whose message closes it (the last item with a message).
    func attachSendLine(_ line: String) {
        func carries(_ item: JSONValue, _ key: String) -> Bool {
            guard case .object(let m) = item else { return false }
            return m.contains { $0.key == key && $0.value != .null }
        }
        // The last item with a message (a text-only message too) not yet given a line; else stderr.
        guard let i = items.lastIndex(where: { carries($0, "composedMessage") && !carries($0, "sendLine") }),
              case .object(let m) = items[i] else { return sendLines.append(line) }
        items[i] = .object(m + [.init("sendLine", .string(line))])
    }

    /// One input's outcome in the chosen output mode: a text line, a JSON line, or kept for the document.
    func report(_ json: JSONValue, text: @autoclosure () -> String, mode: Bulk.Mode) {
        switch mode {
        case .text: Output.line(text())
        case .jsonl: Output.json(json)
        case .json: items.append(json)
        }
    }

    /// A failed input: `{"input", …nulls, "error"}` in JSON modes, `mediaprep: PATH: code: message` in text.
    func fail(_ path: String, _ error: Error, mode: Bulk.Mode, nulls: [String] = []) {
        let err = (error as? MediaPrepError) ?? MediaPrepError(.decodeFailed, "\(error)")
        summary.failed += 1
        if err.isEnvironmental { summary.environmentFailed += 1 }
        let json = JSONValue.object([.init("input", .string(path))] + nulls.map { .init($0, .null) } + [.init("error", err.json)])
        if mode == .text { Output.error("\(path): \(err)") } else { report(json, text: "", mode: mode) }
    }

    /// Prints the JSON document (an object when `single`), and returns the exit status.
    func finish(mode: Bulk.Mode, single: Bool, trap: SignalTrap?) -> Int32 {
        ProgressBar.finish()
        if mode == .json { Output.json(single ? (items.first ?? .null) : .array(items)) }
        if let status = trap?.exitStatus { return status }
        return Bulk.exitStatus(summary)
    }
}

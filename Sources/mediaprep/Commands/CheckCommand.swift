import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// `mediaprep check`: for CI — can each file be sent as it is, after preparation, or not at all?
struct CheckCommand: Command {
    static let name = "check"
    static let summary = "say from headers whether files can be sent as they are, after preparation, or not (exit 1 if any cannot)"
    static let positionals = "FILE|DIR|-..."

    enum Option: CommandOption {
        case profile, maxBytes, maxSide, background, quality, video, videoMaxBytes, videoMaxHeight, trim, trimToFit, motion, audio, longImages, autoReceive, strict, format, json, jsonl, jobs, quiet, followSymlinks, shard, null
        var spec: OptionSpec {
            switch self {
            case .profile: return OptionSpec(names: ["--profile"], value: "simplex|bluesky", help: "simplex (default) or bluesky")
            case .maxBytes: return MediaFlags.maxBytes
            case .maxSide: return MediaFlags.maxSide
            case .background: return MediaFlags.background
            case .quality: return MediaFlags.quality
            case .videoMaxHeight: return MediaFlags.videoMaxHeight
            case .trim: return MediaFlags.trim
            case .trimToFit: return MediaFlags.trimToFit
            case .motion: return MediaFlags.motion
            case .video: return MediaFlags.video
            case .videoMaxBytes: return MediaFlags.videoMaxBytes
            case .audio: return MediaFlags.audio
            case .longImages: return MediaFlags.longImages
            case .autoReceive: return MediaFlags.autoReceive
            case .strict: return OptionSpec(names: ["--strict"], value: nil, help: "exit 1 also when a file would have to be changed; a document whose metadata cannot be taken out cannot be sent (as prepare --strict)")
            case .format: return OptionSpec(names: ["--format"], value: "text|json|github|sarif", help: "output: text (default), one JSON document, GitHub Actions annotations, or SARIF 2.1.0")
            case .json: return OptionSpec(names: ["--json"], value: nil, help: "the same as --format json", inUsage: false)
            case .jsonl: return Bulk.jsonl
            case .jobs: return Bulk.jobs
            case .quiet: return Bulk.quiet
            case .followSymlinks: return Bulk.followSymlinks
            case .shard: return Bulk.shard
            case .null: return Bulk.null
            }
        }
    }

    enum Format: String { case text, json, github, sarif, jsonl }

    let inputs: [String], check: SendCheck, strict: Bool, format: Format, jobs: Int, quiet: Bool, walk: Bulk.Walk

    init(_ a: Arguments<Option>) throws {
        guard !a.positionals.isEmpty else { throw UsageError(message: "check needs at least one FILE") }
        inputs = a.positionals
        var profile = try MediaFlags.profile(a, profile: .profile, maxBytes: .maxBytes, maxSide: .maxSide, background: .background)
        let media = try MediaFlags.options(a, profile: &profile, video: .video, videoMaxBytes: .videoMaxBytes, videoMaxHeight: .videoMaxHeight,
                                           autoReceive: .autoReceive, audio: .audio, longImages: .longImages, quality: .quality, maxBytes: .maxBytes,
                                           trim: .trim, trimToFit: .trimToFit, motion: .motion, strict: .strict)
        var c = SendCheck(profile: profile)
        c.media = media
        check = c
        strict = a.has(.strict)
        var f = Format.text
        if let v = a.value(.format) {
            guard let parsed = Format(rawValue: v), parsed != .jsonl else { throw UsageError(message: "--format is text, json, github or sarif, got \(v)") }
            f = parsed
        }
        if a.has(.json) { f = .json }
        if a.has(.jsonl) { f = .jsonl }
        format = f
        jobs = Bulk.jobs(try a.int(.jobs, min: 1, max: 256))
        quiet = a.has(.quiet)
        walk = try Bulk.walk(a, followSymlinks: .followSymlinks, shard: .shard, null: .null)
    }

    /// One file named as it is (no folder, no list on stdin, no shard, no symlink to follow): checked
    /// here, with no task, no signal watcher and no thread (a pre-commit hook runs one per file).
    func runNow() -> Int32? {
        guard inputs.count == 1, let path = inputs.first, path != "-", walk.shard == nil, !walk.nulSeparated else { return nil }
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let counts = Counts()
        let r = check.check(path: path)
        counts.add(r.verdict)
        switch format {
        case .text: Output.line(Self.text(r))
        case .github: if let line = Self.annotation(r) { Output.line(line) }
        case .jsonl: Output.json(r.json)
        case .json: Output.json(.array([r.json]))
        case .sarif: Output.json(SendCheck.sarif([r], toolVersion: Version.string))
        }
        return finish(counts)
    }

    /// The closing line and the exit status.
    private func finish(_ counts: Counts) -> Int32 {
        if format == .text || format == .github {
            let line = "\(counts.total) \(counts.total == 1 ? "file" : "files"): \(counts.asIs) ok as \(counts.asIs == 1 ? "it is" : "they are"), \(counts.after) after preparation, \(counts.cannot) cannot be sent"
            if format == .text { Output.line(line) } else { Output.line("::notice title=mediaprep check::" + line) }
        }
        return counts.cannot > 0 || (strict && counts.after > 0) ? 1 : 0
    }

    func run() async -> Int32 {
        let trap = SignalTrap()
        let progress = ProgressBar.install(quiet: quiet)
        let state = RunState()
        let counts = Counts()
        let source = Bulk.inputs(inputs, walk)
        var paired = self.check
        if let paths = source.paths { paired.livePhotos = LivePhoto.pairs(paths) }
        let (format, check) = (self.format, paired)
        let jobs = self.jobs
        await trap.run {
            let s = await BatchRunner(jobs: jobs).run(source, cancellation: trap.cancellation, progress: progress,
                                                      work: { _, path in check.check(path: path) }) { _, _, r in
                counts.add(r.verdict)
                switch format {
                case .text: Output.line(Self.text(r))
                case .github: if let line = Self.annotation(r) { Output.line(line) }
                case .jsonl: Output.json(r.json)
                case .json: state.items.append(r.json)
                case .sarif: state.results.append(r)
                }
            }
            state.summary.interrupted = s.cancelled
        }
        ProgressBar.finish()
        if format == .json { Output.json(.array(state.items)) }
        if format == .sarif { Output.json(SendCheck.sarif(state.results, toolVersion: Version.string)) }
        let status = finish(counts)
        return trap.exitStatus ?? status
    }

    static func text(_ r: SendCheck.Result) -> String {
        let v: String
        switch r.verdict {
        case .asIs: v = "ok as it is"
        case .afterPreparation: v = "ok after preparation"
        case .cannotSend: v = "CANNOT be sent"
        }
        return "\(r.input): \(v) — " + r.reasons.joined(by: "; ")
    }

    /// GitHub Actions workflow commands: an error for what cannot be sent, a warning for what
    /// preparation would change; nothing for files that are fine.
    static func annotation(_ r: SendCheck.Result) -> String? {
        let level: String
        switch r.verdict {
        case .asIs: return nil
        case .afterPreparation: level = "warning"
        case .cannotSend: level = "error"
        }
        let title = r.verdict == .cannotSend ? "cannot be sent" : "changed when sent"
        return "::\(level) file=\(escapeProperty(r.input)),title=\(escapeProperty(title))::" + escapeData(r.reasons.joined(by: "; "))
    }

    /// GitHub's escaping for a workflow command's message and its properties.
    static func escapeData(_ s: String) -> String {
        s.replacing("%", with: "%25").replacing("\r", with: "%0D").replacing("\n", with: "%0A")
    }

    static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacing(":", with: "%3A").replacing(",", with: "%2C")
    }
}

/// Verdict tallies, updated from the emitting task only.
final class Counts: @unchecked Sendable {
    var asIs = 0, after = 0, cannot = 0
    var total: Int { asIs + after + cannot }
    func add(_ v: SendCheck.Verdict) {
        switch v {
        case .asIs: asIs += 1
        case .afterPreparation: after += 1
        case .cannotSend: cannot += 1
        }
    }
}

import MediaPrep
import UploadPlanner

/// `mediaprep probe`: kind, container, codecs, size as displayed, rotation, duration, for many files.
struct ProbeCommand: Command {
    static let name = "probe"
    static let summary = "describe files: kind, format, codecs, size as displayed, rotation, duration"
    static let positionals = "FILE|DIR|-..."

    enum Option: CommandOption {
        case jobs, json, jsonl, quiet, followSymlinks, shard, null
        var spec: OptionSpec {
            switch self {
            case .jobs: return Bulk.jobs
            case .json: return OptionSpec(names: ["--json"], value: nil, help: "print one JSON document (an object for one FILE, else an array)")
            case .jsonl: return Bulk.jsonl
            case .quiet: return Bulk.quiet
            case .followSymlinks: return Bulk.followSymlinks
            case .shard: return Bulk.shard
            case .null: return Bulk.null
            }
        }
    }

    let inputs: [String], jobs: Int, mode: Bulk.Mode, quiet: Bool, walk: Bulk.Walk

    init(_ a: Arguments<Option>) throws {
        guard !a.positionals.isEmpty else { throw UsageError(message: "probe needs at least one FILE") }
        inputs = a.positionals
        jobs = Bulk.jobs(try a.int(.jobs, min: 1, max: 256))
        mode = try Bulk.mode(json: a.has(.json), jsonl: a.has(.jsonl))
        quiet = a.has(.quiet)
        walk = try Bulk.walk(a, followSymlinks: .followSymlinks, shard: .shard, null: .null)
    }

    func run() async -> Int32 {
        // One plain FILE keeps the single-object JSON scripts already read.
        let single = inputs.count == 1 && inputs[0] != "-" && !InputWalker.isDirectory(inputs[0])
        let trap = SignalTrap()
        let progress = single ? nil : ProgressBar.install(quiet: quiet)
        let state = RunState()
        let mode = self.mode
        let source = Bulk.inputs(inputs, walk)
        let jobs = self.jobs
        await trap.run {
            let s = await BatchRunner(jobs: jobs).run(source, cancellation: trap.cancellation, progress: progress,
                                                      work: { _, path in Result { try MediaProbe.probe(path: path) } }) { _, path, r in
                switch r {
                case .success(let p): state.report(p.json, text: p.text, mode: mode)
                case .failure(let e): state.fail(path, e, mode: mode)
                }
            }
            state.summary.interrupted = s.cancelled
        }
        return state.finish(mode: mode, single: single, trap: trap)
    }

    /// One regular file, probed on the calling thread: the process starts no thread, as `check` of
    /// one file does (strace: 3 clones before).
    func runNow() -> Int32? {
        guard inputs.count == 1, let path = inputs.first, path != "-", walk.shard == nil, !walk.nulSeparated else { return nil }
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        let state = RunState()
        do {
            let p = try MediaProbe.probe(path: path)
            state.report(p.json, text: p.text, mode: mode)
        } catch {
            state.fail(path, error, mode: mode)
        }
        return state.finish(mode: mode, single: true, trap: nil)
    }
}

extension ProbeResult {
    var json: JSONValue {
        .object([
            .init("input", .string(path)), .init("kind", .string(kind.rawValue)),
            .init("format", .string(format.rawValue)), .init("container", .optional(container)),
            .init("videoCodec", .optional(videoCodec)), .init("audioCodec", .optional(audioCodec)),
            .init("width", width.json), .init("height", height.json), .init("rotation", .int(rotation)),
            .init("orientation", .int(orientation.rawValue)), .init("hasAlpha", .bool(hasAlpha)),
            .init("durationSeconds", durationSeconds.json), .init("bitRate", bitRate.json),
            .init("frameRate", frameRate.json), .init("frameCount", frameCount.json),
            .init("animated", .bool(animated)), .init("bytes", .int(bytes)), .init("error", .null),
        ])
    }

    var text: String {
        var lines = ["\(path): \(kind.rawValue) (\(format.rawValue)), \(bytes) bytes"]
        if let w = width, let h = height { lines.append("  size: \(w)×\(h) as displayed") }
        if orientation != .up { lines.append("  EXIF orientation: \(orientation.rawValue)") }
        if rotation != 0 { lines.append("  rotation: \(rotation)° clockwise") }
        if let c = container { lines.append("  container: \(c)") }
        if let v = videoCodec { lines.append("  video: \(v)" + (frameRate.map { String(format: " at %.2f fps", $0) } ?? "")) }
        if let a = audioCodec { lines.append("  audio: \(a)") }
        if let d = durationSeconds { lines.append(String(format: "  duration: %.3f s", d)) }
        if hasAlpha { lines.append("  transparency: yes") }
        if let f = frameCount, f > 1 { lines.append("  frames: \(f)") }
        return lines.joined(separator: "\n")
    }
}

import FoundationEssentials
import Glibc

import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// `mediaprep thumbnail`: a representative, upright JPEG frame of each video, FFmpeg loaded once.
struct ThumbnailCommand: Command {
    static let name = "thumbnail"
    static let summary = "write each video's representative frame as an upright JPEG"
    static let positionals = "VIDEO|DIR|-..."

    enum Option: CommandOption {
        case output, out, maxSide, quality, jobs, json, jsonl, quiet, followSymlinks, shard, null
        var spec: OptionSpec {
            switch self {
            case .output: return OptionSpec(names: ["-o", "--output"], value: "FILE", help: "the JPEG to write (one VIDEO)")
            case .out: return OptionSpec(names: ["--out"], value: "DIR", help: "folder for NAME.jpg per video (many VIDEOs)")
            case .maxSide: return OptionSpec(names: ["--max-side"], value: "N", help: "cap on the long side (default 1280)")
            case .quality: return OptionSpec(names: ["--quality"], value: "Q", help: "JPEG quality 1–100 (default 85)")
            case .jobs: return Bulk.jobs
            case .json: return Bulk.json
            case .jsonl: return Bulk.jsonl
            case .quiet: return Bulk.quiet
            case .followSymlinks: return Bulk.followSymlinks
            case .shard: return Bulk.shard
            case .null: return Bulk.null
            }
        }
    }

    let inputs: [String], output: String?, outDir: String?, maxSide: Int, quality: Int, jobs: Int
    let mode: Bulk.Mode, quiet: Bool, walk: Bulk.Walk

    init(_ a: Arguments<Option>) throws {
        guard !a.positionals.isEmpty else { throw UsageError(message: "thumbnail needs at least one VIDEO") }
        output = a.value(.output)
        outDir = a.value(.out)
        guard (output == nil) != (outDir == nil) else { throw UsageError(message: "give -o FILE (one VIDEO) or --out DIR (many)") }
        if output != nil, a.positionals.count != 1 || a.positionals[0] == "-" || InputWalker.isDirectory(a.positionals[0]) {
            throw UsageError(message: "-o FILE takes exactly one VIDEO; use --out DIR for many")
        }
        inputs = a.positionals
        maxSide = Int(try a.int(.maxSide, min: 16) ?? 1280)
        quality = Int(try a.int(.quality, min: 1, max: 100) ?? 85)
        jobs = Bulk.jobs(try a.int(.jobs, min: 1, max: 256))
        mode = try Bulk.mode(json: a.has(.json), jsonl: a.has(.jsonl))
        quiet = a.has(.quiet)
        walk = try Bulk.walk(a, followSymlinks: .followSymlinks, shard: .shard, null: .null)
    }

    struct Made: Sendable {
        var output: String?
        /// With --out DIR: written, named when emitted, so names follow the input order.
        var staged: StagedFile?
        let thumbnail: VideoThumbnail
        let bytes: Int
    }

    func run() async -> Int32 {
        let trap = SignalTrap()
        let progress = output == nil ? ProgressBar.install(quiet: quiet) : nil
        let state = RunState()
        let (mode, output, outDir, maxSide, quality, jobs) = (self.mode, self.output, self.outDir, maxSide, quality, jobs)
        let cancellation = trap.cancellation
        let source = Bulk.inputs(inputs, walk)
        await trap.run {
            let s = await BatchRunner(jobs: jobs).run(source, cancellation: cancellation, progress: progress, work: { _, path in
                Result { () throws -> Made in
                    let t = try VideoThumbnailer(maxSide: maxSide).thumbnail(path: path)
                    let data = try JPEGEncoder().encode(t.pixels, quality: quality)
                    try cancellation.check()
                    if let output {
                        try OutputWriter.writeReplacing(data, to: output, protecting: path)
                        return Made(output: output, staged: nil, thumbnail: t, bytes: data.count)
                    }
                    let file = path.split(separator: "/").last.map(String.init) ?? "video"
                    let base = file.lastIndex(of: ".").map { String(file[..<$0]) } ?? file
                    let staged = try OutputWriter.stage(data, directory: outDir ?? ".", base: base.isEmpty ? "video" : base,
                                                        ext: "jpg", cancellation: cancellation)
                    return Made(output: nil, staged: staged, thumbnail: t, bytes: data.count)
                }
            }) { _, path, made in
                let r = made.flatMap { m -> Result<Made, Error> in
                    guard let staged = m.staged else { return .success(m) }
                    return Result {
                        var named = m
                        named.output = try staged.commit()
                        return named
                    }
                }
                switch r {
                case .success(let m):
                    let t = m.thumbnail
                    let json = JSONValue.object([
                        .init("input", .string(path)), .init("output", .optional(m.output)), .init("width", .int(t.pixels.width)),
                        .init("height", .int(t.pixels.height)), .init("seconds", .double((t.seconds * 1000).rounded() / 1000)),
                        .init("rotation", .int(t.rotation)), .init("bytes", .int(m.bytes)), .init("error", .null),
                    ])
                    state.report(json, text: "\(path) → \(m.output ?? "-"): \(t.pixels.width)×\(t.pixels.height), frame at \(String(format: "%.2f", t.seconds)) s, \(m.bytes) bytes", mode: mode)
                case .failure(let e):
                    state.fail(path, e, mode: mode, nulls: ["output"])
                }
            }
            state.summary.interrupted = s.cancelled
        }
        return state.finish(mode: mode, single: output != nil, trap: trap)
    }
}

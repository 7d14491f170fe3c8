import Synchronization
import Foundation
import UploadPlanner

/// The compose bar's whole send flow for one file or a million: prepared files, transfer plans,
/// messages in batches of 10 and their `/_send` lines, from one call that the CLI only prints.
public struct BatchPreparer: Sendable {
    public var options: BatchOptions

    public init(_ options: BatchOptions) { self.options = options }

    /// One file, prepared as a batch of one would be (the options' text goes on its last message); a
    /// long screenshot split into an album comes back as its first part with the rest in `laterParts`.
    public func prepare(file path: String) async throws(MediaPrepError) -> PreparedAttachment {
        let items = await prepare([path]).items
        guard let item = items.first else { throw MediaPrepError(.cancelled, "\(path) was not prepared") }
        var first = try item.result.get()
        for later in items.dropFirst() { first.laterParts.append(try later.result.get()) }
        return first
    }

    /// Everything at once, in input order. Folders are not expanded here (`BatchInputs.expand`).
    public func prepare(_ paths: [String]) async -> BatchResult {
        let collected = Collector()
        let summary = await run(.list(paths)) { event in collected.add(event) }
        var result = collected.result
        result.summary = summary
        return result
    }

    /// Streams `.item` for every input in input order as soon as it (and every input before it)
    /// is done, and `.messages` as each batch closes. Cancel the calling task to stop: jobs in
    /// flight end at their next stage and leave no temporary file behind.
    public func run(_ inputs: BatchInputs, cancellation: CancellationFlag = CancellationFlag(),
                    progress: (@Sendable (BatchProgress) -> Void)? = nil,
                    onEvent: (BatchEvent) async -> Void) async -> BatchSummary {
        let opts = options
        var preparer = AttachmentPreparer(profile: opts.profile, limits: opts.limits, outputDirectory: opts.outputDirectory,
                                          timestamp: opts.timestamp)
        preparer.maxPixels = opts.maxPixels
        preparer.cancellation = cancellation
        preparer.timeLimit = opts.timeLimit
        if let paths = inputs.paths { preparer.livePhotos = LivePhoto.pairs(paths) }
        preparer.pixelBudget = PixelBudget(capacity: opts.pixelBudget)
        preparer.stagesOutputs = true
        preparer.media = opts.media
        preparer.xftp = opts.xftp
        preparer.recipients = opts.recipients
        let relay = progress.map(ProgressRelay.init)
        if let relay { preparer.onProgress = { path, f in relay.fraction(f, of: path) } }
        let prep = preparer
        let started = StartCounter()
        var sequencer = MessageSequencer(options: opts)
        var summary = BatchSummary()
        var resumeNames = Set<String>()
        var runnerProgress: (@Sendable (BatchProgress) -> Void)? = nil
        if let relay { runnerProgress = { p in relay.runner(p) } }
        let ran = await BatchRunner(jobs: opts.jobs).run(inputs, cancellation: cancellation, progress: runnerProgress,
                                                         work: { _, path in
            // Threads for the inputs still to come: the last ones of a list get the cores the
            // finished jobs left, instead of ending the batch on one thread.
            var p = prep
            p.threads = opts.threadsPerInput ?? BatchRunner.threadsPerJob(jobs: opts.jobs, inputs: inputs.count.map { $0 - started.next() })
            if let name = opts.resumeName, let done = ResumeNames.existing(opts.outputDirectory, name(path), input: path) {
                return done
            }
            return p.prepare(path: path)
        }) { index, _, prepared in
            summary.inputs += 1
            var failure = prepared.error
            // A long screenshot's parts follow it, each its own item and message.
            var first = prepared
            first.parts = []
            var parts = [first] + prepared.parts
            if let name = opts.resumeName, failure == nil {
                // Named after the input, the last part first: the first part's name then proves them all.
                let base = name(prepared.input)
                if !resumeNames.insert(base).inserted {
                    failure = MediaPrepError(.invalidArgument, "\(prepared.input) has the same name in the output folder as an earlier input (\(base))")
                }
                for i in parts.indices.reversed() where failure == nil {
                    guard let staged = parts[i].staged else { continue }
                    parts[i].staged = nil
                    let suffix = parts.count > 1 ? "_part\(i + 1)" : ""
                    do {
                        parts[i].output = try staged.commit(replacing: opts.outputDirectory + "/" + base + suffix + "." + staged.ext)
                    } catch {
                        failure = (error as? MediaPrepError) ?? MediaPrepError(.writeFailed, "\(error)")
                    }
                }
                if let failure {
                    for i in parts.indices {
                        parts[i].staged?.discard()
                        parts[i].staged = nil
                        parts[i].output = nil
                        parts[i].error = failure
                    }
                }
            }
            if prepared.skipped { summary.skipped += 1 }
            for part in parts {
                var item = BatchItem(index: index, item: part)
                // Files are named here, in input order, so `_1`, `_2` follow the input whatever finished first.
                if let staged = part.staged {
                    item.item.staged = nil
                    do { item.item.output = try staged.commit() } catch {
                        item.item.error = (error as? MediaPrepError) ?? MediaPrepError(.writeFailed, "\(error)")
                        failure = failure ?? item.item.error
                    }
                }
                // The preparer checked it can travel before staging it; its exact plan needs the final name.
                if item.item.error == nil, !part.skipped, let out = item.item.output, let bytes = part.bytes {
                    item.transfer = prep.rules.transfer(size: bytes, kind: part.kind, fileName: sequencer.fileName(out))
                }
                for e in sequencer.add(item) { await onEvent(e) }
            }
            // Counted once every part is named: a commit that fails fails the input.
            if let failure {
                summary.failed += 1
                if failure.isEnvironmental { summary.environmentFailed += 1 }
            } else if !prepared.skipped {
                summary.prepared += 1
            }
        }
        summary.interrupted = ran.cancelled
        // An interrupted batch sends no messages: its last item may not be the last the user meant.
        if !ran.cancelled {
            for e in sequencer.close() { await onEvent(e) }
            // No input at all: the text alone is the message, a link card if it has a URL. When every
            // attachment failed, the caption is not sent alone: it described what did not go.
            if !sequencer.sentAny, opts.lastMessageIsSpecial, summary.inputs == 0 {
                let text = await TextMessage.make(options: opts)
                await onEvent(.text(text))
                await onEvent(sequencer.batch([text.composedMessage]))
            }
        }
        return summary
    }
}

/// Gathers streamed events for the all-at-once call.
private final class Collector: Sendable {
    private let state = Locked(BatchResult(items: [], text: nil, messages: [], sendLines: [], summary: BatchSummary()))
    var result: BatchResult { state.withLock { $0 } }
    func add(_ e: BatchEvent) {
        state.withLock { r in
            switch e {
            case .item(let i): r.items.append(i)
            case .text(let t): r.text = t
            case .messages(let m, let line):
                r.messages.append(m)
                if let line { r.sendLines.append(line) }
            }
        }
    }
}

/// Passes the runner's progress on, and between its events a transcode's own progress.
private final class ProgressRelay: Sendable {
    private let last = Locked(BatchProgress())
    private let forward: @Sendable (BatchProgress) -> Void
    init(_ forward: @escaping @Sendable (BatchProgress) -> Void) { self.forward = forward }

    func runner(_ p: BatchProgress) {
        last.withLock { $0 = p }
        forward(p)
    }

    func fraction(_ f: Double, of path: String) {
        var p = last.withLock { $0 }
        p.current = path
        p.fraction = f
        forward(p)
    }
}

/// Counts inputs as workers start them (from several threads).
private final class StartCounter: Sendable {
    private let n = Atomic<Int>(0)
    func next() -> Int { n.add(1, ordering: .relaxed).oldValue }
}

extension BatchPreparer {
    /// FFmpeg's log level, which is one per process: a host app silences libav's console lines with
    /// `.quiet` (every failure still reaches it as a typed `MediaPrepError`). The library never sets
    /// it on its own; it takes effect now, or when FFmpeg is first loaded.
    public enum FFmpegLogLevel: Int32, Sendable, CaseIterable {
        case quiet = -8, panic = 0, fatal = 8, error = 16, warning = 24, info = 32, verbose = 40, debug = 48
    }

    public static func setFFmpegLogLevel(_ level: FFmpegLogLevel) { FFmpegLibraries.setLogLevel(level.rawValue) }
}

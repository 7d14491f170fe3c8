import Synchronization
import FoundationEssentials
import Glibc
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
        preparer.run = RunContext(cancellation: cancellation, pixelBudget: PixelBudget(capacity: opts.pixelBudget))
        preparer.run.timeLimit = opts.timeLimit
        if let paths = inputs.paths { preparer.livePhotos = LivePhoto.pairs(paths) }
        preparer.stagesOutputs = true
        preparer.media = opts.media
        preparer.xftp = opts.xftp
        preparer.recipients = opts.recipients
        let relay = progress.map(ProgressRelay.init)
        if let relay { preparer.run.onProgress = { path, f in relay.fraction(f, of: path) } }
        let prep = preparer
        let started = StartCounter()
        var delivery = Delivery(options: opts, rules: prep.rules)
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
            for e in delivery.deliver(index: index, prepared) { await onEvent(e) }
        }
        var summary = delivery.summary
        var sequencer = delivery.sequencer
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

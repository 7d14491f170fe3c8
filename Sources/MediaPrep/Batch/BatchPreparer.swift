import Foundation
import UploadPlanner

/// The compose bar's whole send flow for one file or a million: prepared files, transfer plans,
/// messages in batches of 10 and their `/_send` lines, from one call that the CLI only prints.
public struct BatchPreparer: Sendable {
    public var options: BatchOptions

    public init(_ options: BatchOptions) { self.options = options }

    /// Everything at once, in input order. Folders are not expanded here (see `InputWalker`).
    public func prepare(_ paths: [String]) async -> BatchResult {
        let collected = Collector()
        let summary = await run(.list(paths)) { event in collected.add(event) }
        return BatchResult(items: collected.items, text: collected.text, messages: collected.messages, sendLines: collected.lines,
                           summary: summary)
    }

    /// Streams `.item` for every input in input order as soon as it (and every input before it)
    /// is done, and `.messages` as each batch closes. Cancel the calling task to stop: jobs in
    /// flight end at their next stage and leave no temporary file behind.
    public func run(_ inputs: BatchInputs, cancellation: CancellationFlag = CancellationFlag(),
                    progress: (@Sendable (BatchRunner.Progress) -> Void)? = nil,
                    onEvent: (BatchEvent) async -> Void) async -> BatchSummary {
        let opts = options
        var preparer = AttachmentPreparer(profile: opts.profile, limits: opts.limits, outputDirectory: opts.outputDirectory,
                                          timestamp: opts.timestamp)
        preparer.maxPixels = opts.maxPixels
        preparer.cancellation = cancellation
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
        var runnerProgress: (@Sendable (BatchRunner.Progress) -> Void)? = nil
        if let relay { runnerProgress = { p in relay.runner(p) } }
        let ran = await BatchRunner(jobs: opts.jobs).run(inputs, cancellation: cancellation, progress: runnerProgress,
                                                         work: { _, path in
            // Threads for the inputs still to come: the last ones of a list get the cores the
            // finished jobs left, instead of ending the batch on one thread.
            var p = prep
            p.threads = BatchRunner.threadsPerJob(jobs: opts.jobs, inputs: inputs.count.map { $0 - started.next() })
            return p.prepare(path: path)
        }) { index, _, prepared in
            var item = BatchItem(index: index, item: prepared)
            // Files are named here, in input order, so `_1`, `_2` follow the input whatever finished first.
            if let staged = prepared.staged {
                item.item.staged = nil
                do { item.item.output = try staged.commit() } catch {
                    item.item.error = (error as? MediaPrepError) ?? MediaPrepError(.writeFailed, "\(error)")
                }
            }
            // The preparer checked it can travel before staging it; its exact plan needs the final name.
            if item.item.error == nil, let out = item.item.output, let bytes = prepared.bytes {
                item.transfer = prep.rules.transfer(size: bytes, kind: prepared.kind, fileName: MessageSequencer.fileName(out))
            }
            summary.inputs += 1
            if item.item.error == nil { summary.prepared += 1 } else { summary.failed += 1 }
            for e in sequencer.add(item) { await onEvent(e) }
        }
        summary.interrupted = ran.cancelled
        // An interrupted batch sends no messages: its last item may not be the last the user meant.
        if !ran.cancelled {
            for e in sequencer.close() { await onEvent(e) }
            // No attachment went out: the text alone is the message, a link card if it has a URL.
            if !sequencer.sentAny, opts.lastMessageIsSpecial {
                let text = await TextMessage.make(options: opts)
                await onEvent(.text(text))
                await onEvent(sequencer.batch([text.composedMessage]))
            }
        }
        return summary
    }
}

/// Gathers streamed events for the all-at-once call.
private final class Collector: @unchecked Sendable {
    var items: [BatchItem] = []
    var messages: [[ComposedMessage]] = []
    var lines: [String] = []
    var text: TextMessage?
    func add(_ e: BatchEvent) {
        switch e {
        case .item(let i): items.append(i)
        case .text(let t): text = t
        case .messages(let m, let line):
            messages.append(m)
            if let line { lines.append(line) }
        }
    }
}

/// Passes the runner's progress on, and between its events a transcode's own progress.
private final class ProgressRelay: @unchecked Sendable {
    private let lock = NSLock()
    private var last = BatchRunner.Progress()
    private let forward: @Sendable (BatchRunner.Progress) -> Void
    init(_ forward: @escaping @Sendable (BatchRunner.Progress) -> Void) { self.forward = forward }

    func runner(_ p: BatchRunner.Progress) {
        lock.lock(); last = p; lock.unlock()
        forward(p)
    }

    func fraction(_ f: Double, of path: String) {
        lock.lock()
        var p = last
        p.current = path
        p.fraction = f
        lock.unlock()
        forward(p)
    }
}

/// Counts inputs as workers start them (from several threads).
private final class StartCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n - 1 }
}

import Dispatch
import FoundationEssentials
import Glibc

/// Runs one job per input on worker threads, `jobs` at a time, and hands results back in input
/// order whatever finishes first; the engine under `prepare`, `check`, `probe` and `thumbnail`.
package struct BatchRunner: Sendable {
    package var jobs: Int
    /// Inputs read ahead of the workers; among them the largest file starts first, so a long job
    /// does not start last and leave the other cores idle at the end.
    package var lookahead: Int
    /// At most this many finished results wait for an earlier, slower one.
    package var window: Int

    package init(jobs: Int = Cores.available) {
        self.jobs = max(1, jobs)
        lookahead = max(8, 4 * self.jobs)
        window = max(64, 16 * self.jobs)
    }

    /// Threads each job may use itself so that jobs × threads fills, but does not oversubscribe, the cores.
    package static func threadsPerJob(jobs: Int, inputs: Int?) -> Int {
        let cores = Cores.available
        let running = max(1, min(jobs, inputs ?? jobs))
        return max(1, cores / running)
    }

    /// Where a batch stands, for progress bars: called as each input starts and finishes.
    package typealias Progress = BatchProgress

    package struct Summary: Sendable {
        package var emitted: Int
        package var cancelled: Bool
    }

    private enum Event: Sendable {
        case input((path: String, weight: Int)?)
        case done
    }

    /// Runs `work` for every input; `emit` sees every started input once, in input order.
    /// Cancelling the calling task (or `cancellation`) starts nothing new and lets jobs in flight
    /// stop at their next stage; what was started is still emitted.
    package func run<R: Sendable>(_ inputs: BatchInputs, cancellation: CancellationFlag = CancellationFlag(),
                                 progress: (@Sendable (Progress) -> Void)? = nil,
                                 work: @escaping @Sendable (_ index: Int, _ path: String) -> R,
                                 emit: (_ index: Int, _ path: String, _ result: R) async -> Void) async -> Summary {
        let results = ResultStore<R>()
        let source = InputSource(inputs.stream)
        let queue = DispatchQueue(label: "mediaprep.batch", attributes: .concurrent)
        return await withTaskCancellationHandler {
            await withTaskGroup(of: Event.self) { group in
                var buffer: [(index: Int, path: String, weight: Int)] = []
                var nextIndex = 0, nextEmit = 0, inFlight = 0, started = 0, done = 0
                var pulling = false, exhausted = false
                var paths: [Int: String] = [:]
                var state = Progress(started: 0, done: 0, total: inputs.count, current: nil)

                func pull() {
                    guard !pulling, !exhausted, !cancellation.isCancelled, buffer.count < lookahead,
                          nextIndex - nextEmit < window else { return }
                    pulling = true
                    group.addTask {
                        guard let p = await source.next() else { return .input(nil) }
                        return .input((p, InputWalker.sizeHint(p)))
                    }
                }
                func start() {
                    while inFlight < jobs, !buffer.isEmpty, !cancellation.isCancelled {
                        var pick = 0
                        for k in buffer.indices where buffer[k].weight > buffer[pick].weight { pick = k }
                        let item = buffer.remove(at: pick)
                        inFlight += 1
                        started += 1
                        state.started = started
                        state.current = item.path
                        progress?(state)
                        group.addTask {
                            let r: R = await withCheckedContinuation { c in
                                queue.async { c.resume(returning: work(item.index, item.path)) }
                            }
                            results.put(item.index, r)
                            return .done
                        }
                    }
                }
                var emitted = 0
                pull()
                while let event = await group.next() {
                    switch event {
                    case .input(nil):
                        pulling = false
                        exhausted = true
                    case .input(let got?):
                        pulling = false
                        paths[nextIndex] = got.path
                        buffer.append((nextIndex, got.path, got.weight))
                        nextIndex += 1
                    case .done:
                        inFlight -= 1
                        done += 1
                        state.done = done
                        progress?(state)
                        while let r = results.take(nextEmit) {
                            await emit(nextEmit, paths.removeValue(forKey: nextEmit) ?? "", r)
                            emitted += 1
                            nextEmit += 1
                        }
                    }
                    if cancellation.isCancelled {
                        buffer.removeAll()
                        group.cancelAll()
                    }
                    start()
                    pull()
                }
                emitted += await Self.emitRest(results, &paths, emit)
                return Summary(emitted: emitted, cancelled: cancellation.isCancelled)
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

extension BatchRunner {
    /// Cancelled: inputs never started leave gaps; what did run is emitted, in order. How many were.
    fileprivate static func emitRest<R: Sendable>(_ results: ResultStore<R>, _ paths: inout [Int: String],
                                                  _ emit: (_ index: Int, _ path: String, _ result: R) async -> Void) async -> Int {
        var emitted = 0
        for i in results.indices() {
            guard let r = results.take(i) else { continue }
            await emit(i, paths.removeValue(forKey: i) ?? "", r)
            emitted += 1
        }
        return emitted
    }
}

/// Finished results by input index, written from worker tasks, read by the emitting loop.
private final class ResultStore<R: Sendable>: Sendable {
    private let store = Locked<[Int: R]>([:])
    func put(_ i: Int, _ r: R) { store.withLock { $0[i] = r } }
    func take(_ i: Int) -> R? { store.withLock { $0.removeValue(forKey: i) } }
    func indices() -> [Int] { store.withLock { $0.keys.sorted() } }
}

/// The input stream's iterator; only one pull is ever outstanding, so it is never used concurrently.
private final class InputSource: @unchecked Sendable {
    private var iterator: AsyncStream<String>.Iterator
    init(_ s: AsyncStream<String>) { iterator = s.makeAsyncIterator() }
    func next() async -> String? { await iterator.next() }
}

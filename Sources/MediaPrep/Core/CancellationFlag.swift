import Synchronization
import FoundationEssentials
import Glibc
import Dispatch

/// Lets blocking C work on worker threads see a Swift task's cancellation between stages, and one
/// input's time limit run out.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// The batch's flag, for one input's own.
    private let parent: CancellationFlag?
    /// Seconds one input may take once its clock starts; nil: no limit.
    private let timeLimit: Double?
    /// When that time is up (`DispatchTime` nanoseconds; 0: the clock has not started).
    private let deadline = Atomic<UInt64>(0)

    public init() {
        parent = nil
        timeLimit = nil
    }

    /// One input's flag: cancelled with `parent`, and past its time once `startClock` was called
    /// `timeLimit` seconds ago.
    package init(input parent: CancellationFlag?, timeLimit: Double?) {
        self.parent = parent
        self.timeLimit = timeLimit
    }

    /// Starts (or starts again) this input's time: waiting for its turn is not counted.
    package func startClock() {
        guard let t = timeLimit, t > 0 else { return }
        deadline.store(DispatchTime.now().uptimeNanoseconds &+ UInt64(t * 1e9), ordering: .releasing)
    }

    package var isPastDeadline: Bool {
        let d = deadline.load(ordering: .acquiring)
        return d != 0 && DispatchTime.now().uptimeNanoseconds > d
    }

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) || parent?.isCancelled == true || isPastDeadline }

    public func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Throws `timeout` once the input's time is up, `cancelled` once the flag is set.
    public func check() throws {
        if isPastDeadline, let t = timeLimit {
            throw MediaPrepError(.timeout, "still decoding after \(String(seconds: t)) s, the time one picture or animation may take (--time-limit)")
        }
        if isCancelled { throw MediaPrepError(.cancelled, "interrupted before this input finished") }
    }
}

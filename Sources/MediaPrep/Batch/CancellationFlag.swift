import Synchronization
import Foundation

/// Lets blocking C work on worker threads see a Swift task's cancellation between stages.
public final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    public init() {}

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    public func cancel() { cancelled.store(true, ordering: .releasing) }

    /// Throws `cancelled` once the flag is set.
    public func check() throws {
        if isCancelled { throw MediaPrepError(.cancelled, "interrupted before this input finished") }
    }
}

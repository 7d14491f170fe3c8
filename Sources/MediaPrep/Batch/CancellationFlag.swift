import Foundation

/// Lets blocking C work on worker threads see a Swift task's cancellation between stages.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public var isCancelled: Bool { lock.lock(); defer { lock.unlock() }; return cancelled }

    public func cancel() { lock.lock(); cancelled = true; lock.unlock() }

    /// Throws `cancelled` once the flag is set.
    public func check() throws {
        if isCancelled { throw MediaPrepError(.cancelled, "interrupted before this input finished") }
    }
}

import FoundationEssentials
import Glibc

/// Bounds the decoded pixels a batch holds at once, so 500 photos of 50 MP never decode together.
///
/// A job asks for its decoded size before decoding and waits while the budget is spent; one
/// larger than the whole budget is charged the whole budget, so it runs, alone.
package final class PixelBudget: @unchecked Sendable {
    package let capacity: Int
    private let condition = PosixCondition()
    private var used = 0

    /// What a charged pixel stands for in the image pipeline's buffers: 192 MP is about 1.5 GB. Work
    /// that holds memory other than decoded pixels (a transcode) is charged its bytes over this.
    package static let bytesPerPixel = 8

    /// - Parameter capacity: pixels in flight at most (default: 192 MP, about 1.5 GB of pipeline buffers).
    package init(capacity: Int = 192_000_000) { self.capacity = max(1, capacity) }

    /// Blocks until `pixels` fit; returns what was charged (to give back), or nil when cancelled.
    package func acquire(_ pixels: Int, cancellation: CancellationFlag? = nil) -> Int? {
        let charge = min(max(pixels, 0), capacity)
        condition.lock()
        defer { condition.unlock() }
        while used + charge > capacity {
            if cancellation?.isCancelled == true { return nil }
            condition.wait(seconds: 0.1)
        }
        used += charge
        return charge
    }

    package func release(_ charge: Int) {
        condition.lock()
        used -= charge
        condition.broadcast()
        condition.unlock()
    }

    /// Pixels charged right now; for tests and the trace.
    package var inUse: Int { condition.lock(); defer { condition.unlock() }; return used }
}

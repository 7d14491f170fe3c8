import FoundationEssentials
import Glibc

/// A value behind a lock, for state worker threads share. Not `Synchronization.Mutex`: its contended
/// path runs inside libswiftSynchronization, which ThreadSanitizer does not see, so it reported races
/// between correctly locked accesses (1 run in 3 of `scripts/qa/sanitize.sh thread`, on the batch's
/// result store); PosixLock is a pthread mutex, which ThreadSanitizer intercepts (as `OutputWriter` found).
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = PosixLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}

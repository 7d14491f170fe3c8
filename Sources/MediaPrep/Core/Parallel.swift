import Dispatch
import FoundationEssentials
import Glibc

/// Runs `count` independent jobs on the available cores and returns their results in order.
enum Parallel {
    /// - Parameter threads: 1 runs the jobs one after another (a batch already keeps every core busy).
    static func map<T: Sendable>(_ count: Int, threads: Int = 2, _ body: @Sendable (Int) throws -> T) throws -> [T] {
        if count == 1 || threads <= 1 { return try (0..<count).map(body) }
        let box = ResultBox<T>(count)
        DispatchQueue.concurrentPerform(iterations: count) { i in
            box.set(i, Result { try body(i) })
        }
        return try box.values()
    }

    private final class ResultBox<T: Sendable>: Sendable {
        private let results: Locked<[Result<T, Error>?]>
        init(_ n: Int) { results = Locked(Array(repeating: nil, count: n)) }
        func set(_ i: Int, _ r: Result<T, Error>) { results.withLock { $0[i] = r } }
        func values() throws -> [T] {
            try results.withLock { $0 }.map { r in
                guard let r else { throw MediaPrepError(.encodeFailed, "a parallel job did not finish") }
                return try r.get()
            }
        }
    }
}

/// One job started on another thread now and collected later: work that does not depend on what the
/// caller is about to do (an image's preview beside its budget search) uses the core that search leaves idle.
final class Pending<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, Error>?

    init(_ body: @escaping @Sendable () throws -> T) {
        DispatchQueue.global().async {
            self.result = Result { try body() }
            self.done.signal()
        }
    }

    /// Blocks until the job is over; its value or its error.
    func wait() throws -> T {
        done.wait()
        done.signal()  // a second wait returns at once
        guard let result else { throw MediaPrepError(.encodeFailed, "a background job did not finish") }
        return try result.get()
    }
}

/// Raw addresses handed to parallel bands that each touch only their own rows.
struct SharedPointers: @unchecked Sendable {
    let source: UnsafePointer<UInt8>
    let destination: UnsafeMutablePointer<UInt8>
}

extension Parallel {
    /// Maps `count` 4-byte pixels to 3-byte ones in two halves side by side (threads > 1).
    static func pixels(_ count: Int, from src: [UInt8], into dst: inout [UInt8], threads: Int,
                       _ body: @Sendable @escaping (UnsafePointer<UInt8>, UnsafeMutablePointer<UInt8>, Range<Int>) -> Void) {
        src.withUnsafeBufferPointer { s in
            dst.withUnsafeMutableBufferPointer { d in
                guard let sb = s.baseAddress, let db = d.baseAddress else { return }
                let shared = SharedPointers(source: sb, destination: db)
                let halves = threads > 1 && count > 500_000 ? 2 : 1
                _ = try? map(halves, threads: threads) { h in
                    body(shared.source, shared.destination, (h * count / halves)..<((h + 1) * count / halves))
                }
            }
        }
    }
}

import Foundation
import Testing
@testable import MediaPrep

/// The hand-overs between a pass's decoding, scaling and encoding threads.
@Suite struct EncodePipelineTests {
    struct Boom: Error {}

    @Test func everyItemArrivesInOrderOnAnotherThread() throws {
        let seen = Locked<[Int]>([])
        let callerThread = pthread_self()
        let otherThread = Locked(true)
        let pipe = try #require(EncodePipeline<Int>(capacity: 3, consume: { i in
            if pthread_equal(pthread_self(), callerThread) != 0 { otherThread.withLock { $0 = false } }
            seen.withLock { $0.append(i) }
        }, discard: { _ in Issue.record("nothing is discarded when all goes well") }))
        for i in 0..<500 { try pipe.push(i) }
        try pipe.close()
        #expect(seen.withLock { $0 } == Array(0..<500))
        #expect(otherThread.withLock { $0 })
    }

    @Test func aFailureReachesTheProducerAndNothingLeaks() throws {
        let consumed = Locked(0), discarded = Locked(0)
        let pipe = try #require(EncodePipeline<Int>(capacity: 2, consume: { i in
            consumed.withLock { $0 += 1 }
            if i == 10 { throw Boom() }
        }, discard: { _ in discarded.withLock { $0 += 1 } }))
        var pushed = 0
        do {
            for i in 0..<1000 { try pipe.push(i); pushed += 1 }
            Issue.record("the failure never reached push")
        } catch is Boom {}
        #expect(throws: Boom.self) { try pipe.close() }
        // Every item pushed was consumed or discarded; the one refused by push was discarded there.
        #expect(consumed.withLock { $0 } + discarded.withLock { $0 } == pushed + 1)
    }

    @Test func cancelDiscardsWhatIsQueued() throws {
        let gate = DispatchSemaphore(value: 0)
        let consumed = Locked(0), discarded = Locked(0)
        let pipe = try #require(EncodePipeline<Int>(capacity: 8, consume: { _ in
            gate.wait()
            consumed.withLock { $0 += 1 }
        }, discard: { _ in discarded.withLock { $0 += 1 } }))
        for i in 0..<6 { try pipe.push(i) }
        gate.signal()  // the first item goes through; the rest are still queued
        Thread.sleep(forTimeInterval: 0.05)
        for _ in 0..<6 { gate.signal() }  // never block the one being consumed when cancel comes
        pipe.cancel()
        #expect(consumed.withLock { $0 } + discarded.withLock { $0 } == 6)
        #expect(consumed.withLock { $0 } >= 1)
    }

    /// Two in a row, as a pass chains them (decode → scale → encode): a failure in the last reaches the
    /// producer through the first, closing and cancelling return, and every item is seen exactly once.
    @Test func chainedAFailureAtTheEndReachesTheStartAndNothingLeaks() throws {
        let encoded = Locked<[Int]>([]), discarded = Locked(0)
        let encoding = try #require(EncodePipeline<Int>(capacity: 8, consume: { i in
            if i == 40 { throw Boom() }
            encoded.withLock { $0.append(i) }
        }, discard: { _ in discarded.withLock { $0 += 1 } }))
        let scaling = try #require(EncodePipeline<Int>(capacity: 2, consume: { i in
            try encoding.push(i)
        }, discard: { _ in discarded.withLock { $0 += 1 } }))
        var pushed = 0
        do {
            for i in 0..<10_000 { try scaling.push(i); pushed += 1 }
            Issue.record("the failure never reached the first push")
        } catch is Boom {}
        #expect(throws: Boom.self) { try scaling.close() }
        encoding.cancel()
        #expect(encoded.withLock { $0 } == Array(0..<40))
        // The item that failed is neither encoded nor discarded; every other one is one or the other.
        #expect(encoded.withLock { $0.count } + discarded.withLock { $0 } + 1 == pushed + 1)
    }

    @Test func chainedEveryItemArrivesInOrder() throws {
        let encoded = Locked<[Int]>([])
        let encoding = try #require(EncodePipeline<Int>(capacity: 8, consume: { i in encoded.withLock { $0.append(i) } },
                                                        discard: { _ in Issue.record("nothing is discarded when all goes well") }))
        let scaling = try #require(EncodePipeline<Int>(capacity: 2, consume: { i in try encoding.push(i * 2) },
                                                       discard: { _ in Issue.record("nothing is discarded when all goes well") }))
        for i in 0..<2_000 { try scaling.push(i) }
        try scaling.close()
        try encoding.close()
        #expect(encoded.withLock { $0 } == (0..<2_000).map { $0 * 2 })
    }

    /// What `consume` holds goes as soon as `close` or `cancel` returns, not when the thread gets to
    /// it: a first pass's x264 encoder writes its statistics file when it closes, and the second pass
    /// opened it too early under load ("cannot open the H.264 encoder").
    @Test(arguments: [false, true]) func afterCloseOrCancelTheConsumerIsReleased(cancel: Bool) throws {
        final class Held {}
        weak var weakHeld: Held?
        let pipe: EncodePipeline<Int>
        do {
            let held = Held()
            weakHeld = held
            pipe = try #require(EncodePipeline<Int>(capacity: 2, consume: { _ in withExtendedLifetime(held) {} }, discard: { _ in }))
        }
        for i in 0..<10 { try pipe.push(i) }
        if cancel { pipe.cancel() } else { try pipe.close() }
        #expect(weakHeld == nil)
    }
}

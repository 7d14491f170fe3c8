import Foundation
import Testing
@testable import MediaPrep

/// A generous budget is encoded at constant quality under a rate cap; a pass that rides the cap is
/// stopped a quarter in and the clip encoded in two passes, not encoded whole and then again.
@Suite struct CapWatchTests {
    /// 25 packets a second of `bytes` each, under a cap of 800 kbit/s (100,000 bytes a second).
    func feed(_ watch: inout CapWatch, bytes: Int, seconds: Double) throws {
        for i in 1...Int(seconds * 25) { try watch.add(bytes, endingAt: Double(i) / 25) }
    }

    @Test func aPassSpendingItsCapIsStoppedAtAQuarter() throws {
        var riding = try #require(CapWatch(bitsPerSecond: 800_000, seconds: 8))
        #expect(riding.decideAt == 2)
        #expect(throws: CapWatch.Ridden.self) { try feed(&riding, bytes: 3_700, seconds: 8) }  // 92.5 % of the cap
        var below = try #require(CapWatch(bitsPerSecond: 800_000, seconds: 8))
        try feed(&below, bytes: 3_000, seconds: 2)  // 75 %: judged, and not judged again
        try below.add(10_000_000, endingAt: 2.1)
        #expect(CapWatch(bitsPerSecond: 800_000, seconds: 1.2) == nil, "over before it could be judged")
    }

    @Test func theBudgetsCapHasABufferForTheClipsLength() throws {
        let short = VideoSource(width: 1920, height: 1080, seconds: 5, frameRate: 25, audioChannels: 2, audioSampleRate: 48_000)
        let (plan, fallback) = try VideoBudget.plan(short, maxBytes: 50_000_000)
        // A 2 s buffer would let a 5 s clip run 36 % over its cap.
        #expect(plan.bufferSeconds == 0.5 && plan.maxRate == fallback?.videoBitRate)
    }

    func transcode(_ name: String, budget: Int, progress: (@Sendable (Double) -> Void)? = nil) throws -> (size: Int, log: [PassLog.Entry]) {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (plan, fallback) = try VideoBudget.plan(VideoSource(probe: MediaProbe.probe(path: Fixture.path(name))), maxBytes: budget)
        #expect(plan.videoBitRate == nil && fallback?.videoBitRate != nil, "a generous budget")
        var t = VideoTranscoder(plan: plan)
        let log = PassLog()
        t.log = log
        t.progress = progress
        let size = try t.transcode(source: Fixture.path(name), to: dir + "/out.mp4", maxBytes: budget, fallback: fallback)
        #expect(try FileBytes.size(dir + "/out.mp4") == size)
        return (size, log.entries)
    }

    @Test func noisyClipRidingItsCapIsEncodedInTwoPassesOnce() throws {
        // noisy.webm at constant quality needs ~900 kbit/s; here the cap is 495 kbit/s (101–106 % spent).
        let seen = Progress()
        let (size, log) = try transcode("noisy.webm", budget: 150_000) { seen.add($0) }
        #expect(size <= 150_000)
        // One bar from 0 to 1: the two passes take over where the stopped pass left it.
        let values = seen.values
        #expect(values.count >= 3 && values.last == 1 && zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "\(values)")
        #expect(log.first == PassLog.Entry(pass: 0, rate: 0, finished: false), "\(log)")
        #expect(log.dropFirst().map(\.pass).filter { $0 == 1 } == [1] && log.dropFirst().allSatisfy { $0.finished && $0.pass != 0 })
    }

    @Test func clipWellUnderItsCapIsEncodedOnce() throws {
        let (size, log) = try transcode("vp9.webm", budget: 400_000)  // 18 % of the cap spent by 1 s
        #expect(size <= 400_000 && log == [PassLog.Entry(pass: 0, rate: 0, finished: true)])
    }
}

/// Progress values from the encoder's thread.
private final class Progress: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Double] = []
    func add(_ v: Double) { lock.lock(); list.append(v); lock.unlock() }
    var values: [Double] { lock.lock(); defer { lock.unlock() }; return list }
}

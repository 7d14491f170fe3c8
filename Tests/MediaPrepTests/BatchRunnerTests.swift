import Foundation
import Testing
import UploadPlanner
@testable import MediaPrep

@Suite struct BatchRunnerTests {
    @Test func resultsComeBackInInputOrderWhateverFinishesFirst() async {
        // Early inputs are the slowest, so every later one finishes before them.
        let delays = [60, 40, 1, 1, 30, 1, 1, 1, 20, 1].map { UInt32($0 * 1000) }
        let paths = delays.indices.map { "input-\($0)" }
        let order = Order()
        let summary = await BatchRunner(jobs: 4).run(.list(paths), work: { i, p in
            usleep(delays[i])
            return p.uppercased()
        }) { i, p, r in order.add(i, p, r) }
        #expect(summary.emitted == 10 && !summary.cancelled)
        #expect(order.indices == Array(0..<10))
        #expect(order.results == paths.map { $0.uppercased() })
    }

    @Test func neverRunsMoreThanJobsAtOnce() async {
        let gauge = Gauge()
        _ = await BatchRunner(jobs: 3).run(.list((0..<24).map(String.init)), work: { _, _ in
            gauge.enter()
            // Wait (up to 1 s) for company, so overlap does not depend on the machine's load.
            var waited = 0
            while gauge.current < 2 && waited < 500 { usleep(2000); waited += 1 }
            gauge.leave()
        }) { _, _, _ in }
        #expect(gauge.peak <= 3)
        #expect(gauge.peak >= 2)
    }

    @Test func streamedInputsAreWorkedOnAsTheyArrive() async throws {
        let (stream, feed) = AsyncStream<String>.makeStream()
        let order = Order()
        let task = Task {
            await BatchRunner(jobs: 2).run(.stream(stream), work: { _, p in p }) { i, p, r in order.add(i, p, r) }
        }
        feed.yield("a")
        feed.yield("b")
        // Results appear before the stream ends: a warm worker process answers each path.
        var waited = 0
        while order.indices.count < 2 && waited < 1000 { try await Task.sleep(nanoseconds: 10_000_000); waited += 1 }
        #expect(order.indices == [0, 1])
        feed.yield("c")
        feed.finish()
        let s = await task.value
        #expect(s.emitted == 3)
        #expect(order.results == ["a", "b", "c"])
    }

    @Test func cancellingStopsStartingWork() async {
        let flag = CancellationFlag()
        let started = Gauge()
        let s = await BatchRunner(jobs: 1).run(.list((0..<50).map(String.init)), cancellation: flag, work: { i, _ in
            started.enter()
            if i == 2 { flag.cancel() }
            started.leave()
            return i
        }) { _, _, _ in }
        #expect(s.cancelled)
        #expect(started.total < 50)
    }

    @Test func threadsPerJobDoesNotOversubscribe() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(BatchRunner.threadsPerJob(jobs: 1, inputs: 10) == cores)
        #expect(BatchRunner.threadsPerJob(jobs: cores, inputs: 100) == 1)
        #expect(BatchRunner.threadsPerJob(jobs: 4 * cores, inputs: 100) == 1)
        // One input: its job may use every core whatever --jobs says.
        #expect(BatchRunner.threadsPerJob(jobs: cores, inputs: 1) == cores)
    }
}

@Suite struct PixelBudgetTests {
    @Test func concurrentChargesStayWithinCapacity() {
        let budget = PixelBudget(capacity: 100)
        let gauge = Gauge()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let want = [30, 60, 45, 10][i % 4]
            guard let c = budget.acquire(want) else { return }
            gauge.add(budget.inUse)
            usleep(1000)
            budget.release(c)
        }
        #expect(gauge.peak <= 100)
        #expect(budget.inUse == 0)
    }

    @Test func anImageLargerThanTheBudgetRunsAlone() {
        let budget = PixelBudget(capacity: 100)
        #expect(budget.acquire(500) == 100)
        let flag = CancellationFlag()
        flag.cancel()
        // Nothing else fits while it runs; a cancelled wait gives up instead of blocking.
        #expect(budget.acquire(1, cancellation: flag) == nil)
        budget.release(100)
        #expect(budget.acquire(1) == 1)
    }

    @Test func decodedPixelsCountJPEGShrinkOnLoad() throws {
        let photo = try MediaProbe.source(path: Fixture.path("photo.jpg"))
        // 1440×1080 fits the 1600 view: no shrink.
        #expect(photo.decodedPixels(profile: .simplex) == 1440 * 1080)
        var small = ImageProfile.simplex
        small.displaySide = 400
        // 1/2 keeps 720×540 ≥ the 400×300 view; 1/4 would not.
        #expect(photo.decodedPixels(profile: small) == 720 * 540)
        let voice = try MediaProbe.source(path: Fixture.path("voice.m4a"))
        #expect(voice.decodedPixels(profile: .simplex) == 0)
        // An HDR still holds 16-bit samples twice before it is halved: charged three times its pixels.
        for name in ["hdr-pq.avif", "hdr-pq.jxl"] {
            #expect(try MediaProbe.source(path: Fixture.path(name)).decodedPixels(profile: .simplex) == 3 * 64 * 32)
        }
    }
}

@Suite struct InputWalkerTests {
    @Test func foldersAreWalkedSortedWithoutHiddenFilesAndSurviveLinkLoops() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/b/nested", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/.hidden", withIntermediateDirectories: true)
        for f in ["z.jpg", "a.jpg", "b/nested/c.png", "b/m.gif", ".secret.jpg", ".hidden/x.jpg"] {
            _ = fm.createFile(atPath: dir + "/" + f, contents: Data([1]))
        }
        try fm.createSymbolicLink(atPath: dir + "/b/nested/loop", withDestinationPath: dir + "/b")
        let got = InputWalker.expand([dir, Fixture.path("small.jpg")]).map { $0.replacingOccurrences(of: dir, with: "") }
        #expect(got == ["/a.jpg", "/b/m.gif", "/b/nested/c.png", "/z.jpg", Fixture.path("small.jpg")])
    }

    /// `album/notes -> /etc/passwd` is not sent because it sits in the album: a link met while walking
    /// is followed only inside the folder given, unless asked; one named on the command line is followed.
    @Test func linksOutOfTheFolderAreSkippedAndNamed() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/album/2026", withIntermediateDirectories: true)
        _ = fm.createFile(atPath: dir + "/album/a.jpg", contents: Data([1]))
        _ = fm.createFile(atPath: dir + "/outside.jpg", contents: Data([1]))
        try fm.createSymbolicLink(atPath: dir + "/album/notes", withDestinationPath: "/etc/passwd")
        try fm.createSymbolicLink(atPath: dir + "/album/out.jpg", withDestinationPath: dir + "/outside.jpg")
        try fm.createSymbolicLink(atPath: dir + "/album/2026/same.jpg", withDestinationPath: "../a.jpg")
        try fm.createSymbolicLink(atPath: dir + "/album/gone.jpg", withDestinationPath: dir + "/nothing.jpg")
        try fm.createSymbolicLink(atPath: dir + "/album/2026/up", withDestinationPath: dir + "/album")
        var skipped: [InputWalker.Skipped] = []
        let got = InputWalker.expand([dir + "/album"]) { skipped.append($0) }.map { $0.replacingOccurrences(of: dir, with: "") }
        #expect(got == ["/album/2026/same.jpg", "/album/a.jpg"])
        #expect(skipped.map { $0.path.replacingOccurrences(of: dir, with: "") }.sorted() == ["/album/gone.jpg", "/album/notes", "/album/out.jpg"])
        #expect(skipped.first { $0.path.hasSuffix("/notes") }?.reason.hasPrefix("a symbolic link to /etc/passwd, outside ") == true)
        let followed = InputWalker.expand([dir + "/album"], followSymlinks: true).map { $0.replacingOccurrences(of: dir, with: "") }
        #expect(followed == ["/album/2026/same.jpg", "/album/a.jpg", "/album/notes", "/album/out.jpg"])
        // Named by the user: followed.
        #expect(InputWalker.expand([dir + "/album/notes"]) == [dir + "/album/notes"])
    }

    /// A name that is not UTF-8 is found, opened and reported as the same bytes.
    @Test func namesAreBytes() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let name = FileNameBytes.string(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let path = dir + "/" + name
        let written = try Fixture.bytes("small.jpg")
        let fd = FileNameBytes.withCString(path) { open($0, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        #expect(fd >= 0)
        _ = written.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(InputWalker.expand([dir]) == [path])
        #expect(FileNameBytes.bytes(path).suffix(8) == Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.error == nil && item.route == .untouched)
        #expect(FileNameBytes.display(name) == "caf\\xE9.jpg")
        #expect(JSONValue.string(name).serialized == "\"caf\\udce9.jpg\"")
        #expect(FileNameBytes.portable(name) == "caf_.jpg")
    }

    @Test func missingPathsAreKeptToBeReported() {
        #expect(InputWalker.expand(["/no/such/file.jpg"]) == ["/no/such/file.jpg"])
    }
}

/// Thread-safe test helpers.
final class Order: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var indices: [Int] = []
    private(set) var results: [String] = []
    func add(_ i: Int, _ p: String, _ r: String) { lock.lock(); indices.append(i); results.append(r); lock.unlock() }
}

final class Gauge: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0
    private(set) var peak = 0
    private(set) var total = 0
    var current: Int { lock.lock(); defer { lock.unlock() }; return now }
    func enter() { lock.lock(); now += 1; total += 1; peak = max(peak, now); lock.unlock() }
    func leave() { lock.lock(); now -= 1; lock.unlock() }
    func add(_ v: Int) { lock.lock(); peak = max(peak, v); lock.unlock() }
}

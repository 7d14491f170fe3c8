import Foundation
import Testing
@testable import MediaPrep

/// A two-pass encode's first pass keeps its scaled frames (`FrameCache`) and the passes after it read
/// them back instead of decoding and scaling the source again.
@Suite struct FrameCacheTests {
    @Test func framesComeBackAsTheyWentIn() throws {
        let (w, h) = (34, 18)  // odd chroma sides: 17×9
        let cache = try #require(try FrameCache(width: w, height: h, frames: 3))
        var (y, u, v) = ([UInt8](repeating: 0, count: 40 * h), [UInt8](repeating: 0, count: 24 * 9), [UInt8](repeating: 0, count: 24 * 9))
        let strides: [Int32] = [40, 24, 24]
        for frame in 0..<3 {
            for i in y.indices { y[i] = UInt8(truncatingIfNeeded: i * (frame + 1)) }
            for i in u.indices { u[i] = UInt8(truncatingIfNeeded: i * (frame + 1) + 1) }
            for i in v.indices { v[i] = UInt8(truncatingIfNeeded: i * (frame + 1) + 2) }
            y.withUnsafeMutableBufferPointer { yp in
                u.withUnsafeMutableBufferPointer { up in
                    v.withUnsafeMutableBufferPointer { vp in
                        cache.append(.init(pts: Int64(frame * 512), duration: 512, seconds: Double(frame) / 30, primaries: 1, transfer: 1, colorspace: 1),
                                     planes: [yp.baseAddress, up.baseAddress, vp.baseAddress], strides: strides)
                    }
                }
            }
        }
        #expect(cache.frames == 3 && cache.usable)
        cache.rewind()
        var (by, bu, bv) = ([UInt8](repeating: 0, count: w * h), [UInt8](repeating: 0, count: 17 * 9), [UInt8](repeating: 0, count: 17 * 9))
        for frame in 0..<3 {
            #expect(cache.peekSeconds() == Double(frame) / 30)
            let r = try by.withUnsafeMutableBufferPointer { yp in
                try bu.withUnsafeMutableBufferPointer { up in
                    try bv.withUnsafeMutableBufferPointer { vp in
                        try cache.next(into: [yp.baseAddress, up.baseAddress, vp.baseAddress], strides: [Int32(w), 17, 17])
                    }
                }
            }
            #expect(r?.pts == Int64(frame * 512) && r?.duration == 512)
            for row in 0..<h {
                let expected = (0..<w).map { UInt8(truncatingIfNeeded: (row * 40 + $0) * (frame + 1)) }
                #expect(Array(by[(row * w)..<(row * w + w)]) == expected, "frame \(frame) row \(row)")
            }
            for row in 0..<9 {
                let expected = (0..<17).map { UInt8(truncatingIfNeeded: (row * 24 + $0) * (frame + 1) + 2) }
                #expect(Array(bv[(row * 17)..<(row * 17 + 17)]) == expected, "frame \(frame) V row \(row)")
            }
        }
        #expect(cache.peekSeconds() == nil)
        // More than it may hold: no cache, the passes decode as before.
        #expect(try FrameCache(width: 3840, height: 2160, frames: 100_000) == nil)
        #expect(try FrameCache(width: w, height: h, frames: 3, maxBytes: 1_000) == nil)
    }

    /// Caches side by side share one room: a second that would pass it is not made (its passes
    /// decode again), and what a cache held is given back when it ends. A clip with more frames than
    /// its cache expected grows it while the room allows; past it, the cache stops and gives its room back.
    @Test func cachesSideBySideShareOneRoom() throws {
        let frameBytes = 64 * 48 + 2 * 32 * 24 + 36
        let budget = FrameCacheBudget(limit: 10 * frameBytes)
        var first = try FrameCache(width: 64, height: 48, frames: 6, budget: budget)
        #expect(first != nil)
        #expect(budget.reserved == 6 * frameBytes)
        #expect(try FrameCache(width: 64, height: 48, frames: 6, budget: budget) == nil)
        let second = try #require(try FrameCache(width: 64, height: 48, frames: 3, budget: budget))
        #expect(budget.reserved == 9 * frameBytes)
        #expect(try FrameCache(width: 64, height: 48, frames: 6, budget: budget) == nil)
        #expect(budget.reserved == 9 * frameBytes, "a cache not made holds nothing")
        let planes = [UInt8](repeating: 7, count: 64 * 48 + 2 * 32 * 24)
        func append(_ count: Int) throws {
            try planes.withUnsafeBufferPointer { p in
                let base = try #require(p.baseAddress)
                let y = UnsafeMutablePointer(mutating: base), u = y + 64 * 48, v = u + 32 * 24
                for i in 0..<count {
                    second.append(.init(pts: Int64(i), duration: 1, seconds: Double(i), primaries: 1, transfer: 1, colorspace: 1),
                                  planes: [y, u, v], strides: [64, 32, 32])
                }
            }
        }
        try append(4)  // one more than expected: the room has it
        #expect(second.usable && second.frames == 4 && budget.reserved == 10 * frameBytes)
        try append(1)  // the room is full
        #expect(!second.usable && budget.reserved == 6 * frameBytes, "a stopped cache gives its room back")
        first = nil
        #expect(budget.reserved == 0)
    }

    /// 2 GiB anywhere; up to 8 GiB where the kernel lets that much be written without waiting for
    /// the disk; never over a quarter of the disk's free space.
    @Test func theCacheIsSizedForTheMachine() {
        let gib = 1 << 30
        #expect(FrameCacheBudget.limit(availableMemory: 23 * gib, freeDisk: 64 * gib) == Int(Double(23 * gib) * 0.2))
        #expect(FrameCacheBudget.limit(availableMemory: 60 * gib, freeDisk: 64 * gib) == 8 * gib)
        #expect(FrameCacheBudget.limit(availableMemory: 4 * gib, freeDisk: 64 * gib) == 2 * gib)
        #expect(FrameCacheBudget.limit(availableMemory: 30 * gib, freeDisk: 64 * gib, dirtyShare: 0) == 2 * gib, "vm.dirty_bytes set instead")
        #expect(FrameCacheBudget.limit(availableMemory: nil, freeDisk: nil) == 2 * gib)
        #expect(FrameCacheBudget.limit(availableMemory: 60 * gib, freeDisk: 4 * gib) == gib)
    }

    /// A budgeted clip goes through both passes with the cache and lands within its budget, every
    /// frame there (noisy.webm: VP9, 2 s).
    @Test func aTwoPassEncodeWithTheCacheKeepsEveryFrameAndItsBudget() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        p.media.videoMaxBytes = 60_000
        let item = p.prepare(path: Fixture.path("noisy.webm"))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(try FileBytes.size(out) <= 60_000)
        let frames = try Packets.all(out).filter { $0.stream == 0 }.count
        let source = try Packets.all(Fixture.path("noisy.webm")).filter { $0.stream == 0 }.count
        #expect(frames == source, "\(frames) of \(source)")
    }
}

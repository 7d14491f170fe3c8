import Testing
@testable import MediaPrep

/// An animation read by a budget's many tries is decoded once.
struct CachedAnimationTests {
    /// Frames of distinct pixels and durations, counting how often it is decoded.
    final class Counting: AnimationSource {
        let width = 24, height = 16, plays = 0, frames: Int
        private(set) var decodes = 0
        init(frames: Int) { self.frames = frames }
        func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
            decodes += 1
            for i in 0..<frames {
                let bytes = (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i &* 31) }
                try body(try PixelBuffer(width: width, height: height, layout: .rgba, bytes: bytes), 40 + i)
            }
        }
    }

    static func read(_ a: AnimationSource) throws -> [(PixelBuffer, Int)] {
        var out: [(PixelBuffer, Int)] = []
        try a.forEachFrame { out.append(($0, $1)) }
        return out
    }

    /// The first whole pass decodes and keeps; the passes after read the same canvases and durations
    /// back; the room goes back with the animation.
    @Test func passesAfterTheFirstReadTheKeptFrames() throws {
        let source = Counting(frames: 5)
        let budget = FrameCacheBudget(limit: 1 << 30)
        var cached: CachedAnimation? = CachedAnimation(source, budget: budget)
        let first = try Self.read(try #require(cached))
        for _ in 0..<3 {
            let again = try Self.read(try #require(cached))
            #expect(again.map(\.0) == first.map(\.0) && again.map(\.1) == first.map(\.1))
        }
        #expect(source.decodes == 1)
        #expect(first.map(\.1) == [40, 41, 42, 43, 44])
        #expect(budget.reserved > 0)
        cached = nil
        #expect(budget.reserved == 0)
    }

    /// A pass stopped early (the first frame, for a preview) keeps nothing: the next whole pass decodes.
    @Test func aPassStoppedEarlyKeepsNothing() throws {
        let source = Counting(frames: 4)
        let cached = CachedAnimation(source, budget: FrameCacheBudget(limit: 1 << 30))
        #expect(try cached.firstFrame().width == 24)
        _ = try Self.read(cached)
        _ = try Self.read(cached)
        #expect(source.decodes == 3)
    }

    /// Past the room, nothing is kept and every pass decodes, with the same frames.
    @Test func pastTheRoomEveryPassDecodes() throws {
        let source = Counting(frames: 6)
        let budget = FrameCacheBudget(limit: 24 * 16 * 4)
        let cached = CachedAnimation(source, budget: budget)
        let first = try Self.read(cached)
        let again = try Self.read(cached)
        #expect(source.decodes == 2 && again.map(\.0) == first.map(\.0))
        #expect(budget.reserved == 0)
    }
}

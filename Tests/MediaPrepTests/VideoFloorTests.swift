import Testing
@testable import MediaPrep

/// The floor `bench --video` prints: every frame the transcode keeps is decoded and scaled once,
/// none lost between the decoding thread and the scaling one.
@Suite struct VideoFloorTests {
    @Test func everyKeptFrameIsScaledOnce() throws {
        // testdata/h264.mp4: 3 s at 25 fps, 75 frames.
        #expect(try VideoFloor.run(source: Fixture.path("h264.mp4"), width: 160, height: 120, maxFrameRate: 30) == 75)
        // Capped at 10 fps: a frame kept when 0.075 s or more after the last kept, every second one.
        #expect(try VideoFloor.run(source: Fixture.path("h264.mp4"), width: 160, height: 120, maxFrameRate: 10) == 38)
    }

    @Test func aDamagedVideoFailsAndReturns() throws {
        #expect(throws: MediaPrepError.self) {
            _ = try VideoFloor.run(source: Fixture.path("truncated.mp4"), width: 160, height: 120, maxFrameRate: 30)
        }
    }

    /// Decoded frames waiting for the scaling thread stay within 64 MB; an 8K frame is scaled where
    /// it was decoded, as before the scaling thread, so its peak does not grow.
    @Test func decodedFramesInHandStayWithin64MB() {
        #expect(VideoLane.framesInHand(width: 1920, height: 1080) == 8)
        #expect(VideoLane.framesInHand(width: 3840, height: 2160) == 2)
        #expect(VideoLane.framesInHand(width: 7680, height: 4320) == 0)
        #expect(VideoLane.framesInHand(width: 0, height: 0) == 8)
    }
}

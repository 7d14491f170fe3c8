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
}

import Testing
@testable import MediaPrep

/// A batch's pixel budget charges each input what carrying out its plan holds.
struct TranscodeMemoryTests {
    /// The 4K HEVC fixture fitted to a budget is transcoded at 1080p: about 620 MB of frames and
    /// encoder (a measured peak), so 78 MP of the budget's pixels, where its thumbnail frame was 0.9 MP.
    /// Two such clips still run side by side within the default 192 MP; a third waits.
    @Test func aTranscodeIsChargedForItsFramesAndEncoder() throws {
        let source = try MediaProbe.source(path: Fixture.path("hevc-4k.mp4"), depth: .preparing)
        var rules = SendRules()
        rules.media.videoMaxBytes = 60_000
        let plan = SendPlanner.plan(source, rules)
        guard case .transcodeVideo(let t) = plan.action else {
            Issue.record("expected a transcode, planned \(plan.action)")
            return
        }
        #expect(t.plan.maxLongSide == 1920)
        let charged = AttachmentPreparer.heldPixels(source, plan, profile: .simplex)
        #expect(charged == t.plan.heldBytes(sourceWidth: 3840, sourceHeight: 2160) / PixelBudget.bytesPerPixel)
        #expect((75_000_000...82_000_000).contains(charged), "\(charged)")
        #expect(2 * charged <= PixelBudget().capacity && 3 * charged > PixelBudget().capacity)
    }

    /// Output pixels cost the most (x264's lookahead and references): the same source at 640 px
    /// holds a fifth of what it holds at 1920.
    @Test func theOutputSizeDecidesMostOfIt() {
        var plan = VideoEncodePlan.compatible(VideoSource(width: 1920, height: 1080, seconds: 60, frameRate: 30, audioChannels: 2, audioSampleRate: 48_000))
        let full = plan.heldBytes(sourceWidth: 1920, sourceHeight: 1080)
        plan.maxLongSide = 640
        let small = plan.heldBytes(sourceWidth: 1920, sourceHeight: 1080)
        #expect((500_000_000...560_000_000).contains(full), "1080p → 1080p measured 520 MB: \(full)")
        #expect((95_000_000...125_000_000).contains(small), "1080p → 360p measured 108 MB: \(small)")
        #expect(plan.heldBytes(sourceWidth: 1 << 40, sourceHeight: 1 << 40) == Int.max / 2, "a header's absurd size saturates")
    }

    /// A video sent as it is holds one thumbnail frame; an image, its decoded pixels.
    @Test func whatIsNotTranscodedIsChargedAsBefore() throws {
        let video = try MediaProbe.source(path: Fixture.path("h264.mp4"), depth: .preparing)
        let plan = SendPlanner.plan(video, SendRules())
        #expect(AttachmentPreparer.heldPixels(video, plan, profile: .simplex) == 320 * 240)
        let photo = try MediaProbe.source(path: Fixture.path("photo.jpg"), depth: .preparing)
        #expect(AttachmentPreparer.heldPixels(photo, SendPlanner.plan(photo, SendRules()), profile: .simplex)
                == photo.decodedPixels(profile: .simplex))
    }
}

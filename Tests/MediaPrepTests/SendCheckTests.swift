import Foundation
import Testing
@testable import MediaPrep

@Suite struct SendCheckTests {
    func check(_ name: String, _ profile: ImageProfile = .simplex) -> SendCheck.Result {
        SendCheck(profile: profile).check(path: Fixture.path(name))
    }

    @Test func verdictsFromHeaders() {
        #expect(check("small.jpg").verdict == .asIs)
        let photo = check("photo.jpg")
        #expect(photo.verdict == .afterPreparation)
        #expect(photo.reasons.contains("re-encoded to fit 261,120 bytes"))
        #expect(photo.reasons.contains("GPS location removed"))
        #expect(check("orient-6.jpg").reasons.contains("EXIF rotation applied"))
        #expect(check("cmyk.jpg").reasons.contains("CMYK converted to RGB"))
        #expect(check("rgb.png").verdict == .asIs)  // a PNG within the budget goes with its own data
        #expect(check("sticker.png").verdict == .afterPreparation)
        // ffmpeg's own "Lavf…" encoder tag is all these carry: taken out, streams untouched.
        #expect(check("h264.mp4").verdict == .afterPreparation && check("h264.mp4").reasons.last == "other tags removed (streams untouched)")
        #expect(check("voice.m4a").verdict == .afterPreparation && check("voice.m4a").code == "metadataStripped")
        #expect(check("voice.ogg").verdict == .afterPreparation && check("voice.ogg").reasons[0].hasPrefix("opus transcoded to AAC"))
        #expect(check("h264.mkv").reasons == ["h264 remuxed from matroska into MP4 (packets untouched)"])
        #expect(check("anim.gif").verdict == .asIs)
        #expect(check("vp9.webm").reasons == ["vp9/opus transcoded to H.264 + AAC in MP4, which every client plays", "at no more than the source's own bit rate"])
        #expect(check("anim.gif", .bluesky).reasons == ["animated GIF turned into an H.264 MP4 (bluesky does not animate GIFs)"])
        var budgeted = SendCheck()
        budgeted.media.videoMaxBytes = 60_000
        #expect(budgeted.check(path: Fixture.path("noisy.webm")).reasons == ["vp9 re-encoded as H.264 + AAC to fit 60,000 bytes"])
        budgeted.media.videoMaxBytes = 12_000
        #expect(budgeted.check(path: Fixture.path("noisy.webm")).verdict == .cannotSend)
        budgeted.media.video = .original
        #expect(budgeted.check(path: Fixture.path("h264.mp4")).verdict == .cannotSend)
        let long = check("voice-long.ogg")
        #expect(long.kind == .file && long.verdict == .afterPreparation)
        #expect(long.reasons == ["audio over 300 s (305.0 s): sent as a file, as the app's file picker does", "other tags removed (streams untouched)"])
        var voiceOnly = SendCheck()
        voiceOnly.media.audio = .voice
        #expect(voiceOnly.check(path: Fixture.path("voice-long.ogg")).reasons == ["voice over 300 s (305.0 s): cannot be sent"])
        var asFile = SendCheck()
        asFile.media.audio = .file
        #expect(asFile.check(path: Fixture.path("voice.ogg")).kind == .file)
        let cut = check("truncated.mp4")
        #expect(cut.verdict == .cannotSend && cut.error != nil)
    }

    @Test func cutOffImagesCannotBeSent() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let jpeg = try Fixture.bytes("small.jpg")
        _ = FileManager.default.createFile(atPath: dir + "/cut.jpg", contents: Data(jpeg.prefix(jpeg.count * 2 / 3)))
        let png = try Fixture.bytes("sticker.png")
        _ = FileManager.default.createFile(atPath: dir + "/cut.png", contents: Data(png.prefix(png.count / 2)))
        let j = SendCheck().check(path: dir + "/cut.jpg")
        #expect(j.verdict == .cannotSend && j.error?.code == .truncated)
        #expect(SendCheck().check(path: dir + "/cut.png").error?.code == .truncated)
        #expect(SendCheck().check(path: dir + "/none.jpg").error?.code == .unreadableFile)
    }

    @Test func blueskyProfileUsesItsOwnLimits() {
        // 437,890 bytes is within Bluesky's 1,000,000, but the file carries Exif/GPS to strip.
        let photo = check("photo.jpg", .bluesky)
        #expect(photo.verdict == .afterPreparation)
        #expect(!photo.reasons.contains { $0.contains("re-encoded to fit") })
        #expect(check("small.jpg", .bluesky).verdict == .asIs)
    }

    @Test func checkIsFarCheaperThanPreparing() {
        // Not a timing: check must not decode. A JPEG over the pixel limit is refused from its header.
        var c = SendCheck()
        c.maxPixels = 1000
        #expect(c.check(path: Fixture.path("photo.jpg")).error?.code == .tooManyPixels)
    }
}

@Suite struct PictureMetadataTests {
    @Test func findsGPSAndOtherBlocks() throws {
        let m = PictureMetadata(jpeg: try Fixture.bytes("photo.jpg"))
        #expect(m.exif && m.gps && m.comment)
        #expect(PictureMetadata(jpeg: try Fixture.bytes("small.jpg")).isEmpty)
        let o = PictureMetadata(jpeg: try Fixture.bytes("orient-6.jpg"))
        #expect(o.exif && !o.gps)
    }
}

import Foundation
import Testing
import UploadPlanner
@testable import MediaPrep

/// What a new user meets first: transparency that says where it went, and limits `check` shares.
@Suite struct TransparencyTests {
    @Test func aTransparentStickerMadeJPEGSaysSoAndTakesTheBackgroundAsked() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.profile.background = 0x000000
        let item = preparer.prepare(path: Fixture.path("sticker.png"))  // too large for PNG: a JPEG
        #expect(item.format == .jpeg && item.flattenedOnto == 0x000000)
        let out = try JPEGDecoder.decode(try FileBytes.read(try #require(item.output))).pixels
        let corner = out.rgba(x: 2, y: 2)  // outside the circle: was transparent
        #expect(corner.r < 16 && corner.g < 16 && corner.b < 16, "\(corner)")
        let json = BatchItem(index: 0, item: item).json.serialized
        #expect(json.contains("\"flattenedOnto\":\"#000000\""))
        #expect(BatchItem(index: 0, item: item).summary.contains("transparency flattened onto #000000 (black)"))
        // White by default, and said by check before anything is done.
        let white = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("sticker.png"))
        #expect(white.flattenedOnto == 0xFFFFFF)
        var check = SendCheck()
        check.profile.background = 0x000000
        #expect(check.check(path: Fixture.path("sticker.png")).reasons.first == "re-encoded: PNG if the transparency fits, else JPEG on #000000 (black)")
        // A transparent PNG that fits stays PNG, transparency and all.
        #expect(AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("rgba.png")).flattenedOnto == nil)
    }

    @Test func coloursParse() {
        #expect(Background.parse("black") == 0 && Background.parse("#FF8000") == 0xFF8000 && Background.parse("#f80") == 0xFF8800)
        #expect(Background.parse("#12345") == nil && Background.parse("chartreuse") == nil)
    }
}

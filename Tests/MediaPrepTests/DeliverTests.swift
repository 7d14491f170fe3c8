import Foundation
import Testing
@testable import MediaPrep

/// Every route ends in one delivery: a file is named only once all that is sent with it is known and
/// it can travel, and an input that fails leaves no file behind, named or not.
@Suite struct DeliverTests {
    private func made(_ dir: String, _ bytes: [UInt8], claimed: Int? = nil, suffix: String) throws -> Produced {
        let staged = try OutputWriter.stage(bytes, directory: dir, base: "IMG_20261129_071200" + suffix, ext: "jpg")
        return Produced(staged: staged, bytes: claimed ?? bytes.count, format: .jpeg, route: .encoded,
                        shown: .picture(width: 2, height: 1, preview: "data:image/jpg;base64,AA=="), autoReceive: true)
    }

    private func preparer(_ dir: String, staging: Bool) -> AttachmentPreparer {
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        (p.stagesOutputs, p.xftp) = (staging, false)  // without XFTP a file over 8,000,000 bytes cannot go
        return p
    }

    @Test func partsAreNamedInOrderWithEverythingTheMessageSays() throws {
        let dir = try Fixture.scratch()
        var item = PreparedItem(input: "long.png", kind: .image)
        item.reasons = ["split"]
        var first = try made(dir, [1, 2, 3], suffix: "_part1")
        first.notes = ["JPEG quality 80"]
        try preparer(dir, staging: false).deliver([first, try made(dir, [4, 5], suffix: "_part2")], &item)
        #expect(item.output?.hasSuffix("/IMG_20261129_071200_part1.jpg") == true)
        #expect(item.parts.map { $0.output?.split(separator: "/").last } == ["IMG_20261129_071200_part2.jpg"])
        #expect(item.part?.index == 1 && item.part?.of == 2 && item.parts.first?.part?.index == 2)
        #expect((item.bytes, item.width, item.height, item.route, item.autoReceive) == (3, 2, 1, .encoded, true))
        #expect(item.reasons == ["split", "JPEG quality 80"] && item.parts.first?.reasons == ["split"])
        #expect(item.transfer != nil && item.staged == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["IMG_20261129_071200_part1.jpg", "IMG_20261129_071200_part2.jpg"])
    }

    @Test(arguments: [false, true]) func onePartThatCannotTravelSendsNone(staging: Bool) throws {
        let dir = try Fixture.scratch()
        var item = PreparedItem(input: "long.png", kind: .image)
        let parts = [try made(dir, [1], suffix: "_part1"), try made(dir, [2], claimed: 9_000_000, suffix: "_part2")]
        #expect(throws: MediaPrepError.self) { try preparer(dir, staging: staging).deliver(parts, &item) }
        #expect(item.output == nil && item.staged == nil && item.parts.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
    }

    @Test func stagedFilesWaitForTheBatchToNameThem() throws {
        let dir = try Fixture.scratch()
        var item = PreparedItem(input: "a.jpg", kind: .image)
        try preparer(dir, staging: true).deliver([try made(dir, [1, 2], suffix: "")], &item)
        #expect(item.output == nil && item.transfer == nil)
        let staged = try #require(item.staged)
        #expect(try staged.commit().hasSuffix("/IMG_20261129_071200.jpg"))
    }

    @Test func whatFailsAfterStagingTakesItsFileAway() throws {
        let dir = try Fixture.scratch()
        let staged = try OutputWriter.stage([1], directory: dir, base: "VID", ext: "mp4")
        #expect(throws: MediaPrepError.self) {
            try Produced.finishing(staged) { throw MediaPrepError(.corrupt, "no frame of the video could be decoded") }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == [])
    }

    @Test func aLivePhotoStillShowsOnItsVideo() throws {
        let dir = try Fixture.scratch()
        let staged = try OutputWriter.stage([1], directory: dir, base: "VID", ext: "mp4")
        defer { staged.discard() }
        let video = Produced(staged: staged, bytes: 1, format: .mp4, route: .remuxed,
                             shown: .video(width: 4, height: 2, preview: "frame", duration: 3), autoReceive: true)
        guard case .video(let w, let h, let p, let d) = video.showing("still").shown else { Issue.record("not a video"); return }
        #expect((w, h, p, d) == (4, 2, "still", 3))
        #expect(video.showing("still").content == .video(text: "", image: "still", duration: 3))
    }
}

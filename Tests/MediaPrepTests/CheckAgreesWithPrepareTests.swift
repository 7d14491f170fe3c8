import Foundation
import Testing
@testable import MediaPrep

/// `check` prints the plan `prepare` carries out, so their answers agree on every fixture: "as it is"
/// exactly when the input's own bytes are sent, "after preparation" when another file is, "cannot be
/// sent" when preparing fails.
@Suite struct CheckAgreesWithPrepareTests {
    static let fixtures: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: Fixture.dir)) ?? [])
        .filter { name in
            var dir: ObjCBool = false
            return FileManager.default.fileExists(atPath: Fixture.path(name), isDirectory: &dir) && !dir.boolValue
        }
        .sorted()

    static func agree(_ name: String, profile: ImageProfile, media: MediaOptions) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var check = SendCheck(profile: profile)
        check.media = media
        let verdict = check.check(path: Fixture.path(name))
        var preparer = AttachmentPreparer(profile: profile, outputDirectory: dir, timestamp: 0)
        preparer.media = media
        let item = preparer.prepare(path: Fixture.path(name))
        switch verdict.verdict {
        case .cannotSend:
            #expect(item.error != nil, "\(name): check says it cannot be sent (\(verdict.reasons)), prepare made \(item.output ?? "-")")
            #expect(item.output == nil)
        case .asIs, .afterPreparation:
            let out = try #require(item.output, "\(name): check says \(verdict.verdict), prepare failed: \(item.error?.description ?? "")")
            let same = try Fixture.bytes(name) == [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
            #expect(same == (verdict.verdict == .asIs), "\(name): check says \(verdict.verdict) (\(verdict.reasons)), prepare \(same ? "sent the input's bytes" : "made another file") (\(item.route?.rawValue ?? "-"))")
        }
    }

    @Test(arguments: fixtures) func simplexDefaults(_ name: String) throws {
        try Self.agree(name, profile: .simplex, media: MediaOptions())
    }

    /// The byte budgets recipients download without asking, where more inputs are re-encoded or refused.
    @Test(arguments: fixtures) func autoReceiveBudgets(_ name: String) throws {
        try Self.agree(name, profile: .simplex, media: .autoReceive())
    }

    /// A recording or a video stripped of its media data (exiftool's samples of MOV, AVI, MXF, WAV and
    /// FLAC are), or whose index points past its end, has nothing `prepare` can decode: `check` said
    /// "ok after preparation" and `prepare` refused it. Built here: a WAV whose data chunk is empty, and
    /// h264.mp4 with every chunk offset moved 16 MB past its end.
    @Test func mediaWithoutItsDataIsRefusedByBoth() throws {
        let fmt = Bytes.le32(16) + [1, 0, 1, 0] + Bytes.le32(8000) + Bytes.le32(16000) + [2, 0, 16, 0]
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + fmt + Array("data".utf8) + Bytes.le32(0)
        let wav = Array("RIFF".utf8) + Bytes.le32(body.count) + body
        var mp4 = try Fixture.bytes("h264.mp4")
        var at = 0, moved = 0
        while let i = (at..<(mp4.count - 8)).first(where: { Array(mp4[$0..<$0 + 4]) == Array("stco".utf8) }) {
            let count = Bytes.be(mp4, i + 8, 4)
            for k in 0..<count {
                let o = i + 12 + 4 * k
                mp4.replaceSubrange(o..<o + 4, with: Bytes.be32(Bytes.be(mp4, o, 4) + (16 << 20)))
                moved += 1
            }
            at = i + 4
        }
        #expect(moved > 0)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, bytes) in [("memo.wav", wav), ("clip.mp4", mp4)] {
            let path = try Fixture.write(bytes, name, in: dir)
            let verdict = SendCheck().check(path: path)
            // The MP4's index is held against its size already ("its index points to byte …").
            #expect(verdict.verdict == .cannotSend && (name != "memo.wav" || verdict.reasons.first?.contains("its media data is missing") == true),
                    "\(name): \(verdict.reasons)")
            let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
            #expect(item.output == nil && item.error != nil, "\(name)")
        }
    }
}

import CFFmpeg
import Foundation
import Testing
@testable import MediaPrep

/// `--trim START-END` and `--trim-to-fit`: a part of a clip. Without a transcode the cut falls on the
/// keyframe at or before START and the packets between are the source's own; with one it is exact to
/// the frame; a clip that cannot fit its budget whole goes as its first part that does.
@Suite struct TrimTests {
    static func prepare(_ name: String, in dir: String, trim: Range<Double>?, budget: Int? = nil, toFit: Bool = false) -> PreparedItem {
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        p.media.trim = trim
        p.media.videoMaxBytes = budget
        p.media.trimToFit = toFit
        return p.prepare(path: Fixture.path(name))
    }

    /// black-start.mp4 has one keyframe (at 0): a part from 1 s is copied from 0, packet for packet.
    @Test func withoutATranscodeTheCutFallsOnAKeyframeAndPacketsAreCopied() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = Self.prepare("h264.mp4", in: dir, trim: 1..<2)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .remuxed && item.reasons.contains { $0.hasPrefix("cut to 0:01–0:02") })
        let probe = try MediaProbe.probe(path: out)
        let duration = try #require(probe.durationSeconds)
        // Within one GOP of the request (x264's default: a keyframe every 250 frames, so from 0 here).
        #expect(duration >= 1 && duration <= 2 + 10.0 / 25, "\(duration)")
        // The video packets are the source's, in order, from the keyframe.
        let source = try Packets.all(Fixture.path("h264.mp4")).filter { $0.stream == 0 }
        let kept = try Packets.all(out).filter { $0.stream == 0 }
        #expect(!kept.isEmpty && Array(source.prefix(kept.count)).map(\.data) == kept.map(\.data))
    }

    /// A VP9 clip is transcoded: exact to the frame, 25 frames of 25 fps for one second.
    @Test func withATranscodeTheCutIsExactToTheFrame() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = Self.prepare("vp9.webm", in: dir, trim: 0.5..<1.5)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .encoded && item.reasons.first?.hasSuffix("exact to the frame") == true)
        let frames = try Packets.all(out).filter { $0.stream == 0 }.count
        #expect(frames == 25, "\(frames)")
        let duration = try #require(try MediaProbe.probe(path: out).durationSeconds)
        #expect(abs(duration - 1) <= 1.0 / 25 + 0.03, "\(duration)")
        // A start past the clip's end is refused, in check as in prepare.
        #expect(Self.prepare("vp9.webm", in: dir, trim: 10..<12).error?.code == .invalidArgument)
    }

    /// noisy.webm cannot fit 20,000 bytes whole (refused, saying how much would); with --trim-to-fit
    /// its first part that fits goes, within the budget to the byte.
    @Test func aClipThatCannotFitWholeIsSentCutWithTrimToFit() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let refused = Self.prepare("noisy.webm", in: dir, trim: nil, budget: 20_000)
        #expect(refused.error?.code == .overLimit && refused.error?.message.contains("--trim-to-fit") == true)
        let item = Self.prepare("noisy.webm", in: dir, trim: nil, budget: 20_000, toFit: true)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(try FileBytes.size(out) <= 20_000)
        #expect(item.reasons.first?.contains("--trim-to-fit") == true, "\(item.reasons)")
        let duration = try #require(try MediaProbe.probe(path: out).durationSeconds)
        #expect(duration > 0.5 && duration < 2, "\(duration)")
    }

    @Test func clockTimesReadAsAPersonWritesThem() {
        #expect(SendPlanner.clock(65.5) == "1:05.5" && SendPlanner.clock(7) == "0:07")
    }
}

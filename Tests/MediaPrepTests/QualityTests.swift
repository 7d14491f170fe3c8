import Foundation
import Testing
@testable import MediaPrep
import UploadPlanner

/// A quality a sender names in one word (`--quality hd`) and a cap on a video's height
/// (`--video-max-height`): each a set of the limits that already exist, the same in `check` and `prepare`.
@Suite struct QualityTests {
    static func preparer(_ dir: String, quality: MediaOptions.Quality = .standard, videoMaxHeight: Int? = nil,
                         maxBytes: Int? = nil) -> AttachmentPreparer {
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        if let maxBytes { p.profile.maxBytes = maxBytes }
        p.media.videoMaxHeight = videoMaxHeight
        p.media.apply(quality, to: &p.profile, explicitBytes: maxBytes != nil)
        return p
    }

    /// HD: the largest image recipients still receive without asking. photo.jpg (437,890 bytes, GPS and a
    /// comment in its Exif) goes with its own pixels, its metadata removed; standard re-encodes it.
    @Test func hdSendsAPhotoUpToTheAutoReceiveSize() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hd = Self.preparer(dir + "/hd", quality: .hd).prepare(path: Fixture.path("photo.jpg"))
        #expect(hd.route == .stripped && (hd.bytes ?? .max) <= SimplexLimits.simplex.maxImageSizeAutoReceive, "\(hd.route.map { "\($0)" } ?? "-")")
        #expect(hd.autoReceive == true && hd.reasons.first?.hasPrefix("HD: up to 522,240 bytes") == true)
        let standard = Self.preparer(dir + "/standard").prepare(path: Fixture.path("photo.jpg"))
        #expect(standard.route == .encoded && (standard.bytes ?? .max) <= ImageProfile.simplex.maxBytes)
        // A budget given by the sender stays the budget.
        let custom = Self.preparer(dir + "/custom", quality: .hd, maxBytes: 100_000).prepare(path: Fixture.path("photo.jpg"))
        #expect((custom.bytes ?? .max) <= 100_000)
        var options = MediaOptions()
        var profile = ImageProfile.simplex
        options.apply(.hd, to: &profile)
        #expect(profile.maxBytes == 522_240 && options.videoMaxHeight == 1080)
        var check = SendCheck(profile: profile)
        check.media = options
        #expect(check.check(path: Fixture.path("photo.jpg")).reasons.first == "HD: up to 522,240 bytes, what recipients receive without asking")
    }

    /// A clip taller than the cap on its short side is transcoded down to it, landscape or portrait;
    /// one within it goes as it is.
    @Test(arguments: [("h264.mp4", 120, (160, 120)), ("rotated.mov", 160, (160, 212)), ("h264.mp4", 240, (320, 240))])
    func aVideoIsNeverTallerThanItsCap(_ name: String, _ cap: Int, _ expected: (Int, Int)) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = Self.preparer(dir, videoMaxHeight: cap).prepare(path: Fixture.path(name))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        let probe = try MediaProbe.probe(path: out)
        #expect(min(probe.width ?? 0, probe.height ?? 0) <= cap)
        #expect((probe.width ?? 0, probe.height ?? 0) == expected, "\(probe.width ?? 0)×\(probe.height ?? 0)")
        var check = SendCheck()
        check.media.videoMaxHeight = cap
        let reasons = check.check(path: Fixture.path(name)).reasons
        let scaled = reasons.contains { $0.contains("is over \(cap)p") }
        #expect(scaled == (item.route == .encoded), "\(reasons)")
    }
}

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
}

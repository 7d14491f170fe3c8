import Foundation
import Testing

/// The pre-commit hook, run for real by pre-commit from PyPI (`pre-commit try-repo`) in a scratch git
/// repository, with the built binary on PATH (the `system` hook; the `swift` one builds the same
/// package). Runs whenever pre-commit is installed or can be installed into a venv; in CI it must be.
@Suite(.serialized) struct PreCommitTests {
    static let repository: String = URL(fileURLWithPath: testdata).deletingLastPathComponent().path

    /// pre-commit on PATH, else one installed once into .build/pre-commit-venv.
    static let preCommit: String? = {
        if let onPath = which("pre-commit") { return onPath }
        let venv = repository + "/.build/pre-commit-venv"
        let exe = venv + "/bin/pre-commit"
        if FileManager.default.isExecutableFile(atPath: exe) { return exe }
        guard (try? runTool(["python3", "-m", "venv", venv]))?.status == 0,
              (try? runTool([venv + "/bin/pip", "install", "-q", "pre-commit"]))?.status == 0 else { return nil }
        return FileManager.default.isExecutableFile(atPath: exe) ? exe : nil
    }()

    static func which(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    @Test func aTooLongVoiceNoteFailsTheCommitAndAPhotoPasses() throws {
        guard let preCommit = Self.preCommit else {
            #expect(!Self.inCI, "CI must run the pre-commit hook: pre-commit could not be installed")
            return
        }
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for f in ["small.jpg", "voice-long.ogg"] { try FileManager.default.copyItem(atPath: testdata + "/" + f, toPath: dir + "/" + f) }
        #expect(try runTool(["git", "init", "-q"], in: dir).status == 0)
        #expect(try runTool(["git", "add", "small.jpg", "voice-long.ogg"], in: dir).status == 0)
        let bin = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        let env = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                   "PRE_COMMIT_HOME": dir + "/.cache", "GIT_CONFIG_GLOBAL": "/dev/null", "SKIP": ""]
        func tryRepo(_ file: String) throws -> Ran {
            try runTool([preCommit, "try-repo", Self.repository, "mediaprep-check-system", "--files", file], in: dir, env: env)
        }
        let photo = try tryRepo("small.jpg")
        #expect(photo.status == 0, "\(photo.stdout)")
        #expect(photo.stdout.contains("Passed"))
        let voice = try tryRepo("voice-long.ogg")
        #expect(voice.status == 1, "\(voice.stdout)")
        #expect(voice.stdout.contains("Failed") && voice.stdout.contains("voice over 300 s"), "\(voice.stdout)")
    }
}

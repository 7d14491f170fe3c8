import Foundation
import TestSupport
import Testing

/// The composite action's check step (action.yml), run by bash as the runner would run it, with the
/// built binary on PATH: annotations on stdout, SARIF written, the exit status the job gets.
@Suite struct GitHubActionTests {
    /// The `run: |` block of the step called `name`.
    static func script(step name: String) throws -> String {
        let lines = try String(contentsOfFile: PreCommitTests.repository + "/action.yml", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "- name: \(name)" })
        let run = try #require(lines[start...].firstIndex { $0.trimmingCharacters(in: .whitespaces) == "run: |" })
        let indent = lines[run].prefix { $0 == " " }.count + 2
        var body: [String] = []
        for line in lines[(run + 1)...] {
            if !line.isEmpty && line.prefix(while: { $0 == " " }).count < indent { break }
            body.append(String(line.dropFirst(min(indent, line.count))))
        }
        return body.joined(separator: "\n")
    }

    @Test func checkStepAnnotatesWritesSARIFAndFails() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bin = URL(fileURLWithPath: binary).deletingLastPathComponent().path
        let env = ["PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                   "PATHS": "\(testdata)/small.jpg \(testdata)/voice-long.ogg", "PROFILE": "simplex", "STRICT": "false",
                   "AUDIO_AS": "voice", "SARIF": dir + "/out.sarif"]
        let r = try runTool(["bash", "-c", try Self.script(step: "Check")], env: env)
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.stdout.contains("::error file=\(testdata)/voice-long.ogg,title=cannot be sent::"), "\(r.stdout)")
        #expect(!r.stdout.contains("small.jpg,"))  // sent as it is: no annotation
        let sarif = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out.sarif")))
        let schema = try JSONSchema(data: Data(contentsOf: URL(fileURLWithPath: testdata + "/sarif-schema-2.1.0.json")))
        #expect(schema.validate(sarif).isEmpty)

        var ok = env
        (ok["PATHS"], ok["AUDIO_AS"], ok["SARIF"]) = ("\(testdata)/small.jpg \(testdata)/voice-long.ogg", "auto", "")
        #expect(try runTool(["bash", "-c", try Self.script(step: "Check")], env: ok).status == 0)
        ok["STRICT"] = "true"
        ok["PATHS"] = "\(testdata)/photo.jpg"  // would be re-encoded: fails only when strict
        #expect(try runTool(["bash", "-c", try Self.script(step: "Check")], env: ok).status == 1)
    }
}

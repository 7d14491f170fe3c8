import Foundation
import Testing
@testable import mediaprep

private let testdata: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("testdata").path
}()

@Suite struct ArgumentParserTests {
    let options = [
        OptionSpec(names: ["--out", "-o"], value: "DIR", help: ""),
        OptionSpec(names: ["--json"], value: nil, help: ""),
        OptionSpec(names: ["--mention"], value: "N=ID", help: "", repeatable: true),
    ]

    @Test func valuesFlagsAndPositionals() throws {
        let a = try ParsedArguments.parse(["a.jpg", "-o", "out", "--json", "--mention=bob=3", "--mention", "al=2", "--", "--b.jpg"], options: options)
        #expect(a.positionals == ["a.jpg", "--b.jpg"])
        #expect(a.value("--out") == "out")
        #expect(a.has("--json"))
        #expect(a.all("--mention") == ["bob=3", "al=2"])
    }

    @Test func mistakesAreUsageErrors() {
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["--nope"], options: options) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["--out"], options: options) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["--json=1"], options: options) }
        #expect(throws: UsageError.self) { try ParsedArguments.parse(["-o", "a", "-o", "b"], options: options) }
    }

    @Test func helpIsRecognised() throws {
        #expect(try ParsedArguments.parse(["--help"], options: options).wantsHelp)
        #expect(PrepareCommand.help.contains("--send"))
    }
}

@Suite struct ExitStatusTests {
    @Test func usageErrorsExitTwo() {
        #expect(runCLI([]) == 2)
        #expect(runCLI(["frobnicate"]) == 2)
        #expect(runCLI(["plan", "--kind", "image"]) == 2)             // --size missing
        #expect(runCLI(["plan", "--size", "-5", "--kind", "image"]) == 2)
        #expect(runCLI(["plan", "--size", "10", "--kind", "sticker"]) == 2)
        #expect(runCLI(["prepare"]) == 2)
        #expect(runCLI(["prepare", "x.jpg", "--mention", "nobody"]) == 2)
        #expect(runCLI(["prepare", "x.jpg", "--send", "5"]) == 2)
        #expect(runCLI(["thumbnail", "x.mp4"]) == 2)                   // -o missing
    }

    @Test func helpExitsZero() {
        #expect(runCLI(["--help"]) == 0)
        #expect(runCLI(["prepare", "--help"]) == 0)
    }

    @Test func planExitStatusFollowsTheVerdict() {
        #expect(runCLI(["plan", "--size", "261120", "--kind", "image", "--json"]) == 0)
        #expect(runCLI(["plan", "--size", "8000000", "--kind", "video", "--no-xftp"]) == 0)
        #expect(runCLI(["plan", "--size", "8000001", "--kind", "video", "--no-xftp"]) == 1)
        #expect(runCLI(["plan", "--size", "1073741825", "--kind", "file"]) == 1)
    }

    @Test func badInputExitsOneAndTheRestIsStillPrepared() throws {
        let out = NSTemporaryDirectory() + "mediaprep-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let status = runCLI(["prepare", testdata + "/small.jpg", testdata + "/truncated.mp4", testdata + "/voice.m4a",
                             "--out", out, "--json", "--text", "hi", "--send", "#3"])
        #expect(status == 1)
        let made = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(made.count == 2)
        #expect(made.contains { $0.hasPrefix("IMG_") } && made.contains { $0.hasPrefix("voice_") })
    }

    @Test func pixelLimitIsConfigurable() throws {
        let out = NSTemporaryDirectory() + "mediaprep-px-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(runCLI(["prepare", testdata + "/progressive.jpg", "--out", out, "--max-pixels", "1000"]) == 1)
        #expect(runCLI(["prepare", testdata + "/progressive.jpg", "--out", out]) == 0)
    }

    @Test func probeAndCheck() {
        #expect(runCLI(["probe", testdata + "/rotated.mov", "--json"]) == 0)
        #expect(runCLI(["probe", testdata + "/truncated.mp4"]) == 1)
        #expect(runCLI(["check", testdata + "/small.jpg", testdata + "/photo.jpg", testdata + "/voice.m4a"]) == 0)
        #expect(runCLI(["check", testdata + "/voice-long.ogg", testdata + "/small.jpg", "--json"]) == 1)
    }

    @Test func thumbnailWritesAndNeverOverwritesItsInput() throws {
        let out = NSTemporaryDirectory() + "mediaprep-thumb-" + UUID().uuidString + ".jpg"
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(runCLI(["thumbnail", testdata + "/h264.mp4", "-o", out, "--max-side", "160"]) == 0)
        #expect(FileManager.default.fileExists(atPath: out))
        let input = testdata + "/h264.mp4"
        let before = FileManager.default.contents(atPath: input)
        #expect(runCLI(["thumbnail", input, "-o", input]) == 1)
        #expect(FileManager.default.contents(atPath: input) == before)
    }
}

@Suite struct CheckVerdictTests {
    func check(_ name: String, profile: String = "simplex") throws -> CheckCommand.Row {
        let cmd = try CheckCommand(ParsedArguments.parse([testdata + "/" + name, "--profile", profile], options: CheckCommand.options))
        return cmd.check(testdata + "/" + name)
    }

    @Test func verdicts() throws {
        #expect(try check("small.jpg").verdict == .asIs)
        let photo = try check("photo.jpg")
        #expect(photo.verdict == .afterPreparation)
        #expect((photo.preparedBytes ?? .max) <= 261_120)
        #expect(photo.reason.contains("over 261120"))
        #expect(try check("orient-6.jpg").reason.contains("EXIF rotation"))
        #expect(try check("h264.mp4").verdict == .asIs)
        #expect(try check("voice.m4a").verdict == .asIs)
        #expect(try check("anim.gif").verdict == .asIs)
        let long = try check("voice-long.ogg")
        #expect(long.verdict == .no)
        #expect(long.reason.contains("300"))
        let cut = try check("truncated.mp4")
        #expect(cut.verdict == .no)
        #expect(cut.error != nil)
    }

    @Test func blueskyProfileUsesItsOwnLimits() throws {
        let photo = try check("photo.jpg", profile: "bluesky")
        // 437,890 bytes is within Bluesky's 1,000,000, but the file carries Exif/GPS to strip.
        #expect(photo.verdict == .afterPreparation)
        #expect(try check("small.jpg", profile: "bluesky").verdict == .asIs)
    }
}

@Suite struct PrepareJSONContractTests {
    func run(_ args: [String]) throws -> (PrepareCommand.Result, [[String: Any]]) {
        let cmd = try PrepareCommand(ParsedArguments.parse(args, options: PrepareCommand.options))
        let r = cmd.execute()
        let data = Data(r.json.serialized.utf8)
        let array = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return (r, array)
    }

    @Test func everyItemHasTheSpecFields() throws {
        let out = NSTemporaryDirectory() + "mediaprep-json-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let (r, items) = try run([testdata + "/photo.jpg", testdata + "/h264.mp4", testdata + "/voice.m4a", testdata + "/truncated.mp4",
                                  "--out", out, "--json", "--text", "look", "--quote", "42", "--mention", "alice=7", "--send", "@3"])
        #expect(r.status == 1)
        #expect(items.count == 4)
        let fields = ["input", "kind", "output", "bytes", "width", "height", "durationSeconds", "preview", "transfer", "composedMessage", "error"]
        for item in items { for f in fields { #expect(item.keys.contains(f), "missing \(f)") } }
        #expect(items.map { $0["kind"] as? String } == ["image", "video", "voice", "file"])

        let photo = items[0]
        #expect((photo["bytes"] as? Int ?? .max) <= 261_120)
        #expect((photo["preview"] as? String)?.hasPrefix("data:image/jpg;base64,") == true)
        #expect(photo["error"] is NSNull)
        let transfer = try #require(photo["transfer"] as? [String: Any])
        #expect(transfer["method"] as? String == "xftp")
        #expect(transfer["chunkSizes"] as? [Int] == [262_144])

        let video = items[1]
        #expect(video["durationSeconds"] as? Int == 3)
        let voice = items[2]
        #expect(voice["durationSeconds"] as? Int == 5)
        #expect((voice["transfer"] as? [String: Any])?["method"] as? String == "smpInline")
        // Only the last successful item carries the text, the quote and the mentions.
        let lastMsg = try #require(voice["composedMessage"] as? [String: Any])
        #expect(lastMsg["quotedItemId"] as? Int == 42)
        #expect((lastMsg["msgContent"] as? [String: Any])?["text"] as? String == "look")
        #expect((lastMsg["mentions"] as? [String: Int]) == ["alice": 7])
        let firstMsg = try #require(photo["composedMessage"] as? [String: Any])
        #expect(firstMsg["quotedItemId"] == nil)
        #expect((firstMsg["msgContent"] as? [String: Any])?["text"] as? String == "")
        // The failed input: no output, a typed error, no message.
        let bad = items[3]
        #expect(bad["output"] is NSNull && bad["composedMessage"] is NSNull)
        #expect(((bad["error"] as? [String: Any])?["code"] as? String)?.isEmpty == false)
        // One /_send line for the three that worked.
        #expect(r.sendLines.count == 1)
        #expect(r.sendLines[0].hasPrefix("/_send @3 live=off ttl=default json [{\"fileSource\":{\"filePath\":\"IMG_"))
    }
}

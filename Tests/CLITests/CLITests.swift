import Foundation
import Testing
@testable import mediaprep

let testdata: String = {
    MediaPrep.BatchPreparer.setFFmpegLogLevel(.quiet)  // in-process runs of the CLI: no libav lines in the test output
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("testdata").path
}()

@Suite struct ArgumentParserTests {
    @Test func byteSizesWithUnitsAndSpaces() {
        #expect(ByteSize.parse("261120") == 261_120)
        #expect(ByteSize.parse(" 1.5 MB ") == 1_500_000)
        #expect(ByteSize.parse("1MiB") == 1_048_576)
        #expect(ByteSize.parse("\t250 kib") == 256_000)
        #expect(ByteSize.parse("2 GB\t") == 2_000_000_000)
        #expect(ByteSize.parse("") == nil)
        #expect(ByteSize.parse("MB") == nil)
        #expect(ByteSize.parse("5 furlongs") == nil)
        #expect(ByteSize.parse("-5") == nil)
        #expect(ByteSize.parse("٣") == nil)  // digits of other scripts are not Double's
    }

    @Test func valuesFlagsAndPositionals() throws {
        let a = try Arguments<PrepareCommand.Option>.parse(["a.jpg", "-o", "out", "--json", "--mention=bob=3", "--mention", "al=2", "--", "--b.jpg"])
        #expect(a.positionals == ["a.jpg", "--b.jpg"])
        #expect(a.value(.out) == "out")
        #expect(a.has(.json))
        #expect(a.all(.mention) == ["bob=3", "al=2"])
    }

    @Test func mistakesAreUsageErrors() {
        typealias A = Arguments<PrepareCommand.Option>
        #expect(throws: UsageError.self) { try A.parse(["--nope"]) }
        #expect(throws: UsageError.self) { try A.parse(["--out"]) }
        #expect(throws: UsageError.self) { try A.parse(["--json=1"]) }
        #expect(throws: UsageError.self) { try A.parse(["-o", "a", "-o", "b"]) }
        #expect(throws: UsageError.self) { try A.parse(["--jobs", "0"]).int(.jobs, min: 1) }
    }

    @Test func helpIsRecognised() throws {
        #expect(try Arguments<PrepareCommand.Option>.parse(["--help"]).wantsHelp)
        #expect(PrepareCommand.help.contains("--send"))
    }

    /// Usage and help come from the declarations, so no option can be missing from either.
    @Test func usageAndHelpListEveryDeclaredOption() {
        func check<C: Command>(_ c: C.Type) {
            for o in C.Option.allCases {
                let name = o.spec.names[0]
                #expect(C.help.contains(name), "\(C.name) --help lacks \(name)")
                if o.spec.inUsage { #expect(C.usage.contains(name), "\(C.name) usage lacks \(name)") }
            }
        }
        check(PrepareCommand.self); check(PlanCommand.self); check(ProbeCommand.self)
        check(ThumbnailCommand.self); check(CheckCommand.self); check(BenchCommand.self)
        #expect(ThumbnailCommand.usage.contains("--quality"))
        #expect(PrepareCommand.usage.contains("--max-pixels") && PrepareCommand.usage.contains("--jobs"))
    }
}

@Suite struct ExitStatusTests {
    @Test func usageErrorsExitTwo() async {
        #expect(await runCLI([]) == 2)
        #expect(await runCLI(["frobnicate"]) == 2)
        #expect(await runCLI(["plan", "--kind", "image"]) == 2)             // --size missing
        #expect(await runCLI(["plan", "--size", "-5", "--kind", "image"]) == 2)
        #expect(await runCLI(["plan", "--size", "10", "--kind", "sticker"]) == 2)
        #expect(await runCLI(["prepare"]) == 2)
        #expect(await runCLI(["prepare", "x.jpg", "--mention", "nobody"]) == 2)
        #expect(await runCLI(["prepare", "x.jpg", "--send", "5"]) == 2)
        #expect(await runCLI(["prepare", "x.jpg", "--json", "--jsonl"]) == 2)
        #expect(await runCLI(["thumbnail", "x.mp4"]) == 2)                   // -o or --out missing
        #expect(await runCLI(["thumbnail", "a.mp4", "b.mp4", "-o", "x.jpg"]) == 2)
        #expect(await runCLI(["check", "x.jpg", "--format", "xml"]) == 2)
    }

    @Test func helpExitsZero() async {
        #expect(await runCLI(["--help"]) == 0)
        #expect(await runCLI(["prepare", "--help"]) == 0)
    }

    @Test func planExitStatusFollowsTheVerdict() async {
        #expect(await runCLI(["plan", "--size", "261120", "--kind", "image", "--json"]) == 0)
        #expect(await runCLI(["plan", "--size", "8000000", "--kind", "video", "--no-xftp"]) == 0)
        #expect(await runCLI(["plan", "--size", "8000001", "--kind", "video", "--no-xftp"]) == 1)
        #expect(await runCLI(["plan", "--size", "1073741825", "--kind", "file"]) == 1)
    }

    @Test func badInputExitsOneAndTheRestIsStillPrepared() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-cli-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let status = await runCLI(["prepare", testdata + "/small.jpg", testdata + "/truncated.mp4", testdata + "/voice.m4a",
                                   "--out", out, "--text", "hi", "-q"])
        #expect(status == 1)
        let made = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(made.count == 2)
        #expect(made.contains { $0.hasPrefix("IMG_") } && made.contains { $0.hasPrefix("voice_") })
    }

    @Test func pixelLimitIsConfigurable() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-px-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(await runCLI(["prepare", testdata + "/progressive.jpg", "--out", out, "--max-pixels", "1000", "-q"]) == 1)
        #expect(await runCLI(["prepare", testdata + "/progressive.jpg", "--out", out, "-q"]) == 0)
    }

    @Test func probeAndCheck() async {
        #expect(await runCLI(["probe", testdata + "/rotated.mov", "--json"]) == 0)
        #expect(await runCLI(["probe", testdata + "/truncated.mp4"]) == 1)
        #expect(await runCLI(["check", testdata + "/small.jpg", testdata + "/photo.jpg", testdata + "/voice.m4a", "-q"]) == 0)
        #expect(await runCLI(["check", testdata + "/small.jpg", testdata + "/photo.jpg", "--strict", "-q"]) == 1)
        #expect(await runCLI(["check", testdata + "/small.jpg", "--strict", "-q"]) == 0)
        #expect(await runCLI(["check", testdata + "/voice-long.ogg", testdata + "/small.jpg", "--format", "github"]) == 0)
        #expect(await runCLI(["check", testdata + "/voice-long.ogg", testdata + "/small.jpg", "--audio-as", "voice", "--format", "github"]) == 1)
    }

    @Test func thumbnailWritesAndNeverOverwritesItsInput() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-thumb-" + UUID().uuidString + ".jpg"
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(await runCLI(["thumbnail", testdata + "/h264.mp4", "-o", out, "--max-side", "160"]) == 0)
        #expect(FileManager.default.fileExists(atPath: out))
        let input = testdata + "/h264.mp4"
        let before = FileManager.default.contents(atPath: input)
        #expect(await runCLI(["thumbnail", input, "-o", input]) == 1)
        #expect(FileManager.default.contents(atPath: input) == before)
    }

    @Test func thumbnailsForManyVideosGoToAFolder() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-thumbs-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let videos = ["h264.mp4", "hevc.mp4", "vp9.webm", "rotated.mov", "black-start.mp4"].map { testdata + "/" + $0 }
        #expect(await runCLI(["thumbnail"] + videos + ["--out", out, "-q"]) == 0)
        let made = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(made == ["black-start.jpg", "h264.jpg", "hevc.jpg", "rotated.jpg", "vp9.jpg"])
    }
}

@Suite struct GitHubAnnotationTests {
    @Test func annotationsAreEscaped() {
        var r = MediaPrep.SendCheck.Result(input: "a,b:c.jpg")
        r.verdict = .cannotSend
        r.reasons = ["100% bad\nreally"]
        #expect(CheckCommand.annotation(r) == "::error file=a%2Cb%3Ac.jpg,title=cannot be sent::100%25 bad%0Areally")
        r.verdict = .asIs
        #expect(CheckCommand.annotation(r) == nil)
    }
}

import MediaPrep

/// The ETA follows a long transcode's own progress instead of counting it as one more file.
@Suite struct ETATests {
    @Test func aLongVideoWeighsItsDuration() throws {
        // Ten photos took 5 s; a video 10 % through after 60 s has ~540 s left, more than 1 "file" (0.5 s).
        let eta = try #require(ProgressBar.eta(done: 10, total: 11, elapsed: 65, current: 0.1, currentElapsed: 60))
        #expect(abs(eta - 540) < 1)
        // Without a fraction, inputs left at the pace so far.
        #expect(ProgressBar.eta(done: 10, total: 20, elapsed: 5, current: nil, currentElapsed: 0) == 5)
        #expect(ProgressBar.eta(done: 0, total: 3, elapsed: 1, current: nil, currentElapsed: 1) == nil)
    }
}

/// The CLI's `String(format:)` with `%@`, as Foundation's wrote the bench and probe lines.
@Suite struct FormatStringTests {
    @Test func stringsAndNumbersAsFoundationWroteThem() {
        #expect(mediaprep.formatLine("%@: %.2f s, %d job%@", "ffmpeg", 1.234, 2, "s") == "ffmpeg: 1.23 s, 2 jobs")
        #expect(mediaprep.formatLine("%-8@|%5@|", "ab", "cd") == "ab      |   cd|")
        #expect(mediaprep.formatLine("100%% %.0f%%", 99.6) == "100% 100%")
        #expect(mediaprep.formatLine("%d", Int64(1) << 40) == "1099511627776")
    }
}

import Foundation
@testable import MediaPrep
import TestSupport
import Testing

/// The built `mediaprep` binary, beside this test bundle.
let binary: String = {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var dir = exe.deletingLastPathComponent()
    // The bundle runs from …/debug/mediaprepPackageTests.xctest (a file on Linux).
    for _ in 0..<3 {
        let candidate = dir.appendingPathComponent("mediaprep").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir.deleteLastPathComponent()
    }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mediaprep").path
}()

struct Ran {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs the binary with pipes for stdin/stdout/stderr (so stderr is not a terminal).
func run(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> Ran {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = args
    var environment = ProcessInfo.processInfo.environment
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
    try inp.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a full pipe cannot stall the child.
    let group = DispatchGroup()
    nonisolated(unsafe) var o = Data(), e = Data()
    DispatchQueue.global().async(group: group) { o = out.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { e = err.fileHandleForReading.readDataToEndOfFile() }
    group.wait()
    p.waitUntilExit()
    return Ran(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// Runs another program (found on PATH) with stdout and stderr together, as a CI step would show them.
func runTool(_ args: [String], in dir: String? = nil, env: [String: String] = [:]) throws -> Ran {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    if let dir { p.currentDirectoryURL = URL(fileURLWithPath: dir) }
    var environment = ProcessInfo.processInfo.environment
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Ran(status: p.terminationStatus, stdout: String(decoding: data, as: UTF8.self), stderr: "")
}

/// `prepare DIR --out OUT --jobs 2` started in the background, returned once `count` JPEGs are in OUT
/// (or 30 s passed): for tests that interrupt a batch in the middle.
func startPreparing(_ dir: String, into out: String, until count: Int) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = ["prepare", dir, "--out", out, "--jobs", "2", "--quiet"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    var waited = 0
    while ((try? FileManager.default.contentsOfDirectory(atPath: out))?.filter { $0.hasSuffix(".jpg") }.count ?? 0) < count, waited < 3000 {
        usleep(10_000); waited += 1
    }
    return p
}

/// Lines of a file another process is still appending to (read with our own reader: Foundation's
/// String(contentsOfFile:) leaks its buffer when the file grows while it reads, as LeakSanitizer showed).
func linesIn(_ path: String) -> Int {
    ((try? FileBytes.read(path)) ?? []).reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
}

func scratch() throws -> String { try Scratch.folder("mediaprep-proc") }

func jsonLines(_ s: String) throws -> [[String: Any]] {
    try s.split(separator: "\n").map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
}

@Suite(.serialized) struct ProcessTests {
    @Test func jsonlIsOneObjectPerInputInInputOrder() throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let inputs = ["photo.jpg", "orient-6.jpg", "truncated.mp4", "sticker.png", "voice.m4a", "gray.png"].map { testdata + "/" + $0 }
        let r = try run(["prepare"] + inputs + ["--out", out, "--jsonl", "--jobs", "2", "--text", "hi", "--send", "@5"])
        #expect(r.status == 1)
        let lines = try jsonLines(r.stdout)
        #expect(lines.map { $0["input"] as? String } == inputs)
        #expect(lines[2]["error"] is [String: Any])
        #expect(((lines[5]["composedMessage"] as? [String: Any])?["msgContent"] as? [String: Any])?["text"] as? String == "hi")
        // stdout holds only JSON; the /_send line goes to stderr.
        #expect(r.stderr.contains("/_send @5 live=off ttl=default json ["))
        #expect(!r.stderr.contains("\r"))  // no progress bar into a pipe
    }

    @Test func dashReadsPathsFromStdin() throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let paths = ["small.jpg", "voice.mp3", "rgb.png"].map { testdata + "/" + $0 }
        let r = try run(["prepare", "-", "--out", out, "--jsonl"], stdin: paths.joined(separator: "\n") + "\n")
        #expect(r.status == 0)
        #expect(try jsonLines(r.stdout).map { $0["input"] as? String } == paths)
    }

    @Test func foldersAreWalkedRecursively() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/album/2026", withIntermediateDirectories: true)
        try fm.copyItem(atPath: testdata + "/small.jpg", toPath: dir + "/album/2026/b.jpg")
        try fm.copyItem(atPath: testdata + "/rgb.png", toPath: dir + "/album/a.png")
        try fm.copyItem(atPath: testdata + "/gray.jpg", toPath: dir + "/.thumb.jpg")
        try fm.createSymbolicLink(atPath: dir + "/album/2026/up", withDestinationPath: dir + "/album")
        let r = try run(["check", dir, "--jsonl"])
        #expect(r.status == 0)
        #expect(try jsonLines(r.stdout).map { ($0["input"] as? String)?.replacingOccurrences(of: dir, with: "") }
            == ["/album/2026/b.jpg", "/album/a.png"])
    }

    /// A named pipe opened for reading waits for a writer; among the inputs it is refused at once and
    /// the files after it are prepared. Sockets and devices the same.
    @Test func specialFilesNeverBlockABatch() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        #expect(mkfifo(dir + "/pipe.jpg", 0o644) == 0)
        try FileManager.default.copyItem(atPath: testdata + "/small.jpg", toPath: dir + "/z.jpg")
        let start = Date()
        let r = try run(["prepare", dir + "/pipe.jpg", "/dev/zero", "/proc/self/status", dir + "/z.jpg", "--out", out, "--jsonl"])
        // Seconds, with the process's own start-up: a pipe opened for reading would wait for ever, so the
        // bound only needs to be far from a loaded machine's start-up (the refusal itself is immediate).
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(r.status == 1)
        let lines = try jsonLines(r.stdout)
        #expect(lines.count == 4)
        let errors = lines.map { (($0["error"] as? [String: Any])?["code"] as? String) ?? "" }
        #expect(errors == ["unreadableFile", "unreadableFile", "unsupportedFormat", ""])
        #expect(r.stdout.contains("named pipe (FIFO)") && r.stdout.contains("character device") && r.stdout.contains("kernel file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).count == 1)
        // The same in a walked folder: the pipe is met, refused, and the photo beside it goes.
        let walked = try run(["check", dir, "--jsonl"])
        #expect(try jsonLines(walked.stdout).count == 2)
    }

    /// Four 65500×65500 JPEG bombs of a few hundred bytes, two jobs at once: refused from their
    /// headers, in well under 10 s and 300 MB.
    @Test func jpegBombsCostNothing() throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let bombs = ["bomb-huffman.jpg", "bomb-huffman-progressive.jpg", "bomb-arithmetic.jpg", "bomb-arithmetic-progressive.jpg"]
        let start = Date()
        let r = try runMeasuringMemory(["prepare"] + bombs.map { testdata + "/" + $0 } + ["--out", out, "--jobs", "2"])
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(r.status == 1)
        if !underSanitizer { #expect(r.peakMiB < 300, "peak \(r.peakMiB) MiB") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
    }

    /// A PNG too large to be sent at its own size is shrunk on load, a band of rows at a time: an
    /// 8000×6000 RGB PNG (137 MiB of pixels decoded whole) costs less than its pixels would.
    @Test func aLargePNGIsNeverHeldWhole() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        let (w, h) = (8000, 6000)
        let png = try rgbPNG(width: w, height: h) { x, y in (UInt8(x * 255 / w), UInt8(y * 255 / h), 128) }
        let path = dir + "/large.png"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(png)))
        // The peak once decoded (the trace's memory line after that stage): the search's encodes come later.
        let r = try run(["prepare", path, "--out", out], env: ["MEDIAPREP_TRACE": "1", "MEDIAPREP_TRACE_MEMORY": "1"])
        #expect(r.status == 0)
        let lines = r.stderr.split(separator: "\n").map(String.init)
        let stage = try #require(lines.firstIndex { $0.contains("decode, shrinking on load") }, "\(r.stderr)")
        let peak = try #require(lines.dropFirst(stage + 1).first?.split(separator: " ").dropLast().last.flatMap { Double($0) })
        if !underSanitizer { #expect(peak < 100, "peak \(peak) MiB once decoded") }
    }

    /// Naming the finished file fails (the name is taken, and the next one, `NAME_1.txt`, is longer
    /// than a file name may be): the item fails, nothing is left, and the exit status says so (75: the
    /// output folder, not the input, is at fault).
    @Test func aFailedCommitIsNotSuccess() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        let name = String(repeating: "n", count: 251) + ".txt"  // 255 bytes, the longest a name may be
        #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: Data("notes".utf8)))
        #expect(FileManager.default.createFile(atPath: out + "/" + name, contents: Data("taken".utf8)))
        let r = try run(["prepare", dir + "/" + name, testdata + "/small.jpg", "--out", out, "--jsonl"])
        #expect(r.status == 75, "\(r.stdout)\(r.stderr)")
        let lines = try jsonLines(r.stdout)
        let error = try #require(lines.first?["error"] as? [String: Any])
        #expect(error["code"] as? String == "writeFailed" && error["class"] as? String == "environment")
        #expect(lines.count == 2 && lines[1]["error"] is NSNull)  // the photo after it is still prepared
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted().count == 2)  // the taken name and the photo
        #expect(try String(contentsOfFile: out + "/" + name, encoding: .utf8) == "taken")
        // A rejected input alone is 1.
        #expect(try run(["prepare", testdata + "/truncated.mp4", "--out", out]).status == 1)
    }

    @Test func checkFormatsAndStrictness() throws {
        let ok = testdata + "/small.jpg", change = testdata + "/orient-6.jpg", bad = testdata + "/voice-long.ogg"
        #expect(try run(["check", ok, change]).status == 0)
        #expect(try run(["check", ok, change, "--strict"]).status == 1)
        let gh = try run(["check", ok, change, bad, "--audio-as", "voice", "--format", "github"])
        #expect(gh.status == 1)
        let lines = gh.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("::warning file=\(change),title=changed when sent::EXIF rotation applied; Exif metadata removed"))
        #expect(lines.contains("::error file=\(bad),title=cannot be sent::voice over 300 s (305.0 s): cannot be sent"))
        #expect(!lines.contains { $0.contains("file=\(ok)") })
        let json = try run(["check", ok, bad, "--audio-as", "voice", "--format", "json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["verdict"] as? String } == ["asIs", "cannotSend"])
    }

    @Test func progressBarOnlyOnATerminal() throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let inputs = Array(repeating: testdata + "/small.jpg", count: 4)
        let piped = try run(["check"] + inputs)
        #expect(!piped.stderr.contains("files/s"))
        let tty = try runWithTerminalStderr(["check"] + inputs)
        #expect(tty.status == 0)
        #expect(tty.stderr.contains("4/4") && tty.stderr.contains("files/s"))
        let quiet = try runWithTerminalStderr(["check"] + inputs + ["--quiet"])
        #expect(!quiet.stderr.contains("files/s"))
    }

    @Test func sigintLeavesNoPartialOrTemporaryFile() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        for i in 0..<40 { try FileManager.default.copyItem(atPath: testdata + "/photo.jpg", toPath: dir + "/p\(i).jpg") }
        // Interrupt once some outputs exist and more are being written.
        let p = try startPreparing(dir, into: out, until: 2)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationStatus == 130)
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(!left.contains { $0.hasSuffix(".tmp") || $0.hasPrefix(".") }, "temporary files left: \(left)")
        #expect(left.count >= 2 && left.count < 40)
        for f in left {
            // Every file linked into place is complete: it decodes, and fits the budget.
            let data = try FileBytes.read(out + "/" + f)
            #expect(data.count <= 261_120)
            #expect(throws: Never.self) { try JPEGDecoder.decode(data) }
        }
    }

    /// A closed terminal (SIGHUP) and a closed pipe (`mediaprep … | head`) stop the batch as SIGTERM
    /// does: 129 and 141, nothing temporary left.
    @Test func sighupAndSigpipeLeaveNothing() throws {
        let dir = try scratch(), out = try scratch(), piped = try scratch()
        defer { for d in [dir, out, piped] { try? FileManager.default.removeItem(atPath: d) } }
        for i in 0..<30 { try FileManager.default.copyItem(atPath: testdata + "/photo.jpg", toPath: dir + "/p\(i).jpg") }
        let p = try startPreparing(dir, into: out, until: 1)
        kill(p.processIdentifier, SIGHUP)
        p.waitUntilExit()
        #expect(p.terminationStatus == 129)
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: out)).contains { $0.hasPrefix(".") })
        let r = try runTool(["bash", "-c", "'\(binary)' prepare '\(dir)' --out '\(piped)' --jsonl --jobs 2 | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}"])
        #expect(r.stdout.split(separator: "\n").last == "141", "\(r.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: piped)
        #expect(!left.contains { $0.hasPrefix(".") } && left.count < 30, "\(left)")
    }

    /// SIGKILL leaves a temporary file (and x264's statistics in the private scratch folder); the next
    /// run into the same folders removes them, as their process is gone, and leaves only its outputs.
    @Test func aRunAfterSIGKILLSweepsWhatTheKilledOneLeft() throws {
        let out = try scratch(), tmp = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out); try? FileManager.default.removeItem(atPath: tmp) }
        let args = ["prepare", testdata + "/noisy.webm", "--out", out, "--video-max-bytes", "60000", "--quiet"]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": tmp]) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        var waited = 0
        while ((try? FileManager.default.contentsOfDirectory(atPath: out))?.contains { $0.hasSuffix(".tmp") } ?? false) == false, waited < 6000 {
            usleep(5_000); waited += 1
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let litter = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(litter.contains { $0.hasPrefix(".mediaprep-") && $0.contains("-\(p.processIdentifier)-") }, "\(litter)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).contains { $0.contains("-\(p.processIdentifier)-") })
        let second = try run(args, env: ["TMPDIR": tmp])
        #expect(second.status == 0, "\(second.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.count == 1 && left[0].hasSuffix(".mp4"), "\(left)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)  // its own scratch folder gone too
    }

    /// Shards of a nested archive with equal names in different folders are disjoint and together
    /// every input; `--resume` names are the same in every run, and a rerun rewrites nothing.
    @Test func shardsAndResume() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        var all: [String] = []
        for d in ["a", "b", "b/c", "d/e/f"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + d, withIntermediateDirectories: true)
            for (name, fixture) in [("x.jpg", "small.jpg"), ("y.png", "rgb.png"), ("z.m4a", "voice.m4a")] {
                try FileManager.default.copyItem(atPath: testdata + "/" + fixture, toPath: "\(dir)/\(d)/\(name)")
                all.append("\(dir)/\(d)/\(name)")
            }
        }
        var seen: [String] = []
        for k in 0..<3 {
            let r = try run(["check", dir, "--shard", "\(k)/3", "--jsonl"])
            seen += try jsonLines(r.stdout).compactMap { $0["input"] as? String }
        }
        #expect(seen.sorted() == all.sorted() && Set(seen).count == all.count)
        #expect(try run(["check", dir, "--shard", "3/3"]).status == 2)
        // The same shard is the same work from another working folder (paths relative to the folder given).
        let here = try run(["check", dir, "--shard", "1/3", "--jsonl"]).stdout
        let there = try runTool(["sh", "-c", "cd '\(dir)/..' && '\(binary)' check './\((dir as NSString).lastPathComponent)' --shard 1/3 --jsonl"]).stdout
        #expect(try jsonLines(here).map { ($0["input"] as? String ?? "").replacingOccurrences(of: dir, with: "") }
                == jsonLines(there).map { ($0["input"] as? String ?? "").replacingOccurrences(of: "./" + (dir as NSString).lastPathComponent, with: "") })
        let manifest = out + "/m.jsonl"
        let first = try run(["prepare", dir, "--out", out + "/o", "--resume", "--manifest", manifest, "--jsonl"])
        #expect(first.status == 0)
        let names = try jsonLines(first.stdout).compactMap { ($0["output"] as? String)?.replacingOccurrences(of: out + "/o/", with: "") }.sorted()
        #expect(names.contains("b/c/x.jpg.jpg") && names.contains("d/e/f/z.m4a.m4a") && names.count == all.count)
        func stamps() throws -> [String] {
            try names.map { n in
                let a = try FileManager.default.attributesOfItem(atPath: out + "/o/" + n)
                return "\(n) \(a[.systemFileNumber] ?? 0) \(a[.modificationDate] ?? 0)"
            }
        }
        let before = try stamps()
        let again = try run(["prepare", dir, "--out", out + "/o", "--resume", "--manifest", manifest, "--jsonl"])
        let againLines = try jsonLines(again.stdout)
        #expect(again.status == 0 && againLines.allSatisfy { $0["skipped"] as? Bool == true })
        #expect(try stamps() == before)
        let lines = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2 * all.count)
        #expect(lines.first?.contains("\"output\":\"") == true && !(lines.first ?? "").contains(out))  // relative to --out
    }

    /// A run killed with SIGKILL: every manifest line names a complete output.
    @Test func aKilledRunsManifestListsOnlyCompleteOutputs() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        for i in 0..<30 { try FileManager.default.copyItem(atPath: testdata + "/photo.jpg", toPath: dir + "/p\(i).jpg") }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["prepare", dir, "--out", out + "/o", "--resume", "--manifest", out + "/m.jsonl", "--jobs", "2", "--quiet"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        var waited = 0
        while linesIn(out + "/m.jsonl") < 3, waited < 3000 {
            usleep(5_000); waited += 1
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let lines = try String(contentsOfFile: out + "/m.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count >= 3 && lines.count < 30)
        for line in lines {
            let rec = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let data = try FileBytes.read(out + "/o/" + (rec["output"] as? String ?? "-"))
            #expect(data.count == rec["bytes"] as? Int)
            #expect(throws: Never.self) { try JPEGDecoder.decode(data) }
        }
    }

    /// A full disk (a 300 KiB tmpfs) fails the environment, 75, with the system's reason; a corrupt
    /// file alone is 1. Mounting needs root, as CI and the development machines run.
    @Test func aFullDiskExits75() throws {
        guard getuid() == 0 else { return }
        let mnt = try scratch()
        defer { _ = try? runTool(["umount", mnt]); try? FileManager.default.removeItem(atPath: mnt) }
        let mounted = try runTool(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", mnt])
        #expect(mounted.status == 0, "\(mounted.stdout)")
        guard mounted.status == 0 else { return }
        let r = try run(["prepare", testdata + "/photo.jpg", testdata + "/p3-photo.jpg", testdata + "/truncated.mp4", "--out", mnt + "/o", "--jsonl"])
        #expect(r.status == 75)
        let lines = try jsonLines(r.stdout)
        let codes = lines.map { (($0["error"] as? [String: Any])?["class"] as? String) ?? "-" }
        // Which photo's output takes the space first depends on which finishes first (two jobs); when
        // both stage theirs at once (seen under AddressSanitizer), neither fits.
        let photos = codes.prefix(2)
        #expect(photos.contains("environment") && photos.allSatisfy { ["-", "environment"].contains($0) } && codes.last == "input", "\(r.stdout)")
        #expect(r.stdout.contains("No space left on device"))
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: mnt + "/o")).contains { $0.hasPrefix(".") })
        #expect(try run(["prepare", testdata + "/truncated.mp4", "--out", mnt + "/o"]).status == 1)
    }

    /// `check` takes the budgets `prepare` takes: a 200 KB-class photo is flagged under 100,000 bytes.
    @Test func checkTakesPreparesBudgets() throws {
        let r = try run(["check", testdata + "/p3-small.jpg", testdata + "/small.jpg", "--max-bytes", "30000", "--strict"])
        #expect(r.status == 1 && r.stdout.contains("re-encoded to fit 30,000 bytes"))
        #expect(try run(["check", testdata + "/photo.jpg", "--max-side", "800"]).stdout.contains("resized to 800 px on the long side"))
        #expect(try run(["check", testdata + "/sticker.png", "--background", "black"]).stdout.contains("else JPEG on #000000 (black)"))
        #expect(try run(["prepare", testdata + "/sticker.png", "--background", "plaid"]).status == 2)
    }

    /// Mistakes get a suggestion; sizes take units; counts take plurals.
    @Test func messagesThatHelp() throws {
        let cmd = try run(["prepar", "x.jpg"])
        #expect(cmd.status == 2 && cmd.stderr.contains("unknown command 'prepar' (did you mean prepare?)"))
        let opt = try run(["check", testdata + "/small.jpg", "--max-byte", "3"])
        #expect(opt.status == 2 && opt.stderr.contains("unknown option --max-byte (did you mean --max-bytes?)"))
        let plan = try run(["plan", "--size", "1.5GiB", "--kind", "video", "--json"])
        #expect(plan.stdout.contains("\"size\":1610612736"))
        #expect(try run(["plan", "--size", "5MB", "--kind", "file"]).stdout.contains("5242880 bytes encrypted"))
        #expect(try run(["plan", "--size", "5 parsecs", "--kind", "file"]).status == 2)
        #expect(try run(["check", testdata + "/small.jpg"]).stdout.contains("1 file: 1 ok as it is,"))
    }

    /// Each JSON item says why; the /_send line is in the --json document; a caption whose every
    /// attachment failed is not sent alone.
    @Test func reasonsSendLinesAndNoLoneCaption() throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let r = try run(["prepare", testdata + "/small.jpg", testdata + "/sticker.png", "--send", "@1", "--out", out, "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(items.count == 2)
        // The run's totals: the last line of stderr, an object of its own (stdout stays one object an input).
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((r.stderr.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        let totals = try #require(summary["summary"] as? [String: Any])
        #expect(totals["inputs"] as? Int == 2 && totals["prepared"] as? Int == 2 && (totals["byKind"] as? [String: Int]) == ["image": 2])
        #expect(items[0]["reason"] as? String == "JPEG within 261,120 bytes, upright, no metadata")
        #expect((items[1]["reason"] as? String)?.contains("JPEG quality") == true)
        #expect(items[0]["sendLine"] == nil && (items[1]["sendLine"] as? String)?.hasPrefix("/_send @1 ") == true)
        let text = try run(["prepare", testdata + "/small.jpg", testdata + "/truncated.mp4", "--out", out])
        #expect(text.stdout.split(separator: "\n").last?.hasPrefix("2 inputs: 1 prepared (1 image), 1 failed; 43753 bytes written in ") == true, "\(text.stdout)")
        let lone = try run(["prepare", testdata + "/truncated.mp4", "--text", "look at this", "--send", "@1", "--out", out])
        #expect(lone.status == 1 && !lone.stdout.contains("/_send"))
        #expect(lone.stderr.contains("the text was not sent"))
    }

    /// `bench --html`: one self-contained page (no script, nothing fetched) with a row per image and
    /// tool, the two plots, and the tools that failed listed with their error.
    @Test func benchWritesAPageToLookAt() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        for f in ["small.jpg", "sticker.png", "rgb.png"] { try FileManager.default.copyItem(atPath: testdata + "/" + f, toPath: dir + "/" + f) }
        let r = try run(["bench", dir, "--jobs", "1", "--compare", "--html", out + "/bench.html"], env: ["PATH": "/nonexistent"])
        #expect(r.status == 0, "\(r.stderr)")
        let page = try String(contentsOfFile: out + "/bench.html", encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.hasSuffix("</html>\n"))
        #expect(!page.contains("<script") && !page.contains("http://") && !page.contains("https://") && !page.contains("src="))
        #expect(page.components(separatedBy: "<svg").count - 1 == 2)
        #expect(page.components(separatedBy: "<circle").count - 1 == 3)  // mediaprep's three scored outputs
        let rows = page.components(separatedBy: "<tr").count - 2  // less the header
        #expect(rows == 3 * 3)  // three images × mediaprep, ImageMagick, vips
        #expect(page.contains("Tools that failed") && page.contains("vips is not installed"))
        // The text output has the rows too.
        #expect(r.stdout.contains("sticker.png  mediaprep") && r.stdout.contains("failed: vips is not installed"))
    }

    /// `bench --video`: a budgeted transcode timed beside its floor (the same frames decoded and
    /// scaled, nothing encoded), as a ratio, for every video in the folder.
    @Test func benchVideoPrintsTheFloorBesideTheTranscode() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: testdata + "/vp9.webm", toPath: dir + "/vp9.webm")
        let r = try run(["bench", dir, "--video", "--video-max-bytes", "30000", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let video = try #require((json?["videos"] as? [[String: Any]])?.first)
        #expect((video["bytes"] as? Int ?? .max) <= 30000 && video["route"] as? String == "encoded")
        #expect((video["floorSeconds"] as? Double ?? 0) > 0 && (video["overFloorRounds"] as? [Double])?.count == 2)
    }

    @Test func sigtermExits143() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["prepare", "-", "--out", NSTemporaryDirectory() + "mediaprep-term-" + UUID().uuidString]
        let inp = Pipe()
        p.standardInput = inp  // kept open: the process waits for paths
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        usleep(300_000)
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        #expect(p.terminationStatus == 143)
        try? inp.fileHandleForWriting.close()
    }
}

/// Runs the binary with stderr on a pseudo-terminal, as a person's shell would.
func runWithTerminalStderr(_ args: [String]) throws -> Ran {
    var master: Int32 = -1, slave: Int32 = -1
    guard openpty(&master, &slave, nil, nil, nil) == 0 else { throw MediaPrepError(.invalidArgument, "no pty") }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = args
    var env = ProcessInfo.processInfo.environment
    env["TERM"] = "xterm"
    p.environment = env
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
    p.standardInput = FileHandle.nullDevice
    try p.run()
    close(slave)
    nonisolated(unsafe) var o = Data()
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) { o = out.fileHandleForReading.readDataToEndOfFile() }
    var e = Data()
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(master, &buf, buf.count)
        if n <= 0 { break }  // EIO once the child has closed its side
        e.append(contentsOf: buf[0..<n])
    }
    close(master)
    group.wait()
    p.waitUntilExit()
    return Ran(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// A large RGB PNG made in memory, each pixel from `pixel(x, y)` (the memory tests' inputs).
func rgbPNG(width w: Int, height h: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) throws -> [UInt8] {
    var rgb = [UInt8](repeating: 0, count: w * h * 3)
    rgb.withUnsafeMutableBufferPointer { p in
        for y in 0..<h {
            for x in 0..<w { (p[(y * w + x) * 3], p[(y * w + x) * 3 + 1], p[(y * w + x) * 3 + 2]) = pixel(x, y) }
        }
    }
    return try PNGEncoder.encode(try PixelBuffer(width: w, height: h, layout: .rgb, bytes: rgb))
}

/// Runs the binary and returns its exit status and its own peak resident memory.
///
/// Read from /proc/PID/status (VmHWM) while it runs: wait4's ru_maxrss would not do, since Linux
/// carries the pre-exec memory map's high-water mark (this test process's) into the child.
func runMeasuringMemory(_ args: [String]) throws -> (status: Int32, peakMiB: Double) {
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([binary] + args).map { strdup($0) } + [nil]
    defer { for p in argv { free(p) } }
    guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else {
        throw MediaPrepError(.invalidArgument, "cannot start \(binary)")
    }
    var status: Int32 = 0
    var peakKiB = 0
    while true {
        if let kib = PosixIO.peakResidentKiB(pid: "\(pid)") { peakKiB = max(peakKiB, kib) }
        let done = waitpid(pid, &status, WNOHANG)
        if done == pid || (done < 0 && errno != EINTR) { break }
        usleep(2000)
    }
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exitStatus, Double(peakKiB) / 1024)
}

/// Sanitizer builds (scripts/qa/sanitize.sh) carry shadow memory; memory bounds are for real builds.
let underSanitizer = ProcessInfo.processInfo.environment["MEDIAPREP_SANITIZER"] != nil

@Suite(.serialized, .disabled(if: underSanitizer, "shadow memory inflates RSS")) struct MemoryBoundTests {
    /// Ten 16 MP PNGs (48 MB each decoded) with --jobs 2: memory follows the jobs in flight, not
    /// the number of files, and a pixel budget of one image makes them decode one at a time.
    @Test func peakMemoryIsBoundedByJobsNotFiles() throws {
        let dir = try scratch(), out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir); try? FileManager.default.removeItem(atPath: out) }
        let png = try rgbPNG(width: 4608, height: 3456) { x, y in
            (UInt8(truncatingIfNeeded: x >> 4), UInt8(truncatingIfNeeded: y >> 4), UInt8(truncatingIfNeeded: (x + y) >> 5))
        }
        for i in 0..<10 { _ = FileManager.default.createFile(atPath: dir + "/big-\(i).png", contents: Data(png)) }
        // The gradient PNG is 181,593 bytes, within the default budget, so it would be sent as it is: a
        // smaller budget makes every file go through the decode, resize and encode being measured.
        let budget = ["--max-bytes", "150000"]
        let two = try runMeasuringMemory(["prepare", dir + "/big-0.png", dir + "/big-1.png", "--out", out, "--jobs", "2", "-q"] + budget)
        let ten = try runMeasuringMemory(["prepare", dir, "--out", out, "--jobs", "2", "-q"] + budget)
        let oneAtATime = try runMeasuringMemory(["prepare", dir, "--out", out, "--jobs", "2", "--pixel-budget", "16", "-q"] + budget)
        #expect(two.status == 0 && ten.status == 0 && oneAtATime.status == 0)
        // Stated bound 300 MiB: 2 jobs × (48 MB decoded + ~60 MB of resize and encode buffers) + the process
        // (measured: 2 files 151 MiB, 10 files 166 MiB, one at a time 144 MiB; one at a time was 101 MiB
        // before the CLI kept freed buffers up to 32 MB for reuse, `MemoryTuning`).
        #expect(ten.peakMiB < 300, "peak \(ten.peakMiB) MiB")
        #expect(ten.peakMiB < two.peakMiB * 1.3, "10 files: \(ten.peakMiB) MiB, 2 files: \(two.peakMiB) MiB")
        #expect(oneAtATime.peakMiB < ten.peakMiB, "budget of one image: \(oneAtATime.peakMiB) MiB, 2 at once: \(ten.peakMiB) MiB")
        print("peak memory: 2 files \(two.peakMiB) MiB, 10 files \(ten.peakMiB) MiB, 10 files one at a time \(oneAtATime.peakMiB) MiB")
    }

    /// Thumbnails leak nothing per video: leaking even one decoded 320×240 frame (115 KB) each would
    /// add ~45 MB over 400 clips. In a child process of its own, so no other test's memory counts
    /// (in the test process, x264's buffers from the transcode tests moved the bound).
    @Test func repeatedThumbnailsDoNotLeakFrames() throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        let clips = ["h264.mp4", "black-start.mp4", "truncated.mp4"].map { testdata + "/" + $0 }
        func run(_ n: Int) throws -> (status: Int32, peakMiB: Double) {
            try runMeasuringMemory(["thumbnail"] + (0..<n).map { clips[$0 % clips.count] } + ["--out", out, "--jobs", "1", "-q"])
        }
        let few = try run(12), many = try run(400)
        #expect(few.status == 1 && many.status == 1)  // the truncated clip fails, as it should
        #expect(many.peakMiB < few.peakMiB + 20, "12 clips: \(few.peakMiB) MiB, 400 clips: \(many.peakMiB) MiB")
    }
}

@Suite struct BenchTests {
    @Test func benchReportsThroughputScalingAndMemory() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for f in ["photo.jpg", "sticker.png", "small.jpg", "rgb16.png"] { try FileManager.default.copyItem(atPath: testdata + "/" + f, toPath: dir + "/" + f) }
        // An empty PATH: --compare finds neither ImageMagick nor vips, says so, and still reports.
        let r = try run(["bench", dir, "--jobs", "2", "--repeat", "2", "--compare", "--json"], env: ["PATH": dir])
        #expect(r.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(o["images"] as? Int == 8 && o["jobs"] as? Int == 2 && o["failed"] as? Int == 0)
        // One ratio per repeat: each round's pass over the floor timed beside it.
        let rounds = o["oneJobOverFloorRounds"] as? [Double] ?? []
        #expect(rounds.count == 2 && rounds.allSatisfy { $0 > 0 } && rounds == rounds.sorted())
        for k in ["imagesPerSecond", "megapixelsPerSecond", "p50Ms", "p95Ms", "maxMs", "peakMemoryMiB", "oneJobSeconds", "scaling",
                  "decodeFloorSeconds", "oneJobOverFloor"] {
            #expect((o[k] as? Double ?? 0) > 0, "\(k) missing or zero")
        }
        // Decoding alone costs less than preparing: the floor is below the 1-job pass.
        #expect((o["decodeFloorSeconds"] as? Double ?? 1) < (o["oneJobSeconds"] as? Double ?? 0))
        #expect((o["compare"] as? [Any])?.isEmpty == true)
        #expect(r.stderr.contains("not installed"))
    }
}

@Suite struct LinkCommandTests {
    @Test func linkAndTextOnlyPrepareAgainstALocalPage() throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/img.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: try FileBytes.read(testdata + "/small.jpg")))
        server.html("/article", "<html><head><title>Article</title><meta name=description content='About things'><meta property=og:image content=/img.jpg></head></html>")
        let url = server.base + "/article"
        // Loopback is refused by default…
        let refused = try run(["link", url, "--json"])
        #expect(refused.status == 1 && refused.stdout.contains("\"code\":\"blockedHost\""))
        // …and fetched when the user opts in.
        let ok = try run(["link", url, "--allow-private-hosts", "--json"])
        #expect(ok.status == 0)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any])
        let p = try #require(o["preview"] as? [String: Any])
        #expect(p["title"] as? String == "Article" && p["description"] as? String == "About things" && p["uri"] as? String == url)

        let sent = try run(["prepare", "--text", "read \(url) now", "--send", "@1", "--allow-private-hosts"])
        #expect(sent.status == 0)
        #expect(sent.stdout.contains("link message: Article (\(url))"))
        #expect(sent.stdout.contains("/_send @1 live=off ttl=default json [{\"msgContent\":{\"type\":\"link\",\"text\":\"read \(url) now\",\"preview\":{\"uri\":\"\(url)\",\"title\":\"Article\""))
        // Blocked: still sent, as plain text, with the reason.
        let plain = try run(["prepare", "--text", "read \(url) now", "--send", "@1", "--json"])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("\"kind\":\"text\"") && plain.stdout.contains("\"linkPreviewError\":{\"code\":\"blockedHost\""))
        #expect(plain.stdout.contains("\"sendLine\":\"/_send @1 live=off ttl=default json [{\\\"msgContent\\\":{\\\"type\\\":\\\"text\\\""))
    }
}

/// MEDIAPREP_TRACE: stages on stderr, nested ones indented, startup timed either way it is set.
@Suite struct TraceTests {
    static func stages(_ stderr: String) -> [(name: String, ms: Double)] {
        stderr.split(separator: "\n").compactMap { line -> (String, Double)? in
            guard line.hasPrefix("trace "), line.hasSuffix(" ms") else { return nil }
            let body = String(line.dropFirst(6).dropLast(3))  // keeps the label's indentation
            guard let cut = body.lastIndex(of: " "), let ms = Double(body[body.index(after: cut)...]) else { return nil }
            var name = String(body[..<cut])
            while name.hasSuffix(" ") { name.removeLast() }
            return (name, ms)
        }
    }

    @Test(arguments: ["1", "spawn"]) func stagesCoverAPrepare(value: String) throws {
        let out = try scratch()
        defer { try? FileManager.default.removeItem(atPath: out) }
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        let spawn = String(UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec))
        let r = try run(["prepare", testdata + "/photo.jpg", "--out", out, "--json"], env: ["MEDIAPREP_TRACE": value == "1" ? "1" : spawn])
        #expect(r.status == 0)
        let stages = Self.stages(r.stderr)
        let startup = try #require(stages.first { $0.name.hasPrefix("startup") })
        #expect(startup.name == (value == "1" ? "startup (before main, CPU)" : "startup (spawn to main)"))
        #expect(startup.ms > 0 && startup.ms < 10_000)  // "1" is not a clock reading
        for name in ["read and probe", "decode", "budget search", "write output", "report"] {
            #expect(stages.contains { $0.name == name }, "no \(name) stage")
        }
        #expect(stages.contains { $0.name.hasPrefix("  quality search at") })  // nested, indented
    }
}

/// A C library is opened when an input needs it, not by the loader at every start: `plan` opens none
/// of the codecs, a JPEG's `check` libjpeg alone, a PNG's libpng (and the zlib it needs).
@Suite struct LibrariesOnFirstUseTests {
    /// The shared objects the process initialised (glibc's loader says so with LD_DEBUG=libs).
    static func opened(_ args: [String]) throws -> [String] {
        let ran = try run(args, env: ["LD_DEBUG": "libs"])
        #expect(ran.status == 0, "\(ran.stdout)")
        return ran.stderr.split(separator: "\n").filter { $0.contains("calling init:") }.compactMap { $0.split(separator: "/").last.map(String.init) }
    }

    @Test func eachLibraryOpensWithTheFirstInputThatNeedsIt() throws {
        let codecs = ["libjpeg", "libturbojpeg", "libpng16", "libz.", "libavutil", "libavcodec", "libswscale"]
        func has(_ libs: [String], _ name: String) -> Bool { libs.contains { $0.hasPrefix(name) } }
        let plan = try Self.opened(["plan", "--size", "1000", "--kind", "image"])
        #expect(!plan.isEmpty && codecs.allSatisfy { !has(plan, $0) }, "\(plan)")
        let jpeg = try Self.opened(["check", testdata + "/photo.jpg"])
        #expect(has(jpeg, "libjpeg.so") && !has(jpeg, "libturbojpeg") && !has(jpeg, "libpng16") && !has(jpeg, "libavcodec"), "\(jpeg)")
        // A PNG's check reads its chunks in Swift; its preview is the first decode.
        let check = try Self.opened(["check", testdata + "/rgb.png"])
        #expect(codecs.allSatisfy { !has(check, $0) }, "\(check)")
        let out = try Scratch.folder("mediaprep-libs")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let png = try Self.opened(["prepare", testdata + "/rgb.png", "--out", out])
        #expect(has(png, "libpng16") && has(png, "libz."), "\(png)")
    }
}

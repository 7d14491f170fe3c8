import Foundation
import MediaPrep
import Testing
import UploadPlanner

// No @testable here: this is what a bot author's program sees.

private let testdata: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("testdata").path
}()

@Suite struct BatchPreparerAPITests {
    @Test func oneCallGivesItemsPlansMessagesAndSendLines() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-api-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = BatchOptions(outputDirectory: out, timestamp: 1_795_348_800)
        options.text = "look"
        options.quotedItemId = 42
        options.mentions = ["alice": 7]
        options.chat = .group(3)
        options.jobs = 2
        let inputs = ["photo.jpg", "h264.mp4", "voice.m4a", "truncated.mp4"].map { testdata + "/" + $0 }
        let result = await BatchPreparer(options).prepare(inputs)

        #expect(result.items.map(\.input) == inputs)
        #expect(result.items.map(\.index) == [0, 1, 2, 3])
        let prepared = result.items.compactMap { try? $0.result.get() }
        #expect(prepared.map(\.kind) == [.image, .video, .voice])
        #expect(result.summary.prepared == 3 && result.summary.failed == 1 && !result.summary.interrupted)
        let photo = try result.items[0].result.get()
        #expect(photo.bytes <= 261_120)
        #expect(photo.format == .jpeg && photo.route == .encoded)
        #expect(photo.transfer.method == .xftp)
        #expect(photo.composedMessage.msgContent.text == "")
        guard case .image(let w, let h, let quality?, let preview) = photo.media else {
            Issue.record("the photo is not an encoded image: \(photo.media)")
            return
        }
        #expect(w == 1440 && h == 1080 && quality > 50 && preview.hasPrefix("data:image/jpg;base64,") && preview.count <= 14_000)
        let voice = try result.items[2].result.get()
        #expect(voice.transfer.method == .smpInline)
        #expect(voice.composedMessage.msgContent.text == "look")
        #expect(voice.composedMessage.quotedItemId == 42)
        #expect(voice.composedMessage.mentions == ["alice": 7])
        #expect(voice.media == .voice(seconds: 5))
        switch result.items[3].result {
        case .success(let a): Issue.record("a cut-off MP4 was sent as \(a.output)")
        case .failure(let e): #expect(e.code == .unsupportedFormat || e.code == .truncated)
        }
        #expect(result.messages.count == 1 && result.messages[0].count == 3)
        #expect(result.sendLines.count == 1)
        #expect(result.sendLines[0].hasPrefix("/_send #3 live=off ttl=default json [{\"fileSource\":{\"filePath\":\"IMG_"))
        // The JSON the CLI prints comes from the same value.
        let json = result.items[0].json.serialized
        #expect(json.contains("\"transfer\":{\"method\":\"xftp\""))
    }

    @Test func aLongScreenshotComesBackAsItsAlbum() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-api-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = BatchOptions(outputDirectory: out, timestamp: 1_795_348_800)
        options.text = "read this"
        let first = try await BatchPreparer(options).prepare(file: testdata + "/screenshot-long.png")
        #expect(first.part?.index == 1 && first.part?.count == 3)
        #expect(first.laterParts.map(\.part?.index) == [2, 3])
        #expect(([first] + first.laterParts).allSatisfy { $0.bytes <= 261_120 && $0.kind == .image })
        #expect(first.laterParts.last?.composedMessage.msgContent.text == "read this" && first.composedMessage.msgContent.text == "")
        // Files, not albums, for everything else.
        let photo = try await BatchPreparer(options).prepare(file: testdata + "/small.jpg")
        #expect(photo.part == nil && photo.laterParts.isEmpty)
    }

    @Test func streamsItemsInInputOrderAndBatchesOfTen() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-api-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        var options = BatchOptions(outputDirectory: out, timestamp: 0)
        options.text = "twelve"
        options.chat = .contact(1)
        options.jobs = 3
        // Uneven work: a large photo among tiny files, so later inputs finish first.
        let names = ["photo.jpg"] + Array(repeating: "orient-3.jpg", count: 5) + ["sticker.png"] + Array(repeating: "gray.png", count: 5)
        let inputs = names.map { testdata + "/" + $0 }
        let seen = Seen()
        let summary = await BatchPreparer(options).run(.list(inputs)) { event in seen.add(event) }
        #expect(summary.prepared == 12)
        #expect(seen.items.map(\.index) == Array(0..<12))
        #expect(seen.items.map(\.input) == inputs)
        #expect(seen.batches.map(\.count) == [10, 2])
        #expect(seen.batches[0].allSatisfy { $0.msgContent.text == "" })
        #expect(seen.batches[1].last?.msgContent.text == "twelve")
        #expect(seen.lines.count == 2)
        // Names follow the input order, whatever finished first: IMG_…, IMG_…_1, … per extension.
        var counters: [String: Int] = [:]
        for item in seen.items {
            let out = try item.result.get().output
            let ext = String(out.split(separator: ".").last ?? "")
            let n = counters[ext, default: 0]
            counters[ext] = n + 1
            #expect(out.hasSuffix("/IMG_19700101_000000" + (n == 0 ? "" : "_\(n)") + "." + ext))
        }
    }

    @Test func oneFileAlone() async throws {
        let out = NSTemporaryDirectory() + "mediaprep-api-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: out) }
        let preparer = BatchPreparer(BatchOptions(outputDirectory: out, timestamp: 0))
        let clip = try await preparer.prepare(file: testdata + "/vp9.webm")
        #expect(clip.kind == .video && clip.format == .mp4 && clip.route == .encoded)
        guard case .video(_, _, let seconds, let preview) = clip.media else { throw MediaPrepError(.corrupt, "not a video") }
        #expect(seconds == 2 && !preview.isEmpty)
        let podcast = try await preparer.prepare(file: testdata + "/voice-long.ogg")
        #expect(podcast.kind == .file && podcast.media == .file)  // over 300 s: a file, not a voice message
        var voiceOnly = BatchOptions(outputDirectory: out, timestamp: 0)
        voiceOnly.media.audio = .voice
        do {
            _ = try await BatchPreparer(voiceOnly).prepare(file: testdata + "/voice-long.ogg")
            Issue.record("a 305 s voice message was prepared")
        } catch {
            #expect(error.code == .voiceTooLong)  // typed: no cast needed
        }
    }

    /// What `check` says, from the same rules `prepare` follows.
    @Test func checkSaysWhatPrepareWouldDo() {
        let check = SendCheck()
        #expect(check.check(path: testdata + "/small.jpg").verdict == .asIs)
        #expect(check.check(path: testdata + "/photo.jpg").verdict == .afterPreparation)
        #expect(check.check(path: testdata + "/voice-long.ogg").verdict == .afterPreparation)  // its ENCODER comment goes
        #expect(check.check(path: testdata + "/truncated.mp4").verdict == .cannotSend)
    }

    @Test func textAloneIsATextMessage() async {
        var options = BatchOptions(outputDirectory: NSTemporaryDirectory(), timestamp: 0)
        options.text = "hello"
        options.chat = .contact(9)
        let r = await BatchPreparer(options).prepare([])
        #expect(r.items.isEmpty)
        #expect(r.text?.url == nil && r.text?.linkPreview == nil)
        #expect(r.sendLines == ["/_send @9 live=off ttl=default json [{\"msgContent\":{\"type\":\"text\",\"text\":\"hello\"}}]"])
    }
}

private final class Seen: @unchecked Sendable {
    var items: [BatchItem] = []
    var batches: [[ComposedMessage]] = []
    var lines: [String] = []
    func add(_ e: BatchEvent) {
        switch e {
        case .item(let i): items.append(i)
        case .text: break
        case .messages(let m, let l):
            batches.append(m)
            if let l { lines.append(l) }
        }
    }
}

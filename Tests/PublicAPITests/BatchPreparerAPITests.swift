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

        #expect(result.items.map(\.item.input) == inputs)
        #expect(result.items.map(\.index) == [0, 1, 2, 3])
        #expect(result.items.map(\.item.kind) == [.image, .video, .voice, .file])
        #expect(result.summary.prepared == 3 && result.summary.failed == 1 && !result.summary.interrupted)
        let photo = result.items[0]
        #expect((photo.item.bytes ?? .max) <= 261_120)
        #expect(photo.item.format == .jpeg && photo.item.route == .encoded)
        #expect(photo.transfer?.method == .xftp)
        #expect(photo.composedMessage?.msgContent.text == "")
        let voice = result.items[2]
        #expect(voice.transfer?.method == .smpInline)
        #expect(voice.composedMessage?.msgContent.text == "look")
        #expect(voice.composedMessage?.quotedItemId == 42)
        #expect(voice.composedMessage?.mentions == ["alice": 7])
        #expect(result.items[3].composedMessage == nil && result.items[3].item.error != nil)
        #expect(result.messages.count == 1 && result.messages[0].count == 3)
        #expect(result.sendLines.count == 1)
        #expect(result.sendLines[0].hasPrefix("/_send #3 live=off ttl=default json [{\"fileSource\":{\"filePath\":\"IMG_"))
        // The JSON the CLI prints comes from the same value.
        let json = photo.json.serialized
        #expect(json.contains("\"transfer\":{\"method\":\"xftp\""))
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
        #expect(seen.items.map(\.item.input) == inputs)
        #expect(seen.batches.map(\.count) == [10, 2])
        #expect(seen.batches[0].allSatisfy { $0.msgContent.text == "" })
        #expect(seen.batches[1].last?.msgContent.text == "twelve")
        #expect(seen.lines.count == 2)
        // Names follow the input order, whatever finished first: IMG_…, IMG_…_1, … per extension.
        var counters: [String: Int] = [:]
        for item in seen.items {
            let out = try #require(item.item.output)
            let ext = String(out.split(separator: ".").last ?? "")
            let n = counters[ext, default: 0]
            counters[ext] = n + 1
            #expect(out.hasSuffix("/IMG_19700101_000000" + (n == 0 ? "" : "_\(n)") + "." + ext))
        }
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

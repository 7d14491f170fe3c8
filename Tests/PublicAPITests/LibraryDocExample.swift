import MediaPrep
import UploadPlanner
import Foundation

// docs/library.md's "A bot's batch", verbatim between the markers (LibraryDocExampleTests compares them):
// it compiles against the public API only, as a program depending on this package would.

func libraryDocExample() async {
    // BEGIN docs/library.md
    var options = BatchOptions(outputDirectory: "out")
    options.text = "photos from the trip"
    options.chat = .group(12)
    let batch = BatchPreparer(options)

    // Every item as soon as it (and all before it) is ready; each /_send line as its batch of 10 closes.
    let summary = await batch.run(.list(BatchInputs.expand(["album"]))) { event in
        switch event {
        case .item(let item):
            switch item.result {
            case .success(let a): print(item.index, a.kind, a.output, a.bytes, a.transfer.method)
            case .failure(let e): print(item.index, item.input, "error", e.code)
            }
        case .text(let message):  // no attachment: the text alone, or a link card
            print(message.summary)
        case .messages(let messages, let sendLine?):
            print("\(messages.count) messages:", sendLine.prefix(60), "…")
        case .messages:
            break
        }
    }
    print("prepared \(summary.prepared), failed \(summary.failed)")

    // One file, and what check would say about another.
    do {
        let clip = try await batch.prepare(file: "album/2026/clip.mp4")
        if case .video(let w, let h, let seconds, _) = clip.media { print(clip.output, "\(w)×\(h)", seconds, "s") }
    } catch {
        print("cannot send:", error.code, error.message)  // error is a MediaPrepError: the call throws only that
    }
    let verdict = SendCheck().check(path: "voice/hello.m4a")
    print(verdict.verdict, verdict.reasons)
    // END docs/library.md
}

import MediaPrep
import UploadPlanner

/// `mediaprep thumbnail`: a representative, upright JPEG frame of a video.
struct ThumbnailCommand: Command {
    static let name = "thumbnail"
    static let summary = "write a video's representative frame as an upright JPEG"
    static let usage = "thumbnail VIDEO -o OUT.jpg [--max-side N] [--json]"
    static let options = [
        OptionSpec(names: ["-o", "--out"], value: "OUT", help: "the JPEG to write"),
        OptionSpec(names: ["--max-side"], value: "N", help: "cap on the long side (default 1280)"),
        OptionSpec(names: ["--quality"], value: "Q", help: "JPEG quality 1–100 (default 85)"),
        OptionSpec(names: ["--json"], value: nil, help: "print one JSON document"),
    ]

    let input: String, output: String, maxSide: Int, quality: Int, json: Bool

    init(_ a: ParsedArguments) throws {
        guard a.positionals.count == 1 else { throw UsageError(message: "thumbnail takes exactly one VIDEO") }
        guard let o = a.value("-o") else { throw UsageError(message: "-o OUT is required") }
        input = a.positionals[0]
        output = o
        maxSide = Int(try a.int("--max-side", min: 16) ?? 1280)
        let q = try a.int("--quality", min: 1) ?? 85
        guard q <= 100 else { throw UsageError(message: "--quality is 1 to 100") }
        quality = Int(q)
        json = a.has("--json")
    }

    func run() -> Int32 {
        do {
            let t = try VideoThumbnailer(maxSide: maxSide).thumbnail(path: input)
            let data = try JPEGEncoder().encode(t.pixels, quality: quality)
            try OutputWriter.writeReplacing(data, to: output, protecting: input)
            if json {
                Output.json(.object([
                    .init("input", .string(input)), .init("output", .string(output)), .init("width", .int(t.pixels.width)),
                    .init("height", .int(t.pixels.height)), .init("seconds", .double((t.seconds * 1000).rounded() / 1000)),
                    .init("rotation", .int(t.rotation)), .init("bytes", .int(data.count)), .init("error", .null),
                ]))
            } else {
                Output.line("\(input) → \(output): \(t.pixels.width)×\(t.pixels.height), frame at \(String(format: "%.2f", t.seconds)) s, \(data.count) bytes")
            }
            return 0
        } catch let e as MediaPrepError {
            if json { Output.json(.object([.init("input", .string(input)), .init("output", .null), .init("error", e.json)])) }
            else { Output.error("\(input): \(e)") }
            return 1
        } catch {
            Output.error("\(input): \(error)")
            return 1
        }
    }
}

import Foundation

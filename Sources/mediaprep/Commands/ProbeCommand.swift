import MediaPrep
import UploadPlanner

/// `mediaprep probe FILE`: kind, container, codecs, size as displayed, rotation, duration.
struct ProbeCommand: Command {
    static let name = "probe"
    static let summary = "describe a file: kind, format, codecs, size as displayed, rotation, duration"
    static let usage = "probe FILE [--json]"
    static let options = [OptionSpec(names: ["--json"], value: nil, help: "print one JSON document")]

    let path: String
    let json: Bool

    init(_ a: ParsedArguments) throws {
        guard a.positionals.count == 1 else { throw UsageError(message: "probe takes exactly one FILE") }
        path = a.positionals[0]
        json = a.has("--json")
    }

    func run() -> Int32 {
        do {
            let r = try MediaProbe.probe(path: path)
            if json { Output.json(Self.json(r)) } else { Output.line(Self.text(r)) }
            return 0
        } catch let e as MediaPrepError {
            if json {
                Output.json(.object([.init("input", .string(path)), .init("error", e.json)]))
            } else {
                Output.error("\(path): \(e)")
            }
            return 1
        } catch {
            Output.error("\(path): \(error)")
            return 1
        }
    }

    static func json(_ r: ProbeResult) -> JSONValue {
        .object([
            .init("input", .string(r.path)), .init("kind", .string(r.kind.rawValue)),
            .init("format", .string(r.format.rawValue)), .init("container", .optional(r.container)),
            .init("videoCodec", .optional(r.videoCodec)), .init("audioCodec", .optional(r.audioCodec)),
            .init("width", r.width.json), .init("height", r.height.json), .init("rotation", .int(r.rotation)),
            .init("orientation", .int(r.orientation.rawValue)), .init("hasAlpha", .bool(r.hasAlpha)),
            .init("durationSeconds", r.durationSeconds.json), .init("bitRate", r.bitRate.json),
            .init("frameRate", r.frameRate.json), .init("frameCount", r.frameCount.json),
            .init("animated", .bool(r.animated)), .init("bytes", .int(r.bytes)), .init("error", .null),
        ])
    }

    static func text(_ r: ProbeResult) -> String {
        var lines = ["\(r.path): \(r.kind.rawValue) (\(r.format.rawValue)), \(r.bytes) bytes"]
        if let w = r.width, let h = r.height { lines.append("  size: \(w)×\(h) as displayed") }
        if r.orientation != .up { lines.append("  EXIF orientation: \(r.orientation.rawValue)") }
        if r.rotation != 0 { lines.append("  rotation: \(r.rotation)° clockwise") }
        if let c = r.container { lines.append("  container: \(c)") }
        if let v = r.videoCodec { lines.append("  video: \(v)" + (r.frameRate.map { String(format: " at %.2f fps", $0) } ?? "")) }
        if let a = r.audioCodec { lines.append("  audio: \(a)") }
        if let d = r.durationSeconds { lines.append(String(format: "  duration: %.3f s", d)) }
        if r.hasAlpha { lines.append("  transparency: yes") }
        if let f = r.frameCount, f > 1 { lines.append("  frames: \(f)") }
        return lines.joined(separator: "\n")
    }
}

extension MediaPrepError {
    var json: JSONValue { .object([.init("code", .string(code.rawValue)), .init("message", .string(message))]) }
}

import Foundation

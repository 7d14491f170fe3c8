import Foundation
import MediaPrep
import UploadPlanner

/// `mediaprep check`: for CI — can each file be sent as it is, after preparation, or not at all?
struct CheckCommand: Command {
    static let name = "check"
    static let summary = "say whether files can be sent as they are, after preparation, or not (exit 1 if any cannot)"
    static let usage = "check FILE... [--profile simplex|bluesky] [--json]"
    static let options = [
        OptionSpec(names: ["--profile"], value: "NAME", help: "simplex (default) or bluesky"),
        OptionSpec(names: ["--json"], value: nil, help: "print one JSON document"),
    ]

    enum Verdict: String { case asIs, afterPreparation, no }

    struct Row {
        var input: String
        var kind: String
        var bytes: Int?
        var verdict: Verdict
        var reason: String
        var preparedBytes: Int?
        var error: MediaPrepError?
    }

    let inputs: [String], profile: ImageProfile, json: Bool
    /// Bluesky's video lexicon maxSize; SimpleX sends any file up to 1 GiB by XFTP.
    static let blueskyVideoLimit = 50_000_000

    init(_ a: ParsedArguments) throws {
        guard !a.positionals.isEmpty else { throw UsageError(message: "check needs at least one FILE") }
        inputs = a.positionals
        let name = a.value("--profile") ?? "simplex"
        guard let p = ImageProfile.named(name) else { throw UsageError(message: "unknown profile \(name)") }
        profile = p
        json = a.has("--json")
    }

    func run() -> Int32 {
        let rows = inputs.map(check)
        if json {
            Output.json(.array(rows.map { r in
                .object([
                    .init("input", .string(r.input)), .init("kind", .string(r.kind)), .init("bytes", r.bytes.json),
                    .init("verdict", .string(r.verdict.rawValue)), .init("reason", .string(r.reason)),
                    .init("preparedBytes", r.preparedBytes.json), .init("error", r.error?.json ?? .null),
                ])
            }))
        } else {
            for r in rows {
                let v = r.verdict == .asIs ? "ok as it is" : (r.verdict == .afterPreparation ? "ok after preparation" : "CANNOT be sent")
                Output.line("\(r.input): \(v) — \(r.reason)")
            }
        }
        return rows.contains { $0.verdict == .no } ? 1 : 0
    }

    func check(_ path: String) -> Row {
        var row = Row(input: path, kind: "file", verdict: .no, reason: "")
        do {
            let p = try MediaProbe.probe(path: path)
            row.kind = p.kind.rawValue
            row.bytes = p.bytes
            let limits = SimplexLimits.simplex
            let fileLimit = profile.name == "bluesky" ? Int64(Self.blueskyVideoLimit) : limits.maxFileSizeXFTP
            switch p.kind {
            case .image:
                let prepared = try ImagePreparer(profile: profile).prepare(path: path)
                row.preparedBytes = prepared.data.count
                if prepared.route == .untouched {
                    row.verdict = .asIs
                    row.reason = "within \(profile.maxBytes) bytes, upright, no metadata"
                } else {
                    row.verdict = .afterPreparation
                    row.reason = Self.why(p, profile) + "; prepared: \(prepared.data.count) bytes \(prepared.width)×\(prepared.height)"
                }
            case .animatedImage:
                let limit = profile.name == "bluesky" ? profile.maxBytes : limits.maxImageSizeAutoReceive
                row.verdict = p.bytes <= limit || profile.name == "simplex" ? .asIs : .no
                row.reason = p.bytes <= limits.maxImageSizeAutoReceive ? "animated GIF, sent as it is, auto-received"
                    : "animated GIF over \(limit) bytes" + (profile.name == "simplex" ? ": sent as it is, recipients must accept it" : "")
            case .video, .file:
                if Int64(p.bytes) > fileLimit {
                    row.reason = "\(p.bytes) bytes is over the \(fileLimit)-byte limit"
                } else {
                    row.verdict = .asIs
                    row.reason = "\(p.bytes) bytes within the \(fileLimit)-byte limit"
                }
            case .voice:
                let d = p.durationSeconds ?? 0
                if d > Double(limits.maxVoiceMessageSeconds) {
                    row.reason = String(format: "%.1f s is over the %d s voice limit", d, limits.maxVoiceMessageSeconds)
                } else {
                    row.verdict = .asIs
                    row.reason = String(format: "%.1f s voice note", d) + (p.bytes <= limits.maxVoiceSizeAutoReceive ? ", auto-received" : "")
                }
            }
        } catch let e as MediaPrepError {
            row.error = e
            row.reason = "\(e.code.rawValue): \(e.message)"
        } catch {
            row.reason = "\(error)"
        }
        return row
    }

    static func why(_ p: ProbeResult, _ profile: ImageProfile) -> String {
        var r: [String] = []
        if p.bytes > profile.maxBytes { r.append("\(p.bytes) bytes is over \(profile.maxBytes)") }
        if let w = p.width, let h = p.height, let cap = profile.maxSide, max(w, h) > cap { r.append("\(max(w, h)) px is over \(cap)") }
        if p.orientation != .up { r.append("needs EXIF rotation") }
        if p.format != .jpeg { r.append("\(p.format.rawValue) is re-encoded") }
        return r.isEmpty ? "metadata to strip" : r.joined(separator: ", ")
    }
}

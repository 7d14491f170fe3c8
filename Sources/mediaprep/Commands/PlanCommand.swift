import UploadPlanner

/// `mediaprep plan`: the transfer SimpleX would choose for a file of a given size and kind.
struct PlanCommand: Command {
    static let name = "plan"
    static let summary = "show how a file of SIZE bytes would travel: inline SMP, SMP or XFTP, and its chunks"
    static let usage = "plan --size BYTES --kind KIND [--name NAME] [--recipients N] [--no-xftp] [--encrypted] [--json]"
    static let options = [
        OptionSpec(names: ["--size"], value: "BYTES", help: "file size in bytes"),
        OptionSpec(names: ["--kind"], value: "KIND", help: "image, animatedImage, video, voice or file"),
        OptionSpec(names: ["--name"], value: "NAME", help: "file name (its UTF-8 length is in the XFTP header)"),
        OptionSpec(names: ["--recipients"], value: "N", help: "1 for a contact (default), the member count for a group"),
        OptionSpec(names: ["--no-xftp"], value: nil, help: "XFTP is not available: SMP only, up to 8,000,000 bytes"),
        OptionSpec(names: ["--encrypted"], value: nil, help: "the local file is encrypted (always XFTP)"),
        OptionSpec(names: ["--json"], value: nil, help: "print one JSON document"),
    ]

    let size: Int64, kind: UploadContentKind, name: String, recipients: Int, xftp: Bool, encrypted: Bool, json: Bool

    init(_ a: ParsedArguments) throws {
        guard a.positionals.isEmpty else { throw UsageError(message: "plan takes no FILE; give --size and --kind") }
        guard let s = try a.int("--size", min: 0) else { throw UsageError(message: "--size is required") }
        guard let k = a.value("--kind") else { throw UsageError(message: "--kind is required") }
        guard let kind = UploadContentKind(argument: k) else { throw UsageError(message: "unknown kind \(k)") }
        size = s
        self.kind = kind
        name = a.value("--name") ?? FileNaming.name(kind: kind, unixSeconds: 0, ext: Self.defaultExtension(kind))
        recipients = Int(try a.int("--recipients", min: 0) ?? 1)
        xftp = !a.has("--no-xftp")
        encrypted = a.has("--encrypted")
        json = a.has("--json")
    }

    static func defaultExtension(_ k: UploadContentKind) -> String {
        switch k {
        case .image: return "jpg"
        case .animatedImage: return "gif"
        case .video: return "mp4"
        case .voice: return "m4a"
        case .file: return "bin"
        }
    }

    func run() -> Int32 {
        let p = TransferPlanner(xftpAvailable: xftp).plan(size: size, kind: kind, fileName: name,
                                                          recipients: recipients, encrypted: encrypted)
        if json {
            Output.json(.object([.init("size", .int(size)), .init("kind", .string(kind.rawValue)),
                                 .init("name", .string(name)), .init("recipients", .int(recipients)),
                                 .init("transfer", p.json)]))
        } else {
            Output.line(Self.describe(p, size: size))
        }
        return p.method == .rejected ? 1 : 0
    }

    static func describe(_ p: TransferPlan, size: Int64) -> String {
        switch p.method {
        case .rejected: return "rejected: \(p.reason ?? "over a limit")"
        case .smpInline: return "SMP, sent inline with the message (\(p.smpChunks) chunk\(p.smpChunks == 1 ? "" : "s") of 15780 bytes)"
        case .smp:
            let mode = p.inlineMode.map { "inline \($0.rawValue)" } ?? "not inline"
            return "SMP after acceptance, \(mode), \(p.smpChunks) chunks of 15780 bytes"
        case .xftp:
            var groups: [(Int64, Int)] = []
            for c in p.chunkSizes {
                if let last = groups.last, last.0 == c { groups[groups.count - 1].1 += 1 } else { groups.append((c, 1)) }
            }
            let chunks = groups.map { "\($0.1) × \($0.0 / 1024) KiB" }.joined(separator: " + ")
            return "XFTP: \(chunks) = \(p.encryptedSize) bytes encrypted (\(p.padding) bytes padding), \(p.recipientKeys) recipient keys per chunk"
        }
    }
}

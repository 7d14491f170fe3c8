import UploadPlanner

/// `mediaprep plan`: the transfer SimpleX would choose for a file of a given size and kind.
struct PlanCommand: Command {
    static let name = "plan"
    static let summary = "show how a file of SIZE bytes would travel: inline SMP, SMP or XFTP, and its chunks"
    static let positionals = ""

    enum Option: CommandOption {
        case size, kind, name, recipients, noXFTP, encrypted, json
        var spec: OptionSpec {
            switch self {
            case .size: return OptionSpec(names: ["--size"], value: "BYTES", help: "file size: bytes, or with a unit (5MB, 1.5GiB, 300k)", required: true)
            case .kind: return OptionSpec(names: ["--kind"], value: "KIND", help: "image, animatedImage, video, voice or file", required: true)
            case .name: return OptionSpec(names: ["--name"], value: "NAME", help: "file name (its UTF-8 length is in the XFTP header)")
            case .recipients: return OptionSpec(names: ["--recipients"], value: "N", help: "1 for a contact (default), the member count for a group")
            case .noXFTP: return OptionSpec(names: ["--no-xftp"], value: nil, help: "XFTP is not available: SMP only, up to 8,000,000 bytes")
            case .encrypted: return OptionSpec(names: ["--encrypted"], value: nil, help: "the local file is encrypted (always XFTP)")
            case .json: return Bulk.json
            }
        }
    }

    let size: Int64, kind: UploadContentKind, fileName: String, recipients: Int, xftp: Bool, encrypted: Bool, json: Bool

    init(_ a: Arguments<Option>) throws {
        guard a.positionals.isEmpty else { throw UsageError(message: "plan takes no FILE; give --size and --kind") }
        guard let text = a.value(.size) else { throw UsageError(message: "--size is required") }
        guard let s = ByteSize.parse(text) else { throw UsageError(message: "--size takes bytes or a size with a unit (5MB, 1.5GiB), got \(text)") }
        guard let k = a.value(.kind) else { throw UsageError(message: "--kind is required") }
        guard let kind = UploadContentKind(argument: k) else { throw UsageError(message: "unknown kind \(k)") }
        size = s
        self.kind = kind
        fileName = a.value(.name) ?? FileNaming.name(kind: kind, unixSeconds: 0, ext: Self.defaultExtension(kind))
        recipients = Int(try a.int(.recipients, min: 0) ?? 1)
        xftp = !a.has(.noXFTP)
        encrypted = a.has(.encrypted)
        json = a.has(.json)
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

    func run() async -> Int32 { answer() }

    func runNow() -> Int32? { answer() }

    private func answer() -> Int32 {
        let p = TransferPlanner(xftpAvailable: xftp).plan(size: size, kind: kind, fileName: fileName,
                                                          recipients: recipients, encrypted: encrypted)
        if json {
            Output.json(.object([.init("size", .int(size)), .init("kind", .string(kind.rawValue)),
                                 .init("name", .string(fileName)), .init("recipients", .int(recipients)),
                                 .init("transfer", p.json)]))
        } else {
            Output.line(p.summary)
        }
        return p.method == .rejected ? 1 : 0
    }
}

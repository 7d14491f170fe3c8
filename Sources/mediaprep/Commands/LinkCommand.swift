import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// `mediaprep link`: the card SimpleX shows for a URL, fetched with a bot's safety limits.
struct LinkCommand: Command {
    static let name = "link"
    static let summary = "make the link preview (title, description, image) SimpleX sends for a URL"
    static let positionals = "URL"

    enum Option: CommandOption {
        case allowPrivateHosts, timeout, json
        var spec: OptionSpec {
            switch self {
            case .allowPrivateHosts: return OptionSpec(names: ["--allow-private-hosts"], value: nil, help: "allow loopback, private and link-local addresses")
            case .timeout: return OptionSpec(names: ["--timeout"], value: "SECONDS", help: "limit for the whole preview (default 15)")
            case .json: return Bulk.json
            }
        }
    }

    let url: String, options: LinkPreviewer.Options, json: Bool

    init(_ a: Arguments<Option>) throws {
        guard a.positionals.count == 1 else { throw UsageError(message: "link takes exactly one URL") }
        url = a.positionals[0]
        var o = LinkPreviewer.Options()
        o.allowPrivateHosts = a.has(.allowPrivateHosts)
        if let t = try a.int(.timeout, min: 1, max: 600) { o.totalTimeout = TimeInterval(t) }
        options = o
        json = a.has(.json)
    }

    func run() async -> Int32 {
        do {
            let p = try await LinkPreviewer(options: options).preview(url: url)
            if json {
                Output.json(.object([.init("input", .string(url)), .init("preview", p.json), .init("error", .null)]))
            } else {
                Output.line("\(p.title)\n\(p.description.isEmpty ? "(no description)" : p.description)\nimage: \(p.image.count) characters (\(p.image.prefix(22))…)")
            }
            return 0
        } catch {
            let e = (error as? MediaPrepError) ?? MediaPrepError(.fetchFailed, "\(error)")
            if json { Output.json(.object([.init("input", .string(url)), .init("preview", .null), .init("error", e.json)])) }
            else { Output.error("\(url): \(e)") }
            return 1
        }
    }
}

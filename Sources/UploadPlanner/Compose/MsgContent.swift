/// The chat core's MsgContent (Protocol.hs), one case per message type the compose bar sends.
public enum MsgContent: Sendable, Equatable {
    case text(String)
    case image(text: String, image: String)
    case video(text: String, image: String, duration: Int)
    case voice(text: String, duration: Int)
    case file(text: String)
    case link(text: String, preview: LinkPreview)

    public var text: String {
        switch self {
        case .text(let t), .image(let t, _), .video(let t, _, _), .voice(let t, _), .file(let t), .link(let t, _): return t
        }
    }

    /// The same content carrying different text (only the last message of a batch has any).
    public func withText(_ t: String) -> MsgContent {
        switch self {
        case .text: return .text(t)
        case .image(_, let i): return .image(text: t, image: i)
        case .video(_, let i, let d): return .video(text: t, image: i, duration: d)
        case .voice(_, let d): return .voice(text: t, duration: d)
        case .file: return .file(text: t)
        case .link(_, let p): return .link(text: t, preview: p)
        }
    }

    public var typeName: String {
        switch self {
        case .text: return "text"
        case .image: return "image"
        case .video: return "video"
        case .voice: return "voice"
        case .file: return "file"
        case .link: return "link"
        }
    }
}

/// A link card's data, as `{"uri","title","description","image"}`.
public struct LinkPreview: Sendable, Equatable, Codable {
    public var uri: String
    public var title: String
    public var description: String
    public var image: String

    public init(uri: String, title: String, description: String, image: String) {
        self.uri = uri
        self.title = title
        self.description = description
        self.image = image
    }
}

extension MsgContent: JSONRepresentable {
    public var json: JSONValue {
        var m: [JSONValue.Member] = [.init("type", .string(typeName)), .init("text", .string(text))]
        switch self {
        case .text, .file: break
        case .image(_, let i): m.append(.init("image", .string(i)))
        case .video(_, let i, let d): m += [.init("image", .string(i)), .init("duration", .int(d))]
        case .voice(_, let d): m.append(.init("duration", .int(d)))
        case .link(_, let p): m.append(.init("preview", p.json))
        }
        return .object(m)
    }
}

extension LinkPreview: JSONRepresentable {
    /// `{uri, title, description, image}` in the core's field order.
    public var json: JSONValue {
        .object([
            .init("uri", .string(uri)), .init("title", .string(title)),
            .init("description", .string(description)), .init("image", .string(image)),
        ])
    }
}

extension MsgContent: Codable {
    private enum Keys: String, CodingKey { case type, text, image, duration, preview }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let text = try c.decodeIfPresent(String.self, forKey: .text) ?? ""
        switch try c.decode(String.self, forKey: .type) {
        case "text": self = .text(text)
        case "image": self = .image(text: text, image: try c.decode(String.self, forKey: .image))
        case "video":
            self = .video(text: text, image: try c.decode(String.self, forKey: .image),
                          duration: try c.decode(Int.self, forKey: .duration))
        case "voice": self = .voice(text: text, duration: try c.decode(Int.self, forKey: .duration))
        case "file": self = .file(text: text)
        case "link": self = .link(text: text, preview: try c.decode(LinkPreview.self, forKey: .preview))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown type \(other)")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(typeName, forKey: .type)
        try c.encode(text, forKey: .text)
        switch self {
        case .text, .file: break
        case .image(_, let i): try c.encode(i, forKey: .image)
        case .video(_, let i, let d): try c.encode(i, forKey: .image); try c.encode(d, forKey: .duration)
        case .voice(_, let d): try c.encode(d, forKey: .duration)
        case .link(_, let p): try c.encode(p, forKey: .preview)
        }
    }
}

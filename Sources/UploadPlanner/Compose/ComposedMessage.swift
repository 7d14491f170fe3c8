/// One element of the array `/_send … json` takes (Controller.hs ComposedMessage).
public struct ComposedMessage: Sendable, Equatable, Codable {
    public struct FileSource: Sendable, Equatable, Codable {
        public var filePath: String
        public init(filePath: String) { self.filePath = filePath }
    }

    public var fileSource: FileSource?
    public var quotedItemId: Int64?
    public var msgContent: MsgContent
    /// Display name → group member id; empty means the key is left out.
    public var mentions: [String: Int64]

    public init(fileSource: FileSource? = nil, quotedItemId: Int64? = nil, msgContent: MsgContent,
                mentions: [String: Int64] = [:]) {
        self.fileSource = fileSource
        self.quotedItemId = quotedItemId
        self.msgContent = msgContent
        self.mentions = mentions
    }

    private enum Keys: String, CodingKey { case fileSource, quotedItemId, msgContent, mentions }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        fileSource = try c.decodeIfPresent(FileSource.self, forKey: .fileSource)
        quotedItemId = try c.decodeIfPresent(Int64.self, forKey: .quotedItemId)
        msgContent = try c.decode(MsgContent.self, forKey: .msgContent)
        mentions = try c.decodeIfPresent([String: Int64].self, forKey: .mentions) ?? [:]
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encodeIfPresent(fileSource, forKey: .fileSource)
        try c.encodeIfPresent(quotedItemId, forKey: .quotedItemId)
        try c.encode(msgContent, forKey: .msgContent)
        if !mentions.isEmpty { try c.encode(mentions, forKey: .mentions) }
    }
}

extension ComposedMessage: JSONRepresentable {
    /// Keys in the order SPEC section 3 shows; optional keys are omitted, mentions sorted by name.
    public var json: JSONValue {
        var m: [JSONValue.Member] = []
        if let f = fileSource { m.append(.init("fileSource", .object([.init("filePath", .string(f.filePath))]))) }
        if let q = quotedItemId { m.append(.init("quotedItemId", .int(q))) }
        m.append(.init("msgContent", msgContent.json))
        if !mentions.isEmpty {
            m.append(.init("mentions", .object(mentions.keys.sorted().map { .init($0, .int(mentions[$0] ?? 0)) })))
        }
        return .object(m)
    }
}

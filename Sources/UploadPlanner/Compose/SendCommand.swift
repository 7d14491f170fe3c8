/// The chat CLI's `/_send` command line for a batch of composed messages.
public struct SendCommand: Sendable, Equatable {
    public enum Chat: Sendable, Equatable {
        case contact(Int64)
        case group(Int64)
    }

    public let chat: Chat
    public let messages: [ComposedMessage]

    public init(chat: Chat, messages: [ComposedMessage]) {
        self.chat = chat
        self.messages = messages
    }

    /// Parses `@12` (contact) or `#5` (group).
    public static func parseChat(_ s: String) throws -> Chat {
        guard let first = s.first, let id = Int64(s.dropFirst()), id >= 0 else {
            throw ComposeError(code: .invalidRecipient, message: "expected @CONTACT_ID or #GROUP_ID, got \(s)")
        }
        switch first {
        case "@": return .contact(id)
        case "#": return .group(id)
        default: throw ComposeError(code: .invalidRecipient, message: "expected @CONTACT_ID or #GROUP_ID, got \(s)")
        }
    }

    public var line: String {
        let ref: String
        switch chat {
        case .contact(let id): ref = "@\(id)"
        case .group(let id): ref = "#\(id)"
        }
        return "/_send \(ref) live=off ttl=default json " + JSONValue.array(messages.map(\.json)).serialized
    }
}

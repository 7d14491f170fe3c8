/// A failure to build messages from what the user composed.
public struct ComposeError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: String, Sendable { case tooManyMedia, tooManyMentions, invalidRecipient }
    public let code: Code
    public let message: String
    public var description: String { "\(code.rawValue): \(message)" }
}

/// Turns attachments plus text into the messages the app would send.
public struct MessageComposer: Sendable {
    /// A prepared attachment: where its file is and its content without text.
    public struct Attachment: Sendable, Equatable {
        public var filePath: String?
        public var content: MsgContent
        public init(filePath: String?, content: MsgContent) {
            self.filePath = filePath
            self.content = content
        }
    }

    public var limits: SimplexLimits
    public init(limits: SimplexLimits = .simplex) { self.limits = limits }

    /// One message per attachment; as the iOS app does, only the last one carries the
    /// text, the quote and the mentions. No attachments: a single text message.
    public func compose(_ attachments: [Attachment], text: String = "", quotedItemId: Int64? = nil,
                        mentions: [String: Int64] = [:]) throws -> [ComposedMessage] {
        guard attachments.count <= limits.maxMediaPerMessage else {
            throw ComposeError(code: .tooManyMedia,
                               message: "\(attachments.count) attachments; at most \(limits.maxMediaPerMessage) per message")
        }
        guard mentions.count <= limits.maxMentions else {
            throw ComposeError(code: .tooManyMentions, message: "\(mentions.count) mentions; at most \(limits.maxMentions)")
        }
        if attachments.isEmpty {
            return [ComposedMessage(quotedItemId: quotedItemId, msgContent: .text(text), mentions: mentions)]
        }
        return attachments.enumerated().map { i, a in
            Self.message(a, last: i == attachments.count - 1, text: text, quotedItemId: quotedItemId, mentions: mentions)
        }
    }

    /// One attachment's message: as the iOS app does, only the last of a send carries the text, the
    /// quote and the mentions (a batch that streams its messages calls this as each one is known).
    public static func message(_ a: Attachment, last: Bool, text: String, quotedItemId: Int64?,
                               mentions: [String: Int64]) -> ComposedMessage {
        ComposedMessage(fileSource: a.filePath.map { .init(filePath: $0) }, quotedItemId: last ? quotedItemId : nil,
                        msgContent: a.content.withText(last ? text : ""), mentions: last ? mentions : [:])
    }
}

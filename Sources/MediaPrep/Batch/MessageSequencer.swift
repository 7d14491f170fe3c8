import UploadPlanner

/// Gives each prepared item its message in input order and closes batches of 10.
///
/// Only the very last message carries the text, quote and mentions, so when there are any the
/// newest sendable item (and whatever failed after it) waits until a later one proves it is not last.
struct MessageSequencer {
    let options: BatchOptions
    private var waiting: [BatchItem] = []
    private var group: [ComposedMessage] = []

    init(options: BatchOptions) { self.options = options }

    /// Items now ready to hand out, and batches now complete.
    mutating func add(_ item: BatchItem) -> [BatchEvent] {
        var out: [BatchEvent] = []
        guard item.item.content != nil, item.item.error == nil else {
            if waiting.isEmpty { out.append(.item(item)) } else { waiting.append(item) }
            return out
        }
        if !waiting.isEmpty { out += release(last: false) }
        if options.lastMessageIsSpecial {
            waiting = [item]
        } else {
            out += finish(item, last: false)
        }
        return out
    }

    /// At the end of the input: the held item is the last one; the open batch closes.
    mutating func close() -> [BatchEvent] {
        var out = release(last: true)
        if !group.isEmpty {
            out.append(batch(group))
            group = []
        }
        return out
    }

    /// Whether any input became a message (if not, text alone makes a text message).
    private(set) var sentAny = false

    private mutating func release(last: Bool) -> [BatchEvent] {
        guard let first = waiting.first else { return [] }
        var out = finish(first, last: last)
        out += waiting.dropFirst().map { .item($0) }
        waiting = []
        return out
    }

    private mutating func finish(_ item: BatchItem, last: Bool) -> [BatchEvent] {
        var item = item
        let it = item.item
        let attachment = MessageComposer.Attachment(filePath: it.output.map(fileName), content: it.content ?? .file(text: ""))
        let message = MessageComposer.message(attachment, last: last, text: options.text, quotedItemId: options.quotedItemId,
                                              mentions: options.mentions)
        item.composedMessage = message
        sentAny = true
        group.append(message)
        var out: [BatchEvent] = [.item(item)]
        if group.count == options.limits.maxMediaPerMessage, !last {
            out.append(batch(group))
            group = []
        }
        return out
    }

    func batch(_ messages: [ComposedMessage]) -> BatchEvent {
        .messages(messages, sendLine: options.chat.map { SendCommand(chat: $0, messages: messages).line })
    }

    /// The file's path inside the files folder (the output folder): its name, or with `--resume` the
    /// path below the output folder it was mirrored to.
    func fileName(_ path: String) -> String {
        let root = options.outputDirectory.hasSuffix("/") ? options.outputDirectory : options.outputDirectory + "/"
        if options.resumeName != nil, path.hasPrefix(root) { return String(path.dropFirst(root.count)) }
        return Self.fileName(path)
    }

    /// The app's fileSource names a file inside its files folder: the name alone.
    static func fileName(_ path: String) -> String {
        FilePath.lastComponent(path)
    }
}

import UploadPlanner

/// A message without attachments: plain text, or a link card when the text has a URL. A failed
/// preview never fails the message: the text goes as `text`, and `previewError` says why.
public struct TextMessage: Sendable {
    public var composedMessage: ComposedMessage
    /// The URL a preview was tried for: the first link that is not a SimpleX link.
    public var url: String?
    public var linkPreview: LinkPreview?
    public var previewError: MediaPrepError?

    static func make(options o: BatchOptions) async -> TextMessage {
        var content = MsgContent.text(o.text)
        let url = o.linkPreviews == nil ? nil : LinkFinder.firstPreviewable(in: o.text)
        var preview: LinkPreview? = nil
        var failure: MediaPrepError? = nil
        if let url, let previewOptions = o.linkPreviews {
            do {
                let p = try await LinkPreviewer(options: previewOptions).preview(url: url)
                preview = p
                content = .link(text: o.text, preview: p)
            } catch let e as MediaPrepError {
                failure = e
            } catch {
                failure = MediaPrepError(.fetchFailed, "\(error)")
            }
        }
        let message = ComposedMessage(quotedItemId: o.quotedItemId, msgContent: content, mentions: o.mentions)
        return TextMessage(composedMessage: message, url: url, linkPreview: preview, previewError: failure)
    }

    /// The object `prepare --json` prints for a text-only message (kind `text` or `link`).
    public var json: JSONValue {
        .object([
            .init("input", .null), .init("kind", .string(linkPreview == nil ? "text" : "link")),
            .init("url", .optional(url)), .init("linkPreview", linkPreview?.json ?? .null),
            .init("linkPreviewError", previewError?.json ?? .null),
            .init("composedMessage", composedMessage.json), .init("error", .null),
        ])
    }

    /// The line `prepare` prints for it.
    public var summary: String {
        if let p = linkPreview { return "link message: \(p.title) (\(p.uri)); preview image \(p.image.count) chars" }
        if let url, let e = previewError { return "text message; no preview for \(url): \(e.code.rawValue): \(e.message)" }
        return "text message"
    }
}

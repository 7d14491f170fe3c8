import UploadPlanner

/// One input made ready to send: every field is there, so a bot needs no optional-chasing.
public struct PreparedAttachment: Sendable, Equatable {
    /// Where the file to send is (a new name in the output folder; inputs are never touched).
    public let output: String
    public let kind: UploadContentKind
    public let bytes: Int
    /// jpeg/png for prepared images, mp4/m4a for transcodes, else the input's own format.
    public let format: MediaFormat
    /// How much of the original survived: its own bytes, a lossless change, or a new encode.
    public let route: PrepareRoute
    /// Recipients download it without asking (SimpleX's *_AUTO_RCV limits).
    public let autoReceive: Bool
    public let transfer: TransferPlan
    /// The message that sends it; a batch's text, quote and mentions ride on its last message.
    public let composedMessage: ComposedMessage
    public let media: Media
    /// A long screenshot split into an album: which part this is (nil: the input is one attachment).
    public let part: Part?
    /// From `BatchPreparer.prepare(file:)`, the parts after this one, in order (a batch lists each
    /// part as its own item instead).
    public internal(set) var laterParts: [PreparedAttachment] = []

    /// Part `index` (from 1) of `count`, sent in that order as one album.
    public struct Part: Sendable, Equatable {
        public let index: Int
        public let count: Int
    }

    /// What the message shows beside the file.
    public enum Media: Sendable, Equatable {
        /// `quality` is the JPEG quality chosen, nil when the input's own data was kept or it is a PNG.
        case image(width: Int, height: Int, quality: Int?, preview: String)
        /// Whole seconds, truncated, as the app shows them.
        case video(width: Int, height: Int, seconds: Int, preview: String)
        /// Whole seconds, rounded.
        case voice(seconds: Int)
        case file
    }
}

extension BatchItem {
    /// The input as it was given.
    public var input: String { item.input }

    /// The prepared attachment, or why this input cannot be sent (the rest of the batch went on).
    public var result: Result<PreparedAttachment, MediaPrepError> {
        let it = item
        if let e = it.error { return .failure(e) }
        guard let output = it.output, let bytes = it.bytes, let route = it.route, let transfer, let message = composedMessage else {
            return .failure(MediaPrepError(.cancelled, "\(it.input) was not finished"))
        }
        let media: PreparedAttachment.Media
        switch it.kind {
        case .image, .animatedImage:
            media = .image(width: it.width ?? 0, height: it.height ?? 0, quality: it.quality, preview: it.preview ?? "")
        case .video:
            media = .video(width: it.width ?? 0, height: it.height ?? 0, seconds: it.durationSeconds ?? 0, preview: it.preview ?? "")
        case .voice: media = .voice(seconds: it.durationSeconds ?? 0)
        case .file: media = .file
        }
        return .success(PreparedAttachment(output: output, kind: it.kind, bytes: bytes, format: it.format ?? .unknown, route: route,
                                           autoReceive: it.autoReceive ?? false, transfer: transfer, composedMessage: message,
                                           media: media, part: it.part.map { PreparedAttachment.Part(index: $0.index, count: $0.of) }))
    }
}

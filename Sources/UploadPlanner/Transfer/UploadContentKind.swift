/// The compose bar's UploadContent cases; the kind decides inline rules and file naming.
public enum UploadContentKind: String, Sendable, Codable, CaseIterable {
    case image
    case animatedImage
    case video
    case voice
    case file

    /// Accepts the CLI spellings, including SimpleX's own `simpleImage`.
    public init?(argument: String) {
        switch argument {
        case "image", "simpleImage": self = .image
        case "animatedImage", "gif": self = .animatedImage
        case "video": self = .video
        case "voice": self = .voice
        case "file": self = .file
        default: return nil
        }
    }
}

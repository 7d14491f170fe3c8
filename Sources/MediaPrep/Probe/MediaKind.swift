/// What the compose bar would make of a file; matches UploadContent's cases.
public enum MediaKind: String, Sendable, Codable {
    case image, animatedImage, video, voice, file
}

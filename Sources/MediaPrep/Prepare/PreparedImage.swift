/// The image file to send, its inline preview, and how it was made.
public struct PreparedImage: Sendable {
    public typealias Route = PrepareRoute

    public let data: [UInt8]
    public let format: EncodedImage.Format
    public let width: Int
    public let height: Int
    public let quality: Int?
    public let route: Route
    public let preview: String
    public let sourceFormat: MediaFormat
}

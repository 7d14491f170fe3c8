/// The image file to send, its inline preview, and how it was made.
public struct PreparedImage: Sendable {
    /// How much of the original survived.
    public enum Route: String, Sendable {
        /// Already within budget, upright and without metadata: the original bytes.
        case untouched
        /// Within budget and upright: metadata segments cut out, pixels bit-identical.
        case stripped
        /// Within budget but turned by Exif: rotated/flipped in the DCT domain, no re-encoding.
        case rotated
        /// Decoded, resized and encoded by the budget search.
        case encoded
    }

    public let data: [UInt8]
    public let format: EncodedImage.Format
    public let width: Int
    public let height: Int
    public let quality: Int?
    public let route: Route
    public let preview: String
    public let sourceFormat: MediaFormat
}

/// A prepared image file's bytes and what the search chose.
public struct EncodedImage: Sendable {
    public enum Format: String, Sendable { case jpeg, png }
    public let data: [UInt8]
    public let format: Format
    public let width: Int
    public let height: Int
    /// JPEG quality used (nil for PNG).
    public let quality: Int?
    /// In-process SSIM against the view-size reference, when the search measured it.
    public let score: Double?
}

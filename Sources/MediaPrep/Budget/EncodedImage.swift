/// A prepared image file's bytes and what the search chose.
package struct EncodedImage: Sendable {
    package enum Format: String, Sendable { case jpeg, png }
    package let data: [UInt8]
    package let format: Format
    package let width: Int
    package let height: Int
    /// JPEG quality used (nil for PNG).
    package let quality: Int?
    /// In-process SSIM against the view-size reference, when the search measured it.
    package let score: Double?
}

/// The image file to send, its inline preview, and how it was made.
package struct PreparedImage: Sendable {
    package typealias Route = PrepareRoute

    package let data: [UInt8]
    package let format: EncodedImage.Format
    package let width: Int
    package let height: Int
    package let quality: Int?
    package let route: Route
    package let preview: String
    package let sourceFormat: MediaFormat
    /// What the content check found (nil: kept as it is, or sent as PNG).
    package var content: ContentDetector.Verdict? = nil
    /// Transparent pixels composited onto this colour (0xRRGGBB): it left as JPEG.
    package var flattenedOnto: UInt32? = nil
}

/// What a decoder hands the pipeline: pixels as stored plus what is needed to show them upright.
public struct DecodedImage: Sendable {
    public var pixels: PixelBuffer
    public let format: MediaFormat
    /// Size of the stored image before any shrink-on-load or orientation.
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let orientation: ExifOrientation

    /// Size as a viewer shows it: orientation applied, no shrink-on-load.
    public var displayWidth: Int { orientation.swapsDimensions ? sourceHeight : sourceWidth }
    public var displayHeight: Int { orientation.swapsDimensions ? sourceWidth : sourceHeight }
}

/// Options shared by every decoder.
public struct DecodeOptions: Sendable {
    /// Refuse images with more pixels than this after shrink-on-load, to bound memory.
    public var maxPixels: Int
    /// The smallest size (stored orientation) the caller still needs; lets JPEG shrink on load.
    public var minimumWidth: Int?
    public var minimumHeight: Int?

    public init(maxPixels: Int = 100_000_000, minimumWidth: Int? = nil, minimumHeight: Int? = nil) {
        self.maxPixels = maxPixels
        self.minimumWidth = minimumWidth
        self.minimumHeight = minimumHeight
    }
}

/// What a decoder hands the pipeline: pixels as stored plus what is needed to show them upright.
package struct DecodedImage: Sendable {
    package var pixels: PixelBuffer
    package let format: MediaFormat
    /// Size of the stored image before any shrink-on-load or orientation.
    package let sourceWidth: Int
    package let sourceHeight: Int
    package let orientation: ExifOrientation
    /// The ICC profile FFmpeg's decoder reported (GIF, BMP, TIFF frame side data), if any.
    package var iccProfile: [UInt8]? = nil

    /// Size as a viewer shows it: orientation applied, no shrink-on-load.
    package var displayWidth: Int { orientation.swapsDimensions ? sourceHeight : sourceWidth }
    package var displayHeight: Int { orientation.swapsDimensions ? sourceWidth : sourceHeight }
}

/// Options shared by every decoder.
package struct DecodeOptions: Sendable {
    /// The source's colour profile: a CMYK JPEG's is applied while converting to RGB.
    package var colour: SourceColour?
    /// Refuse images with more pixels than this after shrink-on-load, to bound memory.
    package var maxPixels: Int
    /// The smallest size (stored orientation) the caller still needs; lets JPEG shrink on load.
    package var minimumWidth: Int?
    package var minimumHeight: Int?
    /// Both sides of the minimum, when it is set.
    var minimum: (width: Int, height: Int)? { minimumWidth.flatMap { w in minimumHeight.map { (width: w, height: $0) } } }
    /// Threads a decode may use: with two, a progressive JPEG's luma and chroma scans are decoded
    /// at once (`ProgressiveSplit`).
    package var threads = 1
    /// The file itself is sent (a PNG kept as it is): its image data is inflated by libpng's zlib,
    /// as recipients' decoders do, never by libdeflate, which accepts some streams zlib refuses
    /// (found by fuzzing: an invalid code zlib stops at, with a checksum that still matched).
    package var sentAsItIs = false
    /// A JPEG the DCT would halve on load is decoded whole and halved by Lanczos as its rows come,
    /// not by libjpeg's scaled IDCT: that IDCT filters each 8×8 block
    /// on its own, and on detailed photos cost 0.015–0.018 SSIM at the same size and quality
    /// (garden-noisy-5640 sent at 2500 px: 0.878 against 0.897; elephants-3840 at 1600: 0.869
    /// against 0.883; 12 MP photos 0.002–0.004; smooth wallpapers nothing). Set for what is sent
    /// when the file holds much such detail (`JPEGDecoder.holdsFineDetail`); not for previews and probes.
    package var lanczosShrink = false

    /// Shrink-on-load's one rule where a decoder halves (a large WebP, an HDR still, a raw's mosaic): the
    /// largest power of two, at most `most`, that keeps the picture, its sides rounded up, at least
    /// `minimum` either way round (a minimum may be the picture's as shown, turned from how it is stored).
    static func halving(width w: Int, height h: Int, minimum: (width: Int, height: Int)?, most: Int = 1 << 30) -> Int {
        guard let m = minimum else { return 1 }
        let (long, short) = (max(m.width, m.height), min(m.width, m.height))
        var d = 1
        while 2 * d <= min(most, max(w, h)) {
            let (a, b) = ((w + 2 * d - 1) / (2 * d), (h + 2 * d - 1) / (2 * d))
            guard max(a, b) >= long, min(a, b) >= short else { break }
            d *= 2
        }
        return d
    }

    package init(maxPixels: Int = 100_000_000, minimumWidth: Int? = nil, minimumHeight: Int? = nil) {
        self.maxPixels = maxPixels
        self.minimumWidth = minimumWidth
        self.minimumHeight = minimumHeight
    }
}

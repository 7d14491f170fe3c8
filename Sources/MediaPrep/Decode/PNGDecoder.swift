import CPng

/// PNG through libpng: the row API for plain 8-bit files, the simplified API (palette, gray,
/// 16-bit, interlace and gamma handled) for the rest.
package enum PNGDecoder {
    package static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        if let rows = try decodeWhileResizing(data, options: options, to: { _, _ in nil }) { return rows.decoded }
        return try decodeSimplified(data, options: options)
    }

    static func checkSize(_ w: Int, _ h: Int, _ options: DecodeOptions) throws {
        guard w > 0, h > 0 else { throw MediaPrepError(.invalidDimensions, "PNG has zero size") }
        guard !w.multipliedReportingOverflow(by: h).overflow, w * h <= options.maxPixels else {
            throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(options.maxPixels)-pixel limit")
        }
    }

    /// The simplified API: 16-bit, interlaced and non-sRGB-gamma files (converted to 8-bit sRGB).
    static func decodeSimplified(_ data: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        var image = png_image()
        image.version = cpng_version()
        defer { PNGLibrary.png.png_image_free(&image) }
        let begun = data.withUnsafeBufferPointer {
            PNGLibrary.png.png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count)
        }
        guard begun != 0 else { throw pngError(image, data: data) }
        let w = Int(image.width), h = Int(image.height)
        try checkSize(w, h, options)
        let hasAlpha = image.format & cpng_format_flag_alpha() != 0
        let isColor = image.format & cpng_format_flag_color() != 0
        let layout: PixelLayout = hasAlpha ? .rgba : (isColor ? .rgb : .gray)
        image.format = layout == .rgba ? cpng_format_rgba() : (layout == .rgb ? cpng_format_rgb() : cpng_format_gray())
        var out = PixelBuffer.storage(w * h * layout.channels)
        let done = data.withUnsafeBufferPointer { _ in
            out.withUnsafeMutableBufferPointer {
                PNGLibrary.png.png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
            }
        }
        guard done != 0 else { throw pngError(image, data: data) }
        return DecodedImage(pixels: PixelBuffer(width: w, height: h, layout: layout, storage: out),
                            format: .png, sourceWidth: w, sourceHeight: h,
                            orientation: PNGChunks.exifOrientation(data))
    }

    private static func pngError(_ image: png_image, data: [UInt8]) -> MediaPrepError {
        var m = image.message
        let text = withUnsafeBytes(of: &m) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return damage(text, data: data)
    }

    /// libpng's message as a typed error: a file cut short is `truncated`, anything else `corrupt`.
    /// - Parameter data: the whole file, when in memory (no IEND in it: truncated).
    static func damage(_ text: String, data: [UInt8]?) -> MediaPrepError {
        let lower = text.lowercased()
        let truncated = lower.contains("read error") || lower.contains("not enough") || lower.contains("truncat")
            || lower.contains("unexpected end") || data.map { !PNGChunks.hasEnd($0) } == true
        return MediaPrepError(truncated ? .truncated : .corrupt, "PNG data is damaged: \(text)")
    }
}

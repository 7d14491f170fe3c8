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
        defer { png_image_free(&image) }
        let begun = data.withUnsafeBufferPointer {
            png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count)
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
                png_image_finish_read(&image, nil, $0.baseAddress, 0, nil)
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

/// The few PNG chunks read by hand: eXIf for orientation, IEND to tell truncation from damage.
enum PNGChunks {
    /// The chunks wholly in `data` (body and CRC), through IEND.
    static func chunks(_ data: [UInt8]) -> [(type: String, body: Range<Int>)] { walk(data, wholeOnly: true) }

    /// Chunks in order while their 8-byte headers are in `data`; unless `wholeOnly`, the last one's
    /// body may run past its end (a file's head).
    /// - Parameter last: the chunk type the walk ends with.
    private static func walk(_ data: [UInt8], wholeOnly: Bool, through last: String = "IEND") -> [(type: String, body: Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        var i = 8
        while i + 8 <= data.count {
            let len = Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
            let type = String(decoding: data[(i + 4)..<(i + 8)], as: UTF8.self)
            let end = i + 8 + len
            if wholeOnly && end + 4 > data.count { break }
            out.append((type, (i + 8)..<end))
            if type == last || type == "IEND" { break }
            i = end + 4
        }
        return out
    }

    /// The chunks before the image data that `head` holds (IHDR, PLTE, tRNS, iCCP, eXIf…), through the first IDAT.
    static func beforeImageData(_ head: [UInt8]) -> [(type: String, body: Range<Int>)] { walk(head, wholeOnly: false, through: "IDAT") }

    static func hasEnd(_ data: [UInt8]) -> Bool { chunks(data).contains { $0.type == "IEND" } }

    /// Whether `head` reaches the first IDAT chunk's header: every chunk before the image data is in it.
    static func reachesImageData(_ head: [UInt8]) -> Bool { beforeImageData(head).contains { $0.type == "IDAT" } }

    static func exifOrientation(_ data: [UInt8]) -> ExifOrientation {
        for c in chunks(data) {
            if c.type == "eXIf" { return ExifOrientation.fromTIFF(data[c.body]) }
            if c.type == "IDAT" { break }  // eXIf must come before image data
        }
        return .up
    }
}

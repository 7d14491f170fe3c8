import CTiff

/// TIFF and BigTIFF through libtiff's RGBA interface: every compression, layout and bit depth, the
/// first page, its own orientation and ICC profile. FFmpeg's decoder read neither BigTIFF (sent as an
/// unknown file, metadata and all) nor the orientation tag (a scan turned on its side came out turned).
enum TIFFDecoder {
    private struct Table: @unchecked Sendable { let table: ctiff }
    private static let loaded: Result<Table, MediaPrepError> = Trace.noteTime("loaded libtiff") {
        DynamicTable.load(ctiff_libraries(), ctiff_symbols(), as: ctiff.self, failing: .codecUnavailable, "libtiff is").map(Table.init)
    }

    /// No single allocation of libtiff's above this: a strip or tile buffer, a table (the raster is ours,
    /// checked against `maxPixels` first).
    static let maxAllocation = 256 << 20

    /// Decodes the file `file` (read with pread as libtiff asks: never whole in memory).
    static func decode(_ file: InputFile, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        try file.withDescriptor { fd in try decode(data: nil, fd: fd, size: file.size, options: options) }
    }

    /// Decodes bytes in memory (libtiff reads them in place).
    static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        return try data.withUnsafeBufferPointer { try decode(data: $0.baseAddress, fd: -1, size: $0.count, options: options) }
    }

    private static func decode(data: UnsafePointer<UInt8>?, fd: Int32, size: Int, options: DecodeOptions) throws -> DecodedImage {
        var t = try loaded.get().table
        let image = UnsafeMutablePointer<ctiff_image>.allocate(capacity: 1)
        defer {
            ctiff_close(&t, image)
            image.deallocate()
        }
        guard ctiff_open(&t, image, data, fd, UInt64(size), Int64(maxAllocation)) == 0 else {
            if image.pointee.raw_only != 0 { throw rawOnly }
            if image.pointee.camera_raw != 0 { throw cameraRaw }
            throw damage(image)
        }
        let (w, h) = (Int(image.pointee.width), Int(image.pointee.height))
        guard w > 0, h > 0 else { throw MediaPrepError(.invalidDimensions, "TIFF has zero size") }
        guard !w.multipliedReportingOverflow(by: h).overflow, w * h <= options.maxPixels else {
            throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(options.maxPixels)-pixel limit")
        }
        let icc = image.pointee.icc.map { Array(UnsafeBufferPointer(start: $0, count: Int(image.pointee.icc_size))) }
        let orientation = ExifOrientation(rawValue: Int(image.pointee.orientation)) ?? .up
        // Only a profile whose header says CMYK is looked into here; an RGB one is the probe's to inspect, once.
        let cmykProfile = icc.flatMap { $0.count >= 20 && Bytes.ascii($0, 16, 4) == "CMYK" ? SourceColour.inspect($0) : nil }
        if image.pointee.cmyk != 0, let cmykProfile {
            // Its inks through its own profile, as a CMYK JPEG's (libtiff's RGBA is 255 − ink, times 255 − black:
            // a print TIFF with the SWOP profile was off by 21 levels on average against Little CMS).
            var inks = PixelBuffer.storage(w * h * 4)
            let read = inks.withUnsafeMutableBufferPointer { p in p.baseAddress.map { ctiff_read_cmyk(&t, image, $0) } ?? -1 }
            guard read == 0 else { throw damage(image) }
            var decoded = DecodedImage(pixels: try CMYKConverter.toRGB(inks, width: w, height: h, profile: cmykProfile.profile, adobeInverted: false),
                                       format: .tiff, sourceWidth: w, sourceHeight: h, orientation: orientation)
            decoded.iccProfile = icc
            return decoded
        }
        var rgba = PixelBuffer.storage(w * h * 4)
        let read = rgba.withUnsafeMutableBytes { raw in
            raw.baseAddress.map { ctiff_read_rgba(&t, image, $0.assumingMemoryBound(to: UInt32.self)) } ?? -1
        }
        guard read == 0 else { throw damage(image) }
        var pixels = PixelBuffer(width: w, height: h, layout: .rgba, storage: rgba)
        pixels = !AlphaOps.hasRealAlpha(pixels) ? AlphaOps.dropX(pixels) : image.pointee.premultiplied != 0 ? AlphaOps.unpremultiplied(pixels) : pixels
        // libtiff's RGBA is associated whatever an RGB file holds (ImageMagick's RGB TIFFs, alpha on white
        // against the source: 12.8 → 0.46 mean error with associated alpha, which FFmpeg read as
        // unassociated; 0.46 → 0.49 with unassociated, the rounding), a gray one's as the file holds it.
        var decoded = DecodedImage(pixels: pixels, format: .tiff, sourceWidth: w, sourceHeight: h, orientation: orientation)
        // A CMYK profile libtiff's own conversion did not use says nothing about these RGB pixels.
        decoded.iccProfile = cmykProfile == nil ? icc : nil
        return decoded
    }

    /// Sensor data in a TIFF that is no DNG: a camera maker's raw (Nikon NEF, Sony ARW, Pentax PEF…),
    /// whose directories libtiff renders are a thumbnail or a preview at best; LibRaw reads it.
    static let cameraRaw = MediaPrepError(.unsupportedFormat, "a camera maker's raw photo (sensor data in a TIFF that is no DNG), which LibRaw reads")

    /// A DNG with nothing libtiff renders: sensor data alone (Android's DngCreator without a thumbnail).
    static let rawOnly = MediaPrepError(.codecUnavailable, "this DNG holds raw sensor data only (no rendered image or preview), which needs demosaicing")

    /// libtiff's first message as a typed error: data that ends early is `truncated`, the rest `corrupt`.
    private static func damage(_ image: UnsafeMutablePointer<ctiff_image>) -> MediaPrepError {
        let text = withUnsafeBytes(of: image.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let lower = text.lowercased()
        if lower.contains("memory allocation") || lower.contains("out of memory") {
            return MediaPrepError(.overLimit, "TIFF needs more memory than allowed: \(text)")
        }
        let cut = lower.contains("read error") || lower.contains("seek error") || lower.contains("unexpected end") || lower.contains("past end")
        return MediaPrepError(cut ? .truncated : .corrupt, "TIFF data is damaged: \(text)")
    }
}

import CTiff

/// TIFF and BigTIFF through libtiff's RGBA interface: every compression, layout and bit depth, the
/// first page, its own orientation and ICC profile. FFmpeg's decoder read neither BigTIFF (sent as an
/// unknown file, metadata and all) nor the orientation tag (a scan turned on its side came out turned).
enum TIFFDecoder {
    private static let loaded: Result<DynamicTable.Shared<ctiff>, MediaPrepError> = Trace.noteTime("loaded libtiff") {
        DynamicTable.load(ctiff_libraries(), ctiff_symbols(), as: ctiff.self, failing: .codecUnavailable, "libtiff is").map(DynamicTable.Shared.init)
    }

    /// No single allocation of libtiff's above this: a strip or tile buffer, a table (the raster is ours,
    /// checked against `maxPixels` first).
    static let maxAllocation = 256 << 20

    /// What a probe needs of a TIFF, read from its first directory's tags without decoding a pixel:
    /// a TIFF libtiff will not render (floating-point samples, an unknown photometric) is refused here,
    /// before anything is allocated for it.
    struct Header: Sendable {
        let width: Int
        let height: Int
        let orientation: ExifOrientation
        /// Its ICC profile, unless it is a CMYK profile libtiff's RGBA does not use.
        let iccProfile: [UInt8]?
        /// An alpha extra sample: it may be transparent.
        let mayHaveAlpha: Bool
    }

    static func header(_ file: InputFile, maxPixels: Int) throws -> Header {
        try file.withDescriptor { fd in
            try withImage(data: nil, fd: fd, size: file.size, maxPixels: maxPixels) { t, image, w, h in
                let icc = image.pointee.icc.map { Array(UnsafeBufferPointer(start: $0, count: Int(image.pointee.icc_size))) }
                // As `decode` reads it: 8-bit CMYK through its own CMYK profile, else libtiff's RGBA, for which
                // a CMYK profile says nothing.
                let profileIsCMYK = icc.map { $0.count >= 20 && Bytes.ascii($0, 16, 4) == "CMYK" } == true
                let throughProfile = image.pointee.cmyk != 0 && profileIsCMYK
                if !throughProfile { guard ctiff_rgba_ok(&t, image) == 0 else { throw damage(image) } }
                return Header(width: w, height: h, orientation: ExifOrientation(rawValue: Int(image.pointee.orientation)) ?? .up,
                              iccProfile: profileIsCMYK && !throughProfile ? nil : icc, mayHaveAlpha: image.pointee.alpha != 0)
            }
        }
    }

    /// Decodes the file `file` (read with pread as libtiff asks: never whole in memory).
    static func decode(_ file: InputFile, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        try file.withDescriptor { fd in try decode(data: nil, fd: fd, size: file.size, options: options) }
    }

    /// Decodes bytes in memory (libtiff reads them in place).
    static func decode(_ data: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        return try data.withUnsafeBufferPointer { try decode(data: $0.baseAddress, fd: -1, size: $0.count, options: options) }
    }

    /// The image opened, its size checked against `maxPixels`, handed to `body`; closed on every path.
    private static func withImage<T>(data: UnsafePointer<UInt8>?, fd: Int32, size: Int, maxPixels: Int,
                                     _ body: (inout ctiff, UnsafeMutablePointer<ctiff_image>, Int, Int) throws -> T) throws -> T {
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
        guard !w.multipliedReportingOverflow(by: h).overflow, w * h <= maxPixels else {
            throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(maxPixels)-pixel limit")
        }
        return try body(&t, image, w, h)
    }

    private static func decode(data: UnsafePointer<UInt8>?, fd: Int32, size: Int, options: DecodeOptions) throws -> DecodedImage {
        try withImage(data: data, fd: fd, size: size, maxPixels: options.maxPixels) { t, image, w, h in
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
            // Refused before the raster is allocated (a float TIFF committed 399 MB first).
            guard ctiff_rgba_ok(&t, image) == 0 else { throw damage(image) }
            let factor = DecodeOptions.halving(width: w, height: h, minimum: options.minimum)
            var pixels: PixelBuffer
            if factor > 1 {
                pixels = try shrinking(&t, image, width: w, height: h, factor: factor)
                if !AlphaOps.hasRealAlpha(pixels) { pixels = AlphaOps.dropX(pixels) }
            } else {
                var rgba = PixelBuffer.storage(w * h * 4)
                let read = rgba.withUnsafeMutableBytes { raw in
                    raw.baseAddress.map { ctiff_read_rgba(&t, image, $0.assumingMemoryBound(to: UInt32.self)) } ?? -1
                }
                guard read == 0 else { throw damage(image) }
                pixels = PixelBuffer(width: w, height: h, layout: .rgba, storage: rgba)
                pixels = !AlphaOps.hasRealAlpha(pixels) ? AlphaOps.dropX(pixels) : image.pointee.premultiplied != 0 ? AlphaOps.unpremultiplied(pixels) : pixels
            }
            // libtiff's RGBA is associated whatever an RGB file holds (ImageMagick's RGB TIFFs, alpha on white
            // against the source: 12.8 → 0.46 mean error with associated alpha, which FFmpeg read as
            // unassociated; 0.46 → 0.49 with unassociated, the rounding), a gray one's as the file holds it.
            var decoded = DecodedImage(pixels: pixels, format: .tiff, sourceWidth: w, sourceHeight: h, orientation: orientation)
            // A CMYK profile libtiff's own conversion did not use says nothing about these RGB pixels.
            decoded.iccProfile = cmykProfile == nil ? icc : nil
            return decoded
        }
    }

    /// A band's raster at most: a strip (or tile row) taller than this is read in bands of this
    /// size, libtiff decoding the strip from its start for each (a 10000-row single strip, 1-bit: 6
    /// bands of 1,677 rows, the whole raster was 400 MB; 5760×4320 deflated in one strip: 2 bands,
    /// 0.41 s whole against 0.46 s).
    static let bandBytes = 64 << 20

    /// Shrink-on-load: each `factor`×`factor` block averaged (its colour weighted by its alpha) as the
    /// bands come, into straight RGBA of the sides divided by `factor`, rounded up; the whole picture
    /// is never held. A 12 KB 10000×10000 1-bit TIFF took 686 MB decoded whole. A band is a whole
    /// number of strips (or tile rows): libtiff decodes every strip a band touches.
    private static func shrinking(_ t: inout ctiff, _ image: UnsafeMutablePointer<ctiff_image>, width w: Int, height h: Int,
                                  factor k: Int) throws -> PixelBuffer {
        let (ow, oh) = ((w + k - 1) / k, (h + k - 1) / k)
        let stored = Int(image.pointee.rows_per_band), most = max(1, bandBytes / (4 * w))
        var band = stored > 0 && stored <= most ? max(stored, most / stored * stored) : most
        band = min(h, (band + k - 1) / k * k)
        var raster = [UInt32](repeating: 0, count: w * band)
        var out = PixelBuffer.storage(ow * oh * 4)
        var sums = [UInt64](repeating: 0, count: ow * 4)
        var counts = [Int](repeating: 0, count: ow)
        let premultiplied = image.pointee.premultiplied != 0
        var row = 0
        while row < h {
            let rows = min(band, h - row)
            let read = raster.withUnsafeMutableBufferPointer { p in p.baseAddress.map { ctiff_read_rgba_rows(&t, image, $0, UInt32(row), UInt32(rows)) } ?? -1 }
            guard read == 0 else { throw damage(image) }
            let shift = k.trailingZeroBitCount  // `factor` is a power of two
            for y in 0..<rows {
                let sourceRow = row + y
                raster.withUnsafeBufferPointer { r in
                    sums.withUnsafeMutableBufferPointer { sum in
                        guard let line = r.baseAddress.map({ $0 + y * w }), let sum = sum.baseAddress else { return }
                        for x in 0..<w {
                            let p = line[x]  // R, G, B, A bytes in memory order (TIFFGetR… of a little-endian word)
                            let a = UInt64(p >> 24)
                            var (cr, cg, cb) = (UInt64(p & 0xFF), UInt64(p >> 8 & 0xFF), UInt64(p >> 16 & 0xFF))
                            if !premultiplied && a != 255 { (cr, cg, cb) = (cr * a / 255, cg * a / 255, cb * a / 255) }
                            let o = sum + (x >> shift) << 2
                            o[0] += cr; o[1] += cg; o[2] += cb; o[3] += a
                        }
                    }
                }
                for ox in 0..<ow { counts[ox] += min(k, w - ox * k) }
                guard (sourceRow + 1) % k == 0 || sourceRow == h - 1 else { continue }
                let oy = sourceRow / k
                for ox in 0..<ow {
                    let o = ox * 4, n = UInt64(max(1, counts[ox])), alpha = sums[o + 3]
                    for c in 0..<3 { out[(oy * ow + ox) * 4 + c] = alpha == 0 ? 0 : UInt8(min(255, (sums[o + c] * 255 + alpha / 2) / alpha)) }
                    out[(oy * ow + ox) * 4 + 3] = UInt8(alpha / n)  // rounded down: a block not all opaque stays so
                }
                for i in sums.indices { sums[i] = 0 }
                for i in counts.indices { counts[i] = 0 }
            }
            row += rows
        }
        return PixelBuffer(width: ow, height: oh, layout: .rgba, storage: out)
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

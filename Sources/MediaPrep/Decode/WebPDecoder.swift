import CWebP

/// libwebp's still decoder, opened the first time a still WebP arrives.
enum LibWebP {
    private static let loaded: Result<DynamicTable.Shared<cwebpdec>, MediaPrepError> = Trace.noteTime("loaded libwebp") {
        DynamicTable.load(cwebpdec_libraries(), cwebpdec_symbols(), as: cwebpdec.self, failing: .codecUnavailable, "libwebp is").flatMap { t in
            withUnsafePointer(to: t) { cwebpdec_abi_matches($0) } != 0 ? .success(DynamicTable.Shared(table: t))
                : .failure(MediaPrepError(.codecUnavailable, "libwebp is not the version mediaprep was built with"))
        }
    }

    static func table() throws -> cwebpdec { try loaded.get().table }
}

/// A still WebP through libwebp: the header read without decoding anything, then one decode,
/// shrunk on load by libwebp's rescaler when the caller needs fewer pixels (libvips's webpload
/// does the same). FFmpeg 5.1's decoder, used before, decoded a 21 MP WebP twice (once to probe it)
/// at its full size: 1.5 s and 212 MiB where vips takes 0.43 s and 56 MiB.
enum WebPDecoder {
    struct Header: Sendable {
        let width: Int
        let height: Int
        /// The header says so (VP8X's flag, or a lossless image's); the pixels may still be opaque.
        let hasAlpha: Bool
        let isAnimated: Bool
        /// VP8L: captured without loss (a screenshot or graphics saved as WebP), so it may go lossless.
        let isLossless: Bool
    }

    /// The header alone (VP8X, or the VP8/VP8L frame header); refuses what libwebp cannot read.
    static func header(_ data: [UInt8]) throws -> Header {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        let lib = try LibWebP.table()
        var f = WebPBitstreamFeatures()
        let status = withUnsafePointer(to: lib) { t in
            data.withUnsafeBufferPointer { cwebpdec_features(t, $0.baseAddress, $0.count, &f) }
        }
        guard status == 0 else { throw error(status, "the WebP header cannot be read") }
        guard f.width > 0, f.height > 0 else { throw MediaPrepError(.invalidDimensions, "the WebP has no size") }
        return Header(width: Int(f.width), height: Int(f.height), hasAlpha: f.has_alpha != 0, isAnimated: f.has_animation != 0,
                      isLossless: f.format == 2)
    }

    /// The size the pipeline decodes this WebP at (`shrinkingOnLoad`).
    static func decodedSize(_ h: Header, profile: ImageProfile) -> (width: Int, height: Int) {
        decodedSize(h, options: shrinkingOnLoad(h, profile: profile, DecodeOptions()))
    }

    /// `options` letting the decode shrink to the profile's view, only for a WebP too large to be sent
    /// at its own size (as a PNG is shrunk on load): libwebp's rescaler averages areas, and before
    /// Lanczos halving loses detail that decoding whole keeps. Six WebPs made from the corpora
    /// (`cwebp -q 80`, garden `-q 85`), shrunk on load against decoded whole: SSIM −0.0002 to
    /// −0.007, elephants −0.020. Decoded whole by libwebp against FFmpeg (which decoded them twice):
    /// the same or +0.0003, at half the memory and 2.3–3.4× faster (a 21 MP WebP 1.46 → 0.62 s,
    /// 212 → 98 MiB; shrunk on load, as it is past 4096², 0.49–0.52 s and 52–54 MiB, vips 0.43 s
    /// and 56 MiB).
    static func shrinkingOnLoad(_ h: Header, profile: ImageProfile, _ options: DecodeOptions) -> DecodeOptions {
        guard h.width * h.height > profile.maxSentPixels else { return options }
        var o = options
        let view = profile.viewSize(width: h.width, height: h.height)
        (o.minimumWidth, o.minimumHeight) = (view.width, view.height)
        return o
    }

    /// The size `decode` produces: halved while both sides stay at or above the minimum (as the
    /// JPEG's DCT scaling and a large PNG's shrink-on-load do), or the file's own size.
    static func decodedSize(_ h: Header, options: DecodeOptions) -> (width: Int, height: Int) {
        let d = DecodeOptions.halving(width: h.width, height: h.height, minimum: options.minimum)
        return ((h.width + d - 1) / d, (h.height + d - 1) / d)
    }

    /// Decoded at `decodedSize`: RGBA when the header says there is alpha, else RGB. Its colour
    /// profile is the probe's (`WebPChunks.iccProfile`). Every size is checked against the pixel limit first.
    static func decode(_ data: [UInt8], options: DecodeOptions) throws -> DecodedImage {
        let h = try header(data)
        guard !h.isAnimated else { throw MediaPrepError(.unsupportedFormat, "an animated WebP is not a still image") }
        let (w, ht) = decodedSize(h, options: options)
        guard w * ht <= options.maxPixels else {
            throw MediaPrepError(.tooManyPixels, "\(h.width)×\(h.height) is over the \(options.maxPixels)-pixel limit")
        }
        let layout: PixelLayout = h.hasAlpha ? .rgba : .rgb
        let stride = w * layout.channels
        var out = PixelBuffer.storage(stride * ht)
        let lib = try LibWebP.table()
        let status = withUnsafePointer(to: lib) { t in
            data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    cwebpdec_decode(t, d.baseAddress, d.count, h.hasAlpha ? 1 : 0, (w, ht) == (h.width, h.height) ? 0 : 1, Int32(w), Int32(ht),
                                    Int32(clamping: options.threads), o.baseAddress, Int32(stride), o.count)
                }
            }
        }
        guard status == 0 else { throw error(status, "the WebP image cannot be decoded") }
        return DecodedImage(pixels: PixelBuffer(width: w, height: ht, layout: layout, storage: out), format: .webp,
                            sourceWidth: h.width, sourceHeight: h.height, orientation: .up)
    }

    /// libwebp's VP8StatusCode as one of ours.
    static func error(_ status: Int32, _ what: String) -> MediaPrepError {
        switch status {
        case 1: return MediaPrepError(.outOfMemory, "\(what): libwebp ran out of memory")
        case 4: return MediaPrepError(.unsupportedFormat, "\(what): a feature libwebp does not support")
        case 5, 7: return MediaPrepError(.truncated, "\(what): the file ends too soon")
        default: return MediaPrepError(.corrupt, "\(what) (libwebp status \(status))")
        }
    }
}

import CJxl

/// libjxl's entry points, opened the first time a JPEG XL picture arrives.
enum LibJxl {
    private static let loaded: Result<DynamicTable.Shared<cjxl>, MediaPrepError> = Trace.noteTime("loaded libjxl") {
        DynamicTable.load(cjxl_libraries(), cjxl_symbols(), as: cjxl.self, failing: .codecUnavailable, "libjxl is").map(DynamicTable.Shared.init)
    }

    static func table() throws -> cjxl { try loaded.get().table }
}

/// JPEG XL through libjxl: upright (libjxl applies the codestream's orientation), 8-bit RGB(A),
/// with the ICC profile of the decoded data for the colour step.
enum JXLDecoder {
    struct Result: Sendable {
        let image: DecodedImage
        let iccProfile: [UInt8]?
    }

    /// What the codestream's header says, read without decoding a pixel: the size as shown (its
    /// orientation applied), whether it has alpha, and the ICC profile of the decoded data.
    struct Header: Sendable {
        let width: Int
        let height: Int
        let hasAlpha: Bool
        let iccProfile: [UInt8]?
        /// PQ or HLG data and its primaries (H.273): mapped to SDR as an HDR HEIF is (`HDRStill`), not
        /// through its ICC profile, which Little CMS renders relative to 10,000 cd/m² (SDR white came
        /// out 38 of 255).
        var hdr: (transfer: HDRToSDR.Transfer, primaries: Int)? = nil
    }

    static func header(_ data: [UInt8], maxPixels: Int) throws -> Header {
        try run(data, maxPixels: maxPixels, pixels: false).header
    }

    /// - Parameter minimum: an HDR picture is halved while it stays at least this (`HDRStill`).
    static func decode(_ data: [UInt8], maxPixels: Int, minimum: (width: Int, height: Int)? = nil) throws -> Result {
        let r = try run(data, maxPixels: maxPixels, pixels: true, minimum: minimum)
        guard let image = r.image else { throw MediaPrepError(.corrupt, "the JPEG XL file holds no image") }
        return Result(image: image, iccProfile: r.header.iccProfile)
    }

    /// libjxl's events up to the colour encoding (`pixels` false) or the whole image.
    private static func run(_ data: [UInt8], maxPixels: Int, pixels wantPixels: Bool,
                            minimum: (width: Int, height: Int)? = nil) throws -> (header: Header, image: DecodedImage?) {
        var jxl = try LibJxl.table()
        guard let dec = jxl.JxlDecoderCreate(nil) else { throw MediaPrepError(.decodeFailed, "out of memory") }
        defer { jxl.JxlDecoderDestroy(dec) }
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | (wantPixels ? JXL_DEC_FULL_IMAGE.rawValue : 0))
        guard jxl.JxlDecoderSubscribeEvents(dec, events) == JXL_DEC_SUCCESS else { throw MediaPrepError(.decodeFailed, "libjxl refused its set-up") }
        // Colour stored premultiplied by alpha (JPEG XL's alpha_premultiplied) comes out straight, as the pipeline works.
        guard jxl.JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE) == JXL_DEC_SUCCESS else { throw MediaPrepError(.decodeFailed, "libjxl refused its set-up") }
        var info = JxlBasicInfo()
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var pixels: [UInt8] = []
        var icc: [UInt8]? = nil
        var hdr: (transfer: HDRToSDR.Transfer, primaries: Int)? = nil
        // Orientation is applied: the decoded sides are the shown ones (swapped for 5–8).
        func header() -> Header {
            let swap = info.orientation.rawValue >= 5
            let (w, h) = swap ? (Int(info.ysize), Int(info.xsize)) : (Int(info.xsize), Int(info.ysize))
            return Header(width: w, height: h, hasAlpha: info.alpha_bits > 0, iccProfile: hdr == nil ? icc : nil, hdr: hdr)
        }
        return try data.withUnsafeBufferPointer { input -> (header: Header, image: DecodedImage?) in
            guard jxl.JxlDecoderSetInput(dec, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                throw MediaPrepError(.decodeFailed, "libjxl refused the input")
            }
            // The input is not marked closed: without box events libjxl finds the end of the frames
            // itself, and a file cut short then asks for more input (`truncated`) instead of failing.
            while true {
                let status = jxl.JxlDecoderProcessInput(dec)
                switch status {
                case JXL_DEC_BASIC_INFO:
                    guard jxl.JxlDecoderGetBasicInfo(dec, &info) == JXL_DEC_SUCCESS, info.xsize > 0, info.ysize > 0 else {
                        throw MediaPrepError(.corrupt, "the JPEG XL header cannot be read")
                    }
                    guard Int(info.xsize) * Int(info.ysize) <= maxPixels else {
                        throw MediaPrepError(.tooManyPixels, "\(info.xsize)×\(info.ysize) is over the \(maxPixels)-pixel limit")
                    }
                    format.num_channels = info.alpha_bits > 0 ? 4 : 3
                case JXL_DEC_COLOR_ENCODING:
                    (icc, hdr) = colour(&jxl, dec)
                    if hdr != nil { format.data_type = JXL_TYPE_UINT16 }
                    try admit(Int(info.xsize), Int(info.ysize), channels: Int(format.num_channels), hdr: hdr != nil, fileBytes: data.count)
                    if !wantPixels { return (header(), nil) }
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    var size = 0
                    guard jxl.JxlDecoderImageOutBufferSize(dec, &format, &size) == JXL_DEC_SUCCESS else {
                        throw MediaPrepError(.corrupt, "the JPEG XL image has no usable size")
                    }
                    pixels = PixelBuffer.storage(size)
                    let rc = pixels.withUnsafeMutableBytes { jxl.JxlDecoderSetImageOutBuffer(dec, &format, $0.baseAddress, size) }
                    guard rc == JXL_DEC_SUCCESS else { throw MediaPrepError(.corrupt, "libjxl refused the output buffer") }
                case JXL_DEC_FULL_IMAGE, JXL_DEC_SUCCESS:
                    guard !pixels.isEmpty else { throw MediaPrepError(.corrupt, "the JPEG XL file holds no image") }
                    let h = header()
                    return (h, try image(pixels, format, h, minimum: minimum))
                case JXL_DEC_NEED_MORE_INPUT:
                    throw MediaPrepError(.truncated, "the JPEG XL file is cut off")
                default:
                    throw MediaPrepError(.corrupt, "the JPEG XL data is damaged")
                }
            }
        }
    }

    /// What a decode may cost: a file under 1 MB 300 MB, any file 1 GB (docs/hostile-input.md).
    static let memoryLimit = (smallFile: 1_000_000, small: 300_000_000, any: 1_000_000_000)

    /// Refuses, from the header, a picture whose decode would cost more than `memoryLimit`: libjxl 0.7
    /// decodes the whole frame (no shrink-on-load) and holds 2.8 bytes a pixel of its own beside the
    /// output (peak RSS: 9000×9000 flat, 11 KB, 490 MB; a 5760×4320 photo, 0.96 MB, 165 MB; 22 MB of
    /// it the process). Its memory manager sees none of that in 0.7, so the header is the only bound.
    static func admit(_ width: Int, _ height: Int, channels: Int, hdr: Bool, fileBytes: Int) throws {
        // An HDR picture is decoded in 16 bits, then mapped to an 8-bit one.
        let perPixel = 2.8 + Double(channels * (hdr ? 3 : 1))
        let cost = Double(width) * Double(height) * perPixel + 24_000_000
        let small = fileBytes < memoryLimit.smallFile
        let limit = small ? memoryLimit.small : memoryLimit.any
        guard cost <= Double(limit) else {
            throw MediaPrepError(.tooManyPixels, "decoding this \(width)×\(height) JPEG XL whole (libjxl cannot shrink it on load) would take "
                + "\(Int(cost / 1e6)) MB, over the \(limit / 1_000_000) MB \(small ? "a file under 1 MB" : "a picture") may cost")
        }
    }

    /// The colour encoding: its ICC profile, and PQ or HLG with its primaries (then decoded in 16 bits).
    private static func colour(_ jxl: inout cjxl, _ dec: OpaquePointer) -> ([UInt8]?, (transfer: HDRToSDR.Transfer, primaries: Int)?) {
        var icc: [UInt8]? = nil
        var size = 0
        if cjxl_icc(&jxl, dec, nil, &size) == JXL_DEC_SUCCESS, size > 0 {
            var profile = [UInt8](repeating: 0, count: size)
            if cjxl_icc(&jxl, dec, &profile, &size) == JXL_DEC_SUCCESS { icc = profile }
        }
        var encoding = JxlColorEncoding()
        guard cjxl_encoding(&jxl, dec, &encoding) == JXL_DEC_SUCCESS,
              let transfer: HDRToSDR.Transfer = encoding.transfer_function == JXL_TRANSFER_FUNCTION_PQ ? .pq
                  : encoding.transfer_function == JXL_TRANSFER_FUNCTION_HLG ? .hlg : nil else { return (icc, nil) }
        // H.273's numbers: BT.2020, Display P3 (D65), else BT.709.
        let primaries = encoding.primaries == JXL_PRIMARIES_2100 ? 9 : encoding.primaries == JXL_PRIMARIES_P3 ? 12 : 1
        return (icc, (transfer, primaries))
    }

    /// libjxl's output as the pipeline's image: 8-bit as it is, PQ or HLG mapped to SDR.
    private static func image(_ pixels: [UInt8], _ format: JxlPixelFormat, _ h: Header, minimum: (width: Int, height: Int)?) throws -> DecodedImage {
        let layout: PixelLayout = format.num_channels == 4 ? .rgba : .rgb
        let bytes = format.data_type == JXL_TYPE_UINT16 ? 2 : 1
        guard pixels.count >= h.width * h.height * layout.channels * bytes else { throw MediaPrepError(.corrupt, "short JPEG XL output") }
        guard let hdr = h.hdr else {
            return DecodedImage(pixels: PixelBuffer(width: h.width, height: h.height, layout: layout, storage: pixels), format: .jxl,
                                sourceWidth: h.width, sourceHeight: h.height, orientation: .up)
        }
        let channels = layout.channels
        return try pixels.withUnsafeBytes { raw in
            let samples = raw.assumingMemoryBound(to: UInt16.self)
            return try HDRStill.map(width: h.width, height: h.height, alpha: channels == 4, hdr, format: .jxl, orientation: .up,
                                    minimum: minimum) { y, x, c in samples[(y * h.width + x) * channels + c] }
        }
    }
}

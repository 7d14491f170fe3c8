import CJxl

/// libjxl's entry points, opened the first time a JPEG XL picture arrives.
enum LibJxl {
    private struct Table: @unchecked Sendable { let table: cjxl }

    private static let loaded: Result<Table, MediaPrepError> = Trace.noteTime("loaded libjxl") {
        DynamicTable.load(cjxl_size(), cjxl_load, as: cjxl.self, failing: .codecUnavailable, "libjxl is").map(Table.init)
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

    static func decode(_ data: [UInt8], maxPixels: Int) throws -> Result {
        var jxl = try LibJxl.table()
        guard let dec = jxl.JxlDecoderCreate(nil) else { throw MediaPrepError(.decodeFailed, "out of memory") }
        defer { jxl.JxlDecoderDestroy(dec) }
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard jxl.JxlDecoderSubscribeEvents(dec, events) == JXL_DEC_SUCCESS else { throw MediaPrepError(.decodeFailed, "libjxl refused its set-up") }
        var info = JxlBasicInfo()
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var pixels: [UInt8] = []
        var icc: [UInt8]? = nil
        return try data.withUnsafeBufferPointer { input -> Result in
            guard jxl.JxlDecoderSetInput(dec, input.baseAddress, input.count) == JXL_DEC_SUCCESS else {
                throw MediaPrepError(.decodeFailed, "libjxl refused the input")
            }
            jxl.JxlDecoderCloseInput(dec)
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
                    var size = 0
                    if cjxl_icc(&jxl, dec, nil, &size) == JXL_DEC_SUCCESS, size > 0 {
                        var profile = [UInt8](repeating: 0, count: size)
                        if cjxl_icc(&jxl, dec, &profile, &size) == JXL_DEC_SUCCESS { icc = profile }
                    }
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
                    // Orientation is applied: the decoded sides are the shown ones (swapped for 5–8).
                    let swap = info.orientation.rawValue >= 5
                    let (w, h) = swap ? (Int(info.ysize), Int(info.xsize)) : (Int(info.xsize), Int(info.ysize))
                    let layout: PixelLayout = format.num_channels == 4 ? .rgba : .rgb
                    guard pixels.count >= w * h * layout.channels else { throw MediaPrepError(.corrupt, "short JPEG XL output") }
                    let image = DecodedImage(pixels: PixelBuffer(width: w, height: h, layout: layout, storage: pixels), format: .jxl,
                                             sourceWidth: w, sourceHeight: h, orientation: .up)
                    return Result(image: image, iccProfile: icc)
                case JXL_DEC_NEED_MORE_INPUT:
                    throw MediaPrepError(.truncated, "the JPEG XL file is cut off")
                default:
                    throw MediaPrepError(.corrupt, "the JPEG XL data is damaged")
                }
            }
        }
    }
}

import CRaw

/// DNGs of sensor data alone (Android's DngCreator without a preview, raw-only camera apps) through
/// LibRaw: demosaiced, white-balanced as shot, into sRGB and upright, so they go as pictures rather
/// than as files no chat shows. Shrunk on load as a JPEG is: each 2×2 block of the mosaic taken as
/// one pixel while that keeps the view size (a 12 MP DNG: 0.17 s and 84 MB, against 1.0 s and
/// 181 MB demosaicing every pixel; `time` on LibRaw's own calls).
enum RawDecoder {
    private struct Table: @unchecked Sendable { let table: craw }
    private static let loaded: Result<Table, MediaPrepError> = Trace.noteTime("loaded LibRaw") {
        DynamicTable.load(craw_libraries(), craw_symbols(), as: craw.self, failing: .codecUnavailable, "LibRaw is").map(Table.init)
    }

    /// The decoded picture at the size the view needs, upright (`orientation` is `.up`).
    /// - Parameter view: the size shown for a picture of the given size, which halving keeps.
    static func decode(_ data: [UInt8], options: DecodeOptions,
                       view: (Int, Int) -> (width: Int, height: Int) = { ImageProfile.simplex.viewSize(width: $0, height: $1) }) throws -> DecodedImage {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        var table = try loaded.get().table
        var image = craw_image()
        defer { craw_close(&table, &image) }
        // LibRaw's own cap on the sensor data it allocates: two bytes a sample within the pixel limit.
        let capMB = UInt32(min(Int(UInt32.max), options.maxPixels / (1 << 19) + 16))
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            try check(craw_open(&table, &image, base, bytes.count, capMB), table)
            let (w, h) = (Int(image.width), Int(image.height))
            guard w > 0, h > 0 else { throw MediaPrepError(.invalidDimensions, "the DNG's sensor data has no size") }
            // Checked before any sample is read: the sensor data, then the picture.
            guard image.raw_samples <= Int64(options.maxPixels), w * h <= options.maxPixels else {
                throw MediaPrepError(.tooManyPixels, "the DNG's \(w)×\(h) sensor is over the \(options.maxPixels)-pixel limit")
            }
            let v = view(w, h)
            let half = w / 2 >= v.width && h / 2 >= v.height && w / 2 >= (options.minimumWidth ?? 0) && h / 2 >= (options.minimumHeight ?? 0)
            try check(craw_render(&table, &image, half ? 1 : 0), table)
        }
        let (ow, oh) = (Int(image.out_width), Int(image.out_height))
        guard let pixels = image.pixels, ow > 0, oh > 0 else { throw MediaPrepError(.decodeFailed, "LibRaw rendered no picture") }
        let storage = Array(UnsafeBufferPointer(start: pixels, count: ow * oh * 3))
        return DecodedImage(pixels: PixelBuffer(width: ow, height: oh, layout: .rgb, storage: storage), format: .tiff,
                            sourceWidth: ow, sourceHeight: oh, orientation: .up)
    }

    /// LibRaw's error code as a typed error: data that ends early or is damaged is `corrupt`, a sensor
    /// too large for its memory cap `tooManyPixels`, anything else `decodeFailed`.
    private static func check(_ code: Int32, _ table: craw) throws {
        guard code != LIBRAW_SUCCESS.rawValue else { return }
        let text = table.libraw_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let kind: MediaPrepError.Code = switch code {
        case LIBRAW_DATA_ERROR.rawValue, LIBRAW_IO_ERROR.rawValue, LIBRAW_FILE_UNSUPPORTED.rawValue: .corrupt
        case LIBRAW_UNSUFFICIENT_MEMORY.rawValue, LIBRAW_TOO_BIG.rawValue, LIBRAW_MEMPOOL_OVERFLOW.rawValue: .tooManyPixels
        default: .decodeFailed
        }
        throw MediaPrepError(kind, "LibRaw cannot render the DNG's sensor data: \(text)")
    }
}

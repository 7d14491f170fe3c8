import CRaw

/// Raw photos through LibRaw — DNGs of sensor data alone (Android's DngCreator without a preview) and
/// camera makers' raws (CR2, CR3, NEF, ARW…): demosaiced, white-balanced as shot, into sRGB and
/// upright, so they go as pictures rather than as files no chat shows or with their camera's metadata. Shrunk on load as a JPEG is: each 2×2 block of the mosaic taken as
/// one pixel while that keeps the view size (a 12 MP DNG: 0.17 s and 84 MB, against 1.0 s and
/// 181 MB demosaicing every pixel; `time` on LibRaw's own calls).
enum RawDecoder {
    private struct Table: @unchecked Sendable { let table: craw }
    private static let loaded: Result<Table, MediaPrepError> = Trace.noteTime("loaded LibRaw") {
        DynamicTable.load(craw_libraries(), craw_symbols(), as: craw.self, failing: .codecUnavailable, "LibRaw is").map(Table.init)
    }

    /// Seconds a call may take before its process is killed: a full demosaic of a 100 MP sensor, the
    /// most the pixel limit lets through, takes about 9 s here (12 MP: 1.0 s).
    static let timeLimit = 60.0

    /// The decoded picture at the size the view needs, upright (`orientation` is `.up`). LibRaw runs in
    /// a child process (`craw_run`): a file that crashes it is refused, not the end of the batch.
    /// - Parameter format: what the file was sniffed as (a DNG is a `.tiff`).
    /// - Parameter view: the size shown for a picture of the given size, which halving keeps.
    static func decode(_ data: [UInt8], format: MediaFormat = .tiff, options: DecodeOptions,
                       view: (Int, Int) -> (width: Int, height: Int) = { ImageProfile.simplex.viewSize(width: $0, height: $1) }) throws -> DecodedImage {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        var table = try loaded.get().table
        // LibRaw's own cap on the sensor data it allocates: two bytes a sample within the pixel limit.
        let capMB = UInt32(min(Int(UInt32.max), options.maxPixels / (1 << 19) + 16))
        // Room for the largest picture the limit allows; only what is written is ever backed by memory.
        let capacity = options.maxPixels * 3
        guard let shared = craw_shared_alloc(capacity) else { throw MediaPrepError(.outOfMemory, "no memory for LibRaw's answer") }
        defer { craw_shared_free(shared, capacity) }
        let answer = shared.assumingMemoryBound(to: craw_answer.self)
        func run(render: Bool, half: Bool) throws {
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress {
                    craw_run(&table, shared, capacity, base, bytes.count, capMB, render ? 1 : 0, half ? 1 : 0, timeLimit)
                }
            }
            try check(answer.pointee.code, table)
        }
        // First its sizes alone, checked before any sample is read: the sensor data, then the picture.
        try run(render: false, half: false)
        let (w, h) = (Int(answer.pointee.width), Int(answer.pointee.height))
        guard w > 0, h > 0 else { throw MediaPrepError(.invalidDimensions, "the raw photo's sensor data has no size") }
        guard answer.pointee.raw_samples <= Int64(options.maxPixels), w * h <= options.maxPixels else {
            throw MediaPrepError(.tooManyPixels, "the raw photo's \(w)×\(h) sensor is over the \(options.maxPixels)-pixel limit")
        }
        let v = view(w, h)
        let least = options.minimum ?? (0, 0)
        let half = w / 2 >= max(v.width, least.width) && h / 2 >= max(v.height, least.height)
        try run(render: true, half: half)
        let (ow, oh) = (Int(answer.pointee.out_width), Int(answer.pointee.out_height))
        guard ow > 0, oh > 0, ow * oh <= options.maxPixels else { throw MediaPrepError(.decodeFailed, "LibRaw rendered no picture") }
        let storage = Array(UnsafeBufferPointer(start: craw_shared_pixels(shared), count: ow * oh * 3))
        return DecodedImage(pixels: PixelBuffer(width: ow, height: oh, layout: .rgb, storage: storage), format: format,
                            sourceWidth: ow, sourceHeight: oh, orientation: .up)
    }

    /// LibRaw's error code (or what became of its process) as a typed error: data that ends early or is
    /// damaged, or that crashed LibRaw, is `corrupt`; a layout LibRaw does not take `unsupportedFormat`;
    /// a sensor too large for its memory cap `tooManyPixels`; a call past `timeLimit` `timeout`;
    /// anything else `decodeFailed`.
    private static func check(_ code: Int32, _ table: craw) throws {
        guard code != LIBRAW_SUCCESS.rawValue else { return }
        switch code {
        case Int32(CRAW_CRASHED):
            throw MediaPrepError(.corrupt, "the raw photo's sensor data made LibRaw crash (its process, not this one): the file is damaged")
        case Int32(CRAW_TIMEOUT):
            throw MediaPrepError(.timeout, "LibRaw took over \(Int(timeLimit)) s on the raw photo's sensor data and was stopped")
        case Int32(CRAW_NO_PROCESS):
            throw MediaPrepError(.outOfMemory, "no process could be started for LibRaw")
        default: break
        }
        let text = table.libraw_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let kind: MediaPrepError.Code = switch code {
        case LIBRAW_DATA_ERROR.rawValue, LIBRAW_IO_ERROR.rawValue: .corrupt
        case LIBRAW_FILE_UNSUPPORTED.rawValue: .unsupportedFormat
        case LIBRAW_UNSUFFICIENT_MEMORY.rawValue, LIBRAW_TOO_BIG.rawValue, LIBRAW_MEMPOOL_OVERFLOW.rawValue, Int32(CRAW_NO_ROOM): .tooManyPixels
        default: .decodeFailed
        }
        throw MediaPrepError(kind, "LibRaw cannot render the raw photo's sensor data: \(text)")
    }
}

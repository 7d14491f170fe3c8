import CRaw

/// Raw photos through LibRaw — DNGs of sensor data alone (Android's DngCreator without a preview) and
/// camera makers' raws (CR2, CR3, NEF, ARW…): demosaiced, white-balanced as shot, into sRGB and
/// upright, so they go as pictures rather than as files no chat shows or with their camera's metadata. Shrunk on load as a JPEG is: each 2×2 block of the mosaic taken as
/// one pixel while that keeps the view size (a 12 MP DNG: 0.17 s and 84 MB, against 1.0 s and
/// 181 MB demosaicing every pixel; `time` on LibRaw's own calls).
enum RawDecoder {
    private static let loaded: Result<DynamicTable.Shared<craw>, MediaPrepError> = Trace.noteTime("loaded LibRaw") {
        DynamicTable.load(craw_libraries(), craw_symbols(), as: craw.self, failing: .codecUnavailable, "LibRaw is").map(DynamicTable.Shared.init)
    }

    /// Seconds a call may take before its process is killed: a full demosaic of a 100 MP sensor, the
    /// most the pixel limit lets through, takes about 9 s here (12 MP: 1.0 s).
    static let timeLimit = 60.0

    /// What LibRaw's first call learns of a raw photo, before any sample is read: what the probe
    /// reports and the batch's pixel budget is charged, while the demosaic waits for `prepare`.
    struct Header: Sendable, Equatable {
        /// The picture on the sensor, before LibRaw turns it.
        let width: Int, height: Int
        /// Samples the sensor data holds (masked borders too).
        let rawSamples: Int
        /// LibRaw turns it a quarter (shown with its sides swapped).
        let quarterTurn: Bool

        /// The size shown, upright.
        var displaySize: (width: Int, height: Int) { quarterTurn ? (height, width) : (width, height) }

        /// Whether the demosaic reads each 2×2 block of the mosaic as one pixel: while half the sides
        /// still hold the view (and `minimum`, where asked).
        func halves(profile: ImageProfile = .simplex, minimum: (width: Int, height: Int)? = nil) -> Bool {
            let v = profile.viewSize(width: width, height: height)
            let least = minimum ?? (0, 0)
            return DecodeOptions.halving(width: width, height: height, minimum: (max(v.width, least.width), max(v.height, least.height)), most: 2) == 2
        }

        /// The picture LibRaw renders, before its turn: halved (sides rounded up, as its `half_size`
        /// makes them) or whole.
        func rendered(halved: Bool) -> (width: Int, height: Int) { halved ? ((width + 1) / 2, (height + 1) / 2) : (width, height) }

        /// Pixels of memory (4 bytes each) the demosaic holds at once, in LibRaw's process and this one:
        /// the sensor's 2 bytes a sample, LibRaw's 8 bytes a pixel of its picture, the 3 of its answer
        /// in shared memory and of its copy here (12 MP DNG measured: 84 MB halved, 181 MB whole).
        func heldPixels(profile: ImageProfile = .simplex) -> Int {
            let picture = rendered(halved: halves(profile: profile))
            return rawSamples / 2 + picture.width * picture.height * 14 / 4
        }
    }

    /// The raw photo's sizes alone (LibRaw opens it in its child process), held to `maxPixels` before
    /// any sample is read: the sensor data, then the picture.
    /// - Parameter readSamples: read the sensor data too (LibRaw's unpack), for an answer from the
    ///   header alone that `prepare`'s decode will not contradict (a tiled uncompressed DNG opens, then
    ///   fails to unpack: `check` said it goes, `prepare` refused it).
    static func header(_ data: [UInt8], maxPixels: Int, readSamples: Bool = false) throws -> Header {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        let (answer, _) = try run(data, maxPixels: maxPixels, capacity: 0, render: false, half: false,
                                  allowance: readSamples ? headroom + 2 * maxPixels : headroom, readSamples: readSamples)
        let (w, h) = (Int(answer.width), Int(answer.height))
        guard w > 0, h > 0 else { throw MediaPrepError(.invalidDimensions, "the raw photo's sensor data has no size") }
        guard answer.raw_samples <= Int64(maxPixels), w * h <= maxPixels else {
            throw MediaPrepError(.tooManyPixels, "the raw photo's \(w)×\(h) sensor is over the \(maxPixels)-pixel limit")
        }
        // LibRaw reads zeros past the end of the data and renders them (a cut or stripped file went out
        // black, white or striped): the file must at least hold a bit a sample, where the most lossy
        // raws (Canon's C-RAW, Sony's and Nikon's lossy ones) hold 3 or more.
        guard Int64(data.count) * 8 >= answer.raw_samples * Self.leastBitsASample else {
            throw MediaPrepError(.truncated, "the raw photo holds \(data.count) bytes, too few for its \(w)×\(h) sensor's data (at least a bit a sample): it is cut off or stripped")
        }
        return Header(width: w, height: h, rawSamples: Int(answer.raw_samples), quarterTurn: answer.flip == 5 || answer.flip == 6)
    }

    /// The decoded picture at the size the view needs, upright (`orientation` is `.up`). LibRaw runs in
    /// a child process (`craw_run`): a file that crashes it is refused, not the end of the batch.
    /// - Parameter header: what `header` found (the probe's); read again when nil.
    /// - Parameter format: what the file was sniffed as (a DNG is a `.tiff`).
    /// - Parameter allowance: bytes LibRaw's process may take (`memoryAllowance` when nil).
    static func decode(_ data: [UInt8], header known: Header? = nil, format: MediaFormat = .tiff, options: DecodeOptions,
                       profile: ImageProfile = .simplex, allowance: Int? = nil) throws -> DecodedImage {
        let header = try known ?? self.header(data, maxPixels: options.maxPixels)
        // Room for the largest picture the limit allows; only what is written is ever backed by memory.
        let capacity = options.maxPixels * 3
        let half = header.halves(profile: profile, minimum: options.minimum)
        let answer = try run(data, maxPixels: options.maxPixels, capacity: capacity, render: true, half: half,
                             allowance: allowance ?? memoryAllowance(header, half: half)) { answer, pixels in
            let (ow, oh) = (Int(answer.out_width), Int(answer.out_height))
            guard ow > 0, oh > 0, ow * oh <= options.maxPixels else { return nil }
            return PixelBuffer(width: ow, height: oh, layout: .rgb, storage: Array(UnsafeBufferPointer(start: pixels, count: ow * oh * 3)))
        }
        guard let pixels = answer.pixels else { throw MediaPrepError(.decodeFailed, "LibRaw rendered no picture") }
        return DecodedImage(pixels: pixels, format: format, sourceWidth: pixels.width, sourceHeight: pixels.height, orientation: .up)
    }

    /// Bits a sample the smallest whole raw holds: lossy raws hold 3 or more.
    static let leastBitsASample: Int64 = 1

    /// What LibRaw's process may allocate beyond what it was forked with, for its metadata, threads and
    /// tables before any picture: the backstop to the pixel checks and `max_raw_memory_mb`.
    static let headroom = 256 << 20

    /// What a demosaic may allocate: twice what it should (the sensor's 2 bytes a sample, its picture's
    /// 8 bytes a pixel, the 3 of its answer) and `headroom`. A 12 MP DNG, halved: 370 MB.
    static func memoryAllowance(_ h: Header, half: Bool) -> Int {
        let picture = h.rendered(halved: half)
        return 2 * (h.rawSamples * 2 + picture.width * picture.height * 11) + headroom
    }

    /// The memory limit LibRaw's process ran under opening `data` with `allowance`, and what it was forked with.
    static func childMemory(_ data: [UInt8], allowance: Int) throws -> (limit: Int, forkedWith: Int) {
        let (answer, _) = try run(data, maxPixels: 100_000_000, capacity: 0, render: false, half: false, allowance: allowance)
        return (Int(answer.memory_limit), Int(answer.forked_with))
    }

    /// One LibRaw call in its child process, its new memory held to `allowance` bytes, answering through
    /// shared memory with room for `capacity` bytes of pixels, which `take` copies out before the memory goes.
    private static func run(_ data: [UInt8], maxPixels: Int, capacity: Int, render: Bool, half: Bool, allowance: Int, readSamples: Bool = false,
                            take: (craw_answer, UnsafePointer<UInt8>) -> PixelBuffer? = { _, _ in nil }) throws -> (craw_answer, pixels: PixelBuffer?) {
        var table = try loaded.get().table
        // LibRaw's own cap on the sensor data it allocates: two bytes a sample within the pixel limit.
        let capMB = UInt32(min(Int(UInt32.max), maxPixels / (1 << 19) + 16))
        guard let shared = craw_shared_alloc(capacity) else { throw MediaPrepError(.outOfMemory, "no memory for LibRaw's answer") }
        defer { craw_shared_free(shared, capacity) }
        data.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress {
                craw_run(&table, shared, capacity, base, bytes.count, capMB, render ? 1 : readSamples ? 2 : 0, half ? 1 : 0, max(0, allowance), timeLimit)
            }
        }
        let answer = shared.assumingMemoryBound(to: craw_answer.self).pointee
        try check(answer.code, table)
        return (answer, take(answer, craw_shared_pixels(shared)))
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

import CPng

/// libpng's row API over an in-memory file, for the PNGs the simplified API would not convert
/// (≤ 8 bits, not interlaced, sRGB gamma): rows come out one band at a time, so a resize can
/// run beside the inflate. A class owning the libpng state (freed in deinit); one thread at a time.
final class PNGRowReader: RowDecoder {
    private let state: UnsafeMutablePointer<cpng_reader>
    /// The file in memory; nil when it is read from a descriptor as libpng asks.
    private let file: UnsafeBufferPointer<UInt8>?
    let width: Int
    let height: Int
    let layout: PixelLayout
    var channels: Int { layout.channels }
    private(set) var rowsRead = 0
    private var open = true

    /// Runs `body` with a reader over `data`, or returns nil when the file needs the simplified API
    /// (16-bit, interlaced, another gamma). libpng keeps a pointer to the bytes: they stay pinned here.
    /// - Parameter inflateFirst: inflate the image data at once with libdeflate when it can be
    ///   (`PNGInflate`); else, and when it cannot, libpng inflates as it reads.
    static func with<R>(_ data: [UInt8], inflateFirst: Bool = true, minimumInflated: Int = PNGInflate.minimumBytes,
                        _ body: (PNGRowReader) throws -> R) throws -> R? {
        if inflateFirst, var inflated = PNGInflate(data, maxBytes: Self.maxInflatedBytes, minimumBytes: minimumInflated) {
            let (head, tail, adler, rowSize, bpp) = (inflated.head, inflated.tail, inflated.adler, inflated.rowSize, inflated.bytesPerPixel)
            if let result = try data.withUnsafeBufferPointer({ file in
                try inflated.rows.withUnsafeMutableBufferPointer { rows -> R? in
                    // Declined (nothing thrown): the usual reader then runs and reports whatever is wrong.
                    let reader = try? PNGRowReader(file, reportsDamage: false) {
                        cpng_reader_open_inflated($0, file.baseAddress, file.count, head, tail, rows.baseAddress, rows.count, adler, rowSize, Int32(bpp))
                    }
                    guard let reader else { return nil }
                    return try body(reader)
                }
            }) {
                return result
            }
        }
        return try data.withUnsafeBufferPointer { file in
            guard let reader = try PNGRowReader(file) else { return nil }
            return try body(reader)
        }
    }

    /// Inflated at once only up to this: the rows are held while the image is decoded, and a larger
    /// image's decode waits on the resize beside it, not on inflating (hyperfine, whole process:
    /// kay-radial-alpha 14.7 MB of rows 123.5 → 104.8 ms, ladybird-16bit 12.3 MB 120.3 → 103.3 ms,
    /// milkyway-5120 44 MB 134.6 ms both ways and 26 MB more at its peak).
    static let maxInflatedBytes = 24 << 20

    /// Runs `body` with a reader over the open file `input` (from its start), or nil as above: the file
    /// is never in memory whole, only what libpng has asked for and not yet inflated.
    static func with<R>(_ input: InputFile, _ body: (PNGRowReader) throws -> R) throws -> R? {
        try input.withDescriptor { fd in
            guard let reader = try PNGRowReader(nil, fd: fd) else { return nil }
            return try body(reader)
        }
    }

    private convenience init?(_ file: UnsafeBufferPointer<UInt8>) throws {
        try self.init(file) { cpng_reader_open($0, file.baseAddress, file.count) }
    }

    private convenience init?(_ file: UnsafeBufferPointer<UInt8>?, fd: Int32) throws {
        try self.init(file) { cpng_reader_open_fd($0, fd) }
    }

    /// - Parameter open: one of the shim's opens; 1 (a file for the simplified API) gives nil, a damaged
    ///   file throws, or gives nil too unless `reportsDamage`.
    private init?(_ file: UnsafeBufferPointer<UInt8>?, reportsDamage: Bool = true,
                  open: (UnsafeMutablePointer<cpng_reader>) -> Int32) throws {
        self.file = file
        let state = UnsafeMutablePointer<cpng_reader>.allocate(capacity: 1)
        let rc = open(state)
        guard rc == 0 else {
            let error = rc == 1 || !reportsDamage ? nil : Self.damage(state, file)
            state.deallocate()
            if let error { throw error }
            return nil
        }
        self.state = state
        width = Int(state.pointee.width)
        height = Int(state.pointee.height)
        layout = state.pointee.channels == 4 ? .rgba : (state.pointee.channels == 3 ? .rgb : .gray)
    }

    deinit {
        if open { cpng_reader_close(state) }
        state.deallocate()
    }

    /// Inflates the next `count` rows into `band`, which holds just those rows.
    func read(_ count: Int, intoBand band: UnsafeMutablePointer<UInt8>) throws {
        guard open else { throw MediaPrepError(.corrupt, "PNG reader already failed") }
        let n = min(count, height - rowsRead)
        let rc = cpng_reader_rows(state, band, width * layout.channels, Int32(n))
        guard rc == 0 else { open = false; throw Self.damage(state, file) }
        rowsRead += n
    }

    /// Reads the chunks after the image through IEND, so damage there is seen too.
    func finish() throws {
        guard open else { throw MediaPrepError(.corrupt, "PNG reader already failed") }
        let rc = cpng_reader_finish(state)
        guard rc == 0 else { open = false; throw Self.damage(state, file) }
    }

    private static func damage(_ state: UnsafeMutablePointer<cpng_reader>, _ file: UnsafeBufferPointer<UInt8>?) -> MediaPrepError {
        let text = withUnsafeBytes(of: state.pointee.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return PNGDecoder.damage(text, data: file.map(Array.init))
    }
}

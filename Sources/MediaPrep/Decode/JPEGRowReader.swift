import CJpeg

/// libjpeg's scanlines, a band at a time (`cjpeg_reader` in the shim): what lets a resize run beside
/// the decode. A class owning the decompressor (destroyed on every path); one thread at a time.
final class JPEGRowReader: RowDecoder {
    private let state: UnsafeMutablePointer<cjpeg_reader>
    let width: Int
    let height: Int
    let channels: Int
    private(set) var rowsRead = 0

    /// Runs `body` with a reader over `data` decoding at 1/`scale` into `space`; libjpeg keeps a
    /// pointer to the bytes, pinned here for the reader's whole life.
    static func with<R>(_ data: [UInt8], scale: Int, space: Int32, maxMemory: Int, _ body: (JPEGRowReader) throws -> R) throws -> R {
        try data.withUnsafeBufferPointer { file in try body(try JPEGRowReader(file, scale: scale, space: space, maxMemory: maxMemory)) }
    }

    private init(_ file: UnsafeBufferPointer<UInt8>, scale: Int, space: Int32, maxMemory: Int) throws {
        let state = UnsafeMutablePointer<cjpeg_reader>.allocate(capacity: 1)
        let rc = cjpeg_reader_open(state, file.baseAddress, UInt(file.count), Int32(scale), space, maxMemory)
        guard rc == 0 else {
            let error = Self.error(state, code: rc == -2 ? .truncated : .corrupt)
            state.deallocate()
            throw error
        }
        self.state = state
        width = Int(state.pointee.cinfo.output_width)
        height = Int(state.pointee.cinfo.output_height)
        channels = Int(state.pointee.cinfo.output_components)
    }

    deinit {
        cjpeg_reader_close(state)
        state.deallocate()
    }

    func read(_ count: Int, intoBand band: UnsafeMutablePointer<UInt8>) throws {
        let n = min(count, height - rowsRead)
        guard cjpeg_reader_rows(state, band, width * channels, Int32(n)) == 0 else { throw Self.error(state, code: .corrupt) }
        rowsRead += n
    }

    /// A damaging warning (premature end, bad entropy code, lost sync) means missing pixels: never
    /// sent as if the picture were fine. Benign ones (stray bytes before a marker) never get here.
    func finish() throws {
        let rc = cjpeg_reader_finish(state)
        guard rc == 0 else {
            let eof = rc > 0 && cjpeg_is_eof_warning(state.pointee.err.damage) != 0
            throw Self.error(state, code: eof ? .truncated : .corrupt)
        }
    }

    private static func error(_ state: UnsafeMutablePointer<cjpeg_reader>, code: MediaPrepError.Code) -> MediaPrepError {
        let text = withUnsafeBytes(of: state.pointee.err.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return MediaPrepError(code, "JPEG data is damaged: \(text)")
    }
}

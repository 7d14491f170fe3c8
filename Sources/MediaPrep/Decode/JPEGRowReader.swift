import CJpeg

/// libjpeg's scanlines, a band at a time (`cjpeg_reader` in the shim): what lets a resize run beside
/// the decode. A class owning the decompressor (destroyed on every path); one thread at a time.
final class JPEGRowReader: RowDecoder {
    private let state: UnsafeMutablePointer<cjpeg_reader>
    let width: Int
    let height: Int
    let channels: Int
    private(set) var rowsRead = 0
    /// A split decode's luma ranges, which libjpeg's source reads until the decoder is destroyed.
    private let lumaRanges: UnsafeMutableBufferPointer<UInt>?

    /// Runs `body` with a reader over `data` decoding at 1/`scale` into `space`; libjpeg keeps a
    /// pointer to the bytes, pinned here for the reader's whole life.
    /// - Parameter split: a progressive file's luma and chroma scans, to decode on two threads; when
    ///   that cannot be done, the usual decode runs (and reports whatever is wrong with the file).
    static func with<R>(_ data: [UInt8], scale: Int, space: Int32, maxMemory: Int, split: ProgressiveSplit? = nil,
                        _ body: (JPEGRowReader) throws -> R) throws -> R {
        try data.withUnsafeBufferPointer { file in
            try body(try JPEGRowReader(file, scale: scale, space: space, maxMemory: maxMemory, split: split))
        }
    }

    private init(_ file: UnsafeBufferPointer<UInt8>, scale: Int, space: Int32, maxMemory: Int, split: ProgressiveSplit?) throws {
        let state = UnsafeMutablePointer<cjpeg_reader>.allocate(capacity: 1)
        var rc: Int32 = -3
        // libjpeg keeps the luma stream's source (its ranges) for the decoder's whole life: owned here.
        var ranges: UnsafeMutableBufferPointer<UInt>? = nil
        if let split {
            let luma = UnsafeMutableBufferPointer<UInt>.allocate(capacity: split.luma.count)
            _ = luma.initialize(from: split.luma)
            ranges = luma
            rc = split.chroma.withUnsafeBufferPointer { c in
                cjpeg_reader_open_split(state, file.baseAddress, luma.baseAddress, Int32(luma.count / 2), c.baseAddress, Int32(c.count / 2),
                                        Int32(scale), space, maxMemory)
            }
            if rc != 0 {
                luma.deallocate()
                ranges = nil
            }
        }
        if rc != 0 { rc = cjpeg_reader_open(state, file.baseAddress, UInt(file.count), Int32(scale), space, maxMemory) }
        lumaRanges = ranges
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

    /// Whether the luma and chroma scans were decoded at once (`ProgressiveSplit`).
    var isSplit: Bool { state.pointee.buffered != 0 }

    deinit {
        cjpeg_reader_close(state)
        state.deallocate()
        lumaRanges?.deallocate()
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

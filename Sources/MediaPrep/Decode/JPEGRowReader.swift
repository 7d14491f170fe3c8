import CJpeg

/// libjpeg's scanlines, a band at a time (`cjpeg_reader` in the shim): what lets a resize run beside
/// the decode. A class owning the decompressor (destroyed on every path); one thread at a time.
final class JPEGRowReader: RowDecoder {
    private let state: UnsafeMutablePointer<cjpeg_reader>
    /// Bytes per row as `RowDecoder` sees them: a pixel row's, or for raw planes a band's bytes per Y row.
    let width: Int
    let height: Int
    let channels: Int
    private(set) var rowsRead = 0
    /// A split decode's luma ranges, which libjpeg's source reads until the decoder is destroyed.
    private let lumaRanges: UnsafeMutableBufferPointer<UInt>?

    /// Runs `body` with a reader over `data` decoding at 1/`scale` into `space`; libjpeg keeps a
    /// pointer to the bytes, pinned here for the reader's whole life.
    /// - Parameters:
    ///   - file: when set, `data` is only the file's start and the rest is read from it as the
    ///     decoder needs it (open for the reader's whole life).
    ///   - split: a progressive file's luma and chroma scans, to decode on two threads; when
    ///     that cannot be done, the usual decode runs (and reports whatever is wrong with the file).
    static func with<R>(_ data: [UInt8], file: InputFile? = nil, scale: Int, space: Int32, maxMemory: Int, split: ProgressiveSplit? = nil,
                        _ body: (JPEGRowReader) throws -> R) throws -> R {
        try data.withUnsafeBufferPointer { head in
            guard let file else {
                return try body(try JPEGRowReader(head, rest: nil, scale: scale, space: space, maxMemory: maxMemory, split: split))
            }
            return try file.withDescriptor { fd in
                try body(try JPEGRowReader(head, rest: (fd, file.size), scale: scale, space: space, maxMemory: maxMemory, split: nil))
            }
        }
    }

    private init(_ file: UnsafeBufferPointer<UInt8>, rest: (fd: Int32, size: Int)?, scale: Int, space: Int32, maxMemory: Int,
                 split: ProgressiveSplit?) throws {
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
        if rc != 0 {
            rc = cjpeg_reader_open(state, file.baseAddress, UInt(file.count), rest?.fd ?? -1, UInt(rest?.size ?? file.count),
                                   Int32(scale), space, maxMemory)
        }
        lumaRanges = ranges
        guard rc == 0 else {
            let error = Self.error(state, code: rc == -2 ? .truncated : .corrupt)
            state.deallocate()
            throw error
        }
        self.state = state
        height = Int(state.pointee.cinfo.output_height)
        if cjpeg_reader_is_raw(state) != 0 {
            let raw = (0..<3).map { ci in
                var w: Int32 = 0, h: Int32 = 0, padded: Int32 = 0, rows: Int32 = 0
                cjpeg_reader_plane(state, Int32(ci), &w, &h, &padded, &rows)
                return Plane(width: Int(w), height: Int(h), padded: Int(padded), rows: Int(rows))
            }
            planes = raw
            // A band's bytes per Y row: its Y rows, then each chroma plane's rows for them.
            let band = RowPipeline.band
            width = (raw.map { $0.padded * (band / raw[0].rows) * $0.rows }.reduce(0, +) + band - 1) / band
            channels = 1
        } else {
            planes = []
            width = Int(state.pointee.cinfo.output_width)
            channels = Int(state.pointee.cinfo.output_components)
        }
    }

    /// One plane of a raw reader (`cjpeg_space_raw`): its size, the bytes its rows are written with
    /// (whole blocks) and its rows per iMCU row.
    struct Plane {
        let width: Int
        let height: Int
        let padded: Int
        let rows: Int
    }

    /// Y, Cb, Cr at their own sampling when the reader was opened raw (a 3-component YCbCr file);
    /// empty when it decodes to pixels. A raw band of `RowPipeline.band` Y rows holds those rows,
    /// then each chroma plane's rows for them (`planeOffset`), every row `padded` bytes.
    let planes: [Plane]

    /// Where plane `ci` starts in a raw band.
    func planeOffset(_ ci: Int) -> Int {
        let iMCUs = RowPipeline.band / planes[0].rows
        return planes.prefix(ci).map { $0.padded * iMCUs * $0.rows }.reduce(0, +)
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
        guard !planes.isEmpty else {
            guard cjpeg_reader_rows(state, band, width * channels, Int32(n)) == 0 else { throw Self.error(state, code: .corrupt) }
            rowsRead += n
            return
        }
        // Whole iMCU rows (the last may run past the image's bottom, into the band's spare rows).
        guard count == RowPipeline.band else { throw MediaPrepError(.decodeFailed, "raw bands are \(RowPipeline.band) rows") }
        let strides = planes.map { UInt($0.padded) }
        for k in 0..<((n + planes[0].rows - 1) / planes[0].rows) {
            let pointers: [UnsafeMutablePointer<UInt8>?] = planes.indices.map { ci in
                band + planeOffset(ci) + k * planes[ci].rows * planes[ci].padded
            }
            let rc = pointers.withUnsafeBufferPointer { p in strides.withUnsafeBufferPointer { cjpeg_reader_raw(state, p.baseAddress, $0.baseAddress) } }
            guard rc == 0 else { throw Self.error(state, code: .corrupt) }
        }
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

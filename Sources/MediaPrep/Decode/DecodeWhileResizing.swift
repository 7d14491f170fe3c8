import Foundation

/// A decoder that hands out rows top to bottom (libpng's row API, libjpeg's scanlines).
protocol RowDecoder: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Bytes per pixel of the rows written.
    var channels: Int { get }
    var rowsRead: Int { get }
    /// Decodes the next `count` rows into `out`, which holds the whole image.
    func read(_ count: Int, into out: UnsafeMutablePointer<UInt8>) throws
    /// Reads to the end of the file, so damage after the last row is seen too.
    func finish() throws
}

/// Decoded pixels and, when a size was asked for, the same pixels already scaled to it.
struct ResizedDecode {
    let decoded: DecodedImage
    let scaled: SliceResizer?
}

/// Decoding on this thread while a second one scales the rows already out, so the view-size image
/// costs no time after the decode (IceCold-5120.png: 248 ms decode then 40 ms resize before; now
/// both within the decode's time).
enum RowPipeline {
    /// Rows per hand-over: ~3 ms of inflate on a 5120 px PNG row band, small next to the resize's latency.
    static let band = 32

    static func run(_ decoder: RowDecoder, into base: UnsafeMutablePointer<UInt8>, scaler: SliceResizer?) throws {
        guard let scaler else {
            try decoder.read(decoder.height, into: base)
            try decoder.finish()
            return
        }
        let job = SliceJob(scaler, rows: base, rowBytes: decoder.width * decoder.channels)
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) { job.run() }
        do {
            while decoder.rowsRead < decoder.height {
                try decoder.read(band, into: base)
                job.progress.publish(decoder.rowsRead)
            }
            try decoder.finish()
        } catch {
            job.progress.fail()
            done.wait()
            throw error
        }
        done.wait()
        if let e = job.error { throw e }
    }
}

extension PNGDecoder {
    /// Nil when the file needs the simplified API.
    /// - Parameter size: the scaled size for the decoded dimensions, or nil for none.
    static func decodeWhileResizing(_ data: [UInt8], options: DecodeOptions,
                                    to size: (Int, Int) -> (width: Int, height: Int)?) throws -> ResizedDecode? {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        let orientation = PNGChunks.exifOrientation(data)
        return try PNGRowReader.with(data) { r -> ResizedDecode in
            try checkSize(r.width, r.height, options)
            var out = PixelBuffer.storage(r.width * r.height * r.layout.channels)
            var scaler: SliceResizer? = nil
            if let s = size(r.width, r.height), (s.width, s.height) != (r.width, r.height) {
                scaler = try SliceResizer(width: r.width, height: r.height, layout: r.layout, toWidth: s.width, height: s.height)
            }
            try out.withUnsafeMutableBufferPointer { p in
                guard let base = p.baseAddress else { return }
                try RowPipeline.run(r, into: base, scaler: scaler)
            }
            let pixels = PixelBuffer(width: r.width, height: r.height, layout: r.layout, storage: out)
            return ResizedDecode(decoded: DecodedImage(pixels: pixels, format: .png, sourceWidth: r.width, sourceHeight: r.height,
                                                       orientation: orientation),
                                 scaled: scaler)
        }
    }
}

extension PNGDecoder {
    /// Shrink-on-load for a PNG too large to be sent at its own size: rows are inflated a band at a
    /// time and scaled at once to `shrunk` (and `view` beside it), so the whole image is never held.
    /// Nil when the file needs the simplified API (16-bit, interlaced, another gamma).
    ///
    /// 8870×6650 RGB PNG (59 MP, 17.7 MB): peak resident 242 MiB with the whole image decoded
    /// first, 67 MiB now with the file streamed too (vips thumbnail 77–79 MiB); 0.56 s against 0.83 s.
    /// - Parameters:
    ///   - data: the file, or (with `file`) its head: every chunk before the image data.
    ///   - file: the open file, read from as the rows are needed; never whole in memory.
    static func decodeShrinking(_ data: [UInt8], file: InputFile? = nil, options: DecodeOptions, threads: Int = 2,
                                to size: (Int, Int) -> (shrunk: (width: Int, height: Int), view: (width: Int, height: Int)?)?)
        throws -> ResizedDecode? {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        let orientation = PNGChunks.exifOrientation(data)
        let decode = { (r: PNGRowReader) throws -> ResizedDecode? in
            try checkSize(r.width, r.height, options)
            guard let target = size(r.width, r.height) else { return nil }
            let work = try PackingSliceResizer(width: r.width, height: r.height, layout: r.layout,
                                               toWidth: target.shrunk.width, height: target.shrunk.height, band: RowPipeline.band)
            let view = try target.view.map { v in
                try SliceResizer(width: r.width, height: r.height, layout: r.layout, toWidth: v.width, height: v.height)
            }
            let bandBytes = RowPipeline.band * r.width * r.layout.channels
            var ring = PixelBuffer.storage(BandRing.slots * bandBytes)
            try ring.withUnsafeMutableBufferPointer { p in
                guard let base = p.baseAddress else { return }
                try BandRing.run(r, slots: base, bandBytes: bandBytes, threads: threads) { rows, count in
                    try work.feed(rows, count: count)
                    try view?.feed(rows, count: count)
                }
            }
            let pixels = try work.pixels()
            return ResizedDecode(decoded: DecodedImage(pixels: pixels, format: .png, sourceWidth: r.width, sourceHeight: r.height,
                                                       orientation: orientation),
                                 scaled: view)
        }
        if let file { return try PNGRowReader.with(file, decode) ?? nil }
        return try PNGRowReader.with(data, decode) ?? nil
    }
}

/// Rows inflated into a ring of bands on this thread while another scales the bands already out:
/// the whole image is never held, and the time is the longer of the two sides, not their sum.
enum BandRing {
    /// Bands in the ring: the decoder may run this far ahead of the scaler.
    static let slots = 4

    /// - Parameter feed: scales one band (its first row, its row count), on the scaling thread.
    static func run(_ decoder: PNGRowReader, slots base: UnsafeMutablePointer<UInt8>, bandBytes: Int, threads: Int,
                    feed: @escaping (UnsafePointer<UInt8>, Int) throws -> Void) throws {
        let bands = (decoder.height + RowPipeline.band - 1) / RowPipeline.band
        func rows(_ b: Int) -> Int { min(RowPipeline.band, decoder.height - b * RowPipeline.band) }
        func slot(_ b: Int) -> UnsafeMutablePointer<UInt8> { base + (b % slots) * bandBytes }
        guard threads > 1 else {
            for b in 0..<bands {
                try decoder.read(RowPipeline.band, intoBand: slot(b))
                try feed(slot(b), rows(b))
            }
            try decoder.finish()
            return
        }
        let state = RingState()
        let scaler = RingScaler(state: state, bands: bands) { b in try feed(slot(b), rows(b)) }
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) { scaler.run() }
        do {
            var scalerFailed = false
            for b in 0..<bands {
                guard state.waitForSlot(band: b, slots: slots) else { scalerFailed = true; break }
                try decoder.read(RowPipeline.band, intoBand: slot(b))
                state.decoded(b + 1)
            }
            if !scalerFailed { try decoder.finish() }
        } catch {
            state.fail()
            done.wait()
            throw error
        }
        done.wait()
        if let e = scaler.error { throw e }
    }
}

/// The scaling side of `BandRing`: each band in order once decoded, then its slot handed back.
private final class RingScaler: @unchecked Sendable {
    let state: RingState
    let bands: Int
    let feed: (Int) throws -> Void
    private(set) var error: Error?

    init(state: RingState, bands: Int, feed: @escaping (Int) throws -> Void) {
        (self.state, self.bands, self.feed) = (state, bands, feed)
    }

    func run() {
        for b in 0..<bands {
            guard state.waitForBand(b) else { return }  // the decoder failed
            do { try feed(b) } catch {
                self.error = error
                state.fail()
                return
            }
            state.consumed(b + 1)
        }
    }
}

/// Bands decoded and bands scaled, or that either side failed; one decoder, one scaler.
private final class RingState: @unchecked Sendable {
    private let condition = NSCondition()
    private var decodedBands = 0, consumedBands = 0
    private var failed = false

    func decoded(_ n: Int) { update { decodedBands = n } }
    func consumed(_ n: Int) { update { consumedBands = n } }
    func fail() { update { failed = true } }

    private func update(_ change: () -> Void) {
        condition.lock()
        change()
        condition.broadcast()
        condition.unlock()
    }

    /// Until band `b`'s slot is free (band b − slots scaled); false once a side failed.
    func waitForSlot(band b: Int, slots: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while b - consumedBands >= slots && !failed { condition.wait() }
        return !failed
    }

    /// Until band `b` is decoded; false once a side failed.
    func waitForBand(_ b: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while decodedBands <= b && !failed { condition.wait() }
        return !failed
    }
}

/// The scaling side of `RowPipeline`: waits for rows, feeds them to the scaler in order.
private final class SliceJob: @unchecked Sendable {
    let scaler: SliceResizer
    let rows: UnsafeMutablePointer<UInt8>
    let rowBytes: Int
    let progress = RowProgress()
    private(set) var error: Error?

    init(_ scaler: SliceResizer, rows: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        self.scaler = scaler
        self.rows = rows
        self.rowBytes = rowBytes
    }

    /// Runs on its own thread; only rows below the published count are read, and the decoder
    /// writes only rows above it.
    func run() {
        do {
            while scaler.rowsFed < scaler.source.height {
                guard let ready = progress.wait(beyond: scaler.rowsFed) else { return }  // the decode failed
                try scaler.feed(rows + scaler.rowsFed * rowBytes, count: ready - scaler.rowsFed)
            }
        } catch {
            self.error = error
        }
    }
}

/// How many rows the decoder has finished, or that it failed; one writer, one waiter.
private final class RowProgress: @unchecked Sendable {
    private let condition = NSCondition()
    private var rows = 0
    private var failed = false

    func publish(_ n: Int) {
        condition.lock()
        rows = n
        condition.signal()
        condition.unlock()
    }

    func fail() {
        condition.lock()
        failed = true
        condition.signal()
        condition.unlock()
    }

    /// Blocks until more than `n` rows are ready; nil once the decoder failed.
    func wait(beyond n: Int) -> Int? {
        condition.lock()
        defer { condition.unlock() }
        while rows <= n && !failed { condition.wait() }
        return failed ? nil : rows
    }
}

import FoundationEssentials
import Glibc
import Dispatch

/// A decoder that hands out rows top to bottom (libpng's row API, libjpeg's scanlines).
protocol RowDecoder: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Bytes per pixel of the rows written.
    var channels: Int { get }
    var rowsRead: Int { get }
    /// Decodes the next `count` rows (fewer at the bottom) into `band`, one row after another.
    func read(_ count: Int, intoBand band: UnsafeMutablePointer<UInt8>) throws
    /// Reads to the end of the file, so damage after the last row is seen too.
    func finish() throws
}

/// Decoded pixels and, when a size was asked for, the same pixels already scaled to it.
struct ResizedDecode {
    let decoded: DecodedImage
    let scaled: PackingSliceResizer?
    /// Hill-climb candidates' planes made beside the decode, by long side.
    var planes: [Int: YUVPlanes] = [:]
}

/// Decoding on this thread, a band of rows at a time, while a second thread scales the bands already
/// out, so scaling costs no time after the decode (IceCold-5120.png: 248 ms decode then 40 ms resize
/// before; now both within the decode's time). The bands are the whole image's, which is kept, or
/// the slots of a small ring, when only the scaled image is wanted (a PNG shrunk on load).
enum RowPipeline {
    /// Rows per hand-over: ~3 ms of inflate on a 5120 px PNG row band, small next to the resize's latency.
    static let band = 32
    /// Bands in a ring: the decoder may run this far ahead of the scaler.
    static let ringSlots = 4

    /// Decodes into `base`, which holds the whole image, and feeds every band to `scaler` beside it.
    /// A decoder done first (rows that come faster than they scale) scales half the rows left itself
    /// (`PackingSliceResizer.takeOver`): aqua-palette.png (2560×1600, inflated at once), its rows
    /// unfiltered in 3 ms against 13 ms of scaling, idled for 10.
    static func run(_ decoder: RowDecoder, into base: UnsafeMutablePointer<UInt8>, scaler: PackingSliceResizer?) throws {
        let bandBytes = band * decoder.width * decoder.channels
        var tookOver = false
        try run(decoder, threads: scaler == nil ? 1 : 2, ahead: .max, bandAt: { base + $0 * bandBytes },
                feed: scaler.map { s in { rows, count in try s.feed(rows, count: count) } },
                stop: scaler.map { s in { s.reachedLimit } },
                decoded: scaler.map { s in { tookOver = try s.takeOver(from: base, minimumRows: takeOverFrom) } })
        if tookOver { scaler?.tookOverRest() }
    }

    /// Scaled rows left that make a take-over worth its context's set-up (a Lanczos context's filters
    /// take a millisecond or two).
    static let takeOverFrom = 128

    /// Decodes through a ring of `ringSlots` bands (allocated here), each fed before its slot is
    /// decoded into again: only what `feed` keeps outlives the decode.
    static func run(_ decoder: RowDecoder, threads: Int, feed: @escaping (UnsafePointer<UInt8>, Int) throws -> Void) throws {
        let bandBytes = band * decoder.width * decoder.channels
        var ring = PixelBuffer.storage(ringSlots * bandBytes)
        try ring.withUnsafeMutableBufferPointer { p in
            guard let base = p.baseAddress else { return }
            try run(decoder, threads: threads, ahead: ringSlots, bandAt: { base + $0 % ringSlots * bandBytes }, feed: feed)
        }
    }

    /// - Parameters:
    ///   - ahead: bands the decoder may be ahead of the scaler before it waits for a slot.
    ///   - bandAt: where band `b` is decoded.
    ///   - feed: scales one band (its first row, its row count), on the scaling thread.
    ///   - stop: asked by the scaling thread before each band: true ends its feeding (the rest taken over).
    ///   - decoded: run on the decoding thread once every row is decoded, while the scaler goes on.
    private static func run(_ decoder: RowDecoder, threads: Int, ahead: Int, bandAt: @escaping (Int) -> UnsafeMutablePointer<UInt8>,
                            feed: ((UnsafePointer<UInt8>, Int) throws -> Void)?, stop: (() -> Bool)? = nil,
                            decoded: (() throws -> Void)? = nil) throws {
        let bands = (decoder.height + band - 1) / band
        let height = decoder.height
        let rows = { (b: Int) in min(band, height - b * band) }
        guard let feed, threads > 1 else {
            for b in 0..<bands {
                try decoder.read(band, intoBand: bandAt(b))
                try feed?(bandAt(b), rows(b))
            }
            try decoder.finish()
            return
        }
        let state = BandProgress()
        let scaler = BandScaler(state: state, bands: bands, stop: stop) { b in try feed(bandAt(b), rows(b)) }
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) { scaler.run() }
        do {
            var scalerFailed = false
            for b in 0..<bands {
                guard state.waitForSlot(band: b, ahead: ahead) else { scalerFailed = true; break }
                try decoder.read(band, intoBand: bandAt(b))
                state.decoded(b + 1)
            }
            if !scalerFailed {
                try decoder.finish()
                try decoded?()
            }
        } catch {
            state.fail()
            done.wait()
            throw error
        }
        done.wait()
        if let e = scaler.error { throw e }
    }
}

extension PNGDecoder {
    /// Nil when the file needs the simplified API.
    /// - Parameter size: the scaled size for the decoded dimensions, or nil for none.
    /// - Parameter filter: the kernel for the decoded dimensions (the preview's first pass may be bicubic).
    static func decodeWhileResizing(_ data: [UInt8], options: DecodeOptions,
                                    filter: (Int, Int) -> Resizer.Filter = { _, _ in .lanczos },
                                    to size: (Int, Int) -> (width: Int, height: Int)?) throws -> ResizedDecode? {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        let orientation = PNGChunks.exifOrientation(data)
        return try PNGRowReader.with(data, inflateFirst: !options.sentAsItIs) { r -> ResizedDecode in
            try checkSize(r.width, r.height, options)
            var out = PixelBuffer.storage(r.width * r.height * r.layout.channels)
            var scaler: PackingSliceResizer? = nil
            if let s = size(r.width, r.height), (s.width, s.height) != (r.width, r.height) {
                scaler = try PackingSliceResizer(width: r.width, height: r.height, layout: r.layout, toWidth: s.width, height: s.height,
                                                 band: RowPipeline.band, filter: filter(r.width, r.height))
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
                try PackingSliceResizer(width: r.width, height: r.height, layout: r.layout, toWidth: v.width, height: v.height, band: RowPipeline.band)
            }
            try RowPipeline.run(r, threads: threads) { rows, count in
                try work.feed(rows, count: count)
                try view?.feed(rows, count: count)
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

/// The scaling side of `RowPipeline`: each band in order once decoded, then its slot handed back.
private final class BandScaler: @unchecked Sendable {
    let state: BandProgress
    let bands: Int
    let feed: (Int) throws -> Void
    let stop: (() -> Bool)?
    private(set) var error: Error?

    init(state: BandProgress, bands: Int, stop: (() -> Bool)?, feed: @escaping (Int) throws -> Void) {
        (self.state, self.bands, self.stop, self.feed) = (state, bands, stop, feed)
    }

    func run() {
        for b in 0..<bands {
            guard state.waitForBand(b) else { return }  // the decoder failed
            if stop?() == true { return }  // the rest was taken over
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
private final class BandProgress: @unchecked Sendable {
    private let condition = PosixCondition()
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

    /// Until band `b`'s slot is free (band b − ahead scaled); false once a side failed.
    func waitForSlot(band b: Int, ahead: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while b - consumedBands >= ahead && !failed { condition.wait() }
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

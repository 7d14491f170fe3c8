import CWebP

/// libwebpdemux's entry points, opened the first time an animated WebP arrives.
enum LibWebPDemux {
    private static let loaded: Result<DynamicTable.Shared<cwebp>, MediaPrepError> = Trace.noteTime("loaded libwebpdemux") {
        DynamicTable.load(cwebp_libraries(), cwebp_symbols(), as: cwebp.self, failing: .codecUnavailable, "libwebpdemux is").map(DynamicTable.Shared.init)
    }

    static func table() throws -> cwebp { try loaded.get().table }
}

/// An animated WebP (a sticker) through libwebpdemux's WebPAnimDecoder, which composes each frame
/// onto the canvas (offsets, blending, disposal) on a transparent background.
final class WebPAnimation: AnimationSource {
    let width: Int
    let height: Int
    let plays: Int
    let frameCount: Int
    private let data: [UInt8]
    private let first: PixelBuffer

    /// Whether a WebP's VP8X header has the animation flag (RIFF, size, WEBP, VP8X, size, flags).
    static func isAnimated(_ head: [UInt8]) -> Bool {
        head.count >= 21 && Array(head[12..<16]) == Array("VP8X".utf8) && head[20] & 0x02 != 0
    }

    /// The VP8X chunk's canvas size (24-bit fields holding size − 1).
    static func canvasSize(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 30, Array(head[12..<16]) == Array("VP8X".utf8) else { return nil }
        func le24(_ o: Int) -> Int { Int(head[o]) | Int(head[o + 1]) << 8 | Int(head[o + 2]) << 16 }
        return (le24(24) + 1, le24(27) + 1)
    }

    /// - Parameter admit: given the canvas and the frame count the chunks say, before libwebpdemux
    ///   allocates anything: throws to refuse the animation (what decoding every frame would cost).
    init(_ data: [UInt8], maxPixels: Int, admit: (_ width: Int, _ height: Int, _ frames: Int) throws -> Void = { _, _, _ in }) throws {
        self.data = data
        // libwebpdemux allocates the whole canvas when the decoder is made: checked before (found by
        // fuzzing, a 12 GB canvas).
        guard Self.isAnimated(data), let (cw, ch) = Self.canvasSize(data) else {
            throw MediaPrepError(.corrupt, "not an animated WebP")
        }
        guard cw * ch <= maxPixels else { throw MediaPrepError(.tooManyPixels, "\(cw)×\(ch) is over the \(maxPixels)-pixel limit") }
        // A 12 KB WebP of 255 frames of a 4096² canvas cost 214 MB before it was refused.
        try admit(cw, ch, WebPChunks.chunks(data).reduce(0) { $0 + ($1.tag == "ANMF" ? 1 : 0) })
        // One decoder for the header and the first frame (the preview): probing makes no second one.
        let (info, first) = try Self.withDecoder(data) { lib, dec -> (WebPAnimInfo, PixelBuffer) in
            var info = WebPAnimInfo()
            guard lib.WebPAnimDecoderGetInfo(dec, &info) != 0 else { throw MediaPrepError(.corrupt, "the WebP animation header cannot be read") }
            let (w, h) = (Int(info.canvas_width), Int(info.canvas_height))
            guard w > 0, h > 0, info.frame_count > 0 else { throw MediaPrepError(.invalidDimensions, "the WebP animation has no frames or size") }
            guard w * h <= maxPixels else { throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(maxPixels)-pixel limit") }
            guard let frame = try Self.next(lib, dec, width: w, height: h, index: 0) else {
                throw MediaPrepError(.truncated, "the WebP animation holds no complete frame")
            }
            return (info, frame.pixels)
        }
        (width, height, plays, frameCount) = (Int(info.canvas_width), Int(info.canvas_height), Int(info.loop_count), Int(info.frame_count))
        self.first = first
    }

    func firstFrame() -> PixelBuffer { first }

    func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
        let (w, h) = (width, height)
        try Self.withDecoder(data) { lib, dec in
            var previous: Int32 = 0
            var index = 0
            while let frame = try Self.next(lib, dec, width: w, height: h, index: index) {
                try body(frame.pixels, Int(max(0, frame.end - previous)))
                previous = frame.end
                index += 1
            }
        }
    }

    /// The decoder's next canvas (copied out: the decoder owns its buffer until the next call) and the
    /// time it ends at, in milliseconds; nil when there are no more.
    private static func next(_ lib: cwebp, _ dec: OpaquePointer, width w: Int, height h: Int,
                             index: Int) throws -> (pixels: PixelBuffer, end: Int32)? {
        guard lib.WebPAnimDecoderHasMoreFrames(dec) != 0 else { return nil }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var end: Int32 = 0
        guard lib.WebPAnimDecoderGetNext(dec, &buffer, &end) != 0, let buffer else {
            throw MediaPrepError(index == 0 ? .truncated : .corrupt, "frame \(index + 1) of the WebP animation cannot be decoded")
        }
        return (PixelBuffer(width: w, height: h, layout: .rgba, storage: Array(UnsafeBufferPointer(start: buffer, count: w * h * 4))), end)
    }

    /// A decoder over `data`, deleted on every path.
    private static func withDecoder<T>(_ data: [UInt8], _ body: (cwebp, OpaquePointer) throws -> T) throws -> T {
        let lib = try LibWebPDemux.table()
        var options = WebPAnimDecoderOptions()
        guard lib.WebPAnimDecoderOptionsInitInternal(&options, cwebp_abi()) != 0 else {
            throw MediaPrepError(.codecUnavailable, "libwebpdemux is not the version mediaprep was built with")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        return try data.withUnsafeBufferPointer { bytes in
            var webp = WebPData(bytes: bytes.baseAddress, size: bytes.count)
            guard let dec = lib.WebPAnimDecoderNewInternal(&webp, &options, cwebp_abi()) else {
                throw MediaPrepError(.corrupt, "the WebP animation cannot be read")
            }
            defer { lib.WebPAnimDecoderDelete(dec) }
            return try body(lib, dec)
        }
    }
}

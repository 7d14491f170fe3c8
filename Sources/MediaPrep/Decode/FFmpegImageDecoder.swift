import CFFmpeg

/// GIF, WebP, BMP and TIFF through FFmpeg's image decoders: the first frame, plus how many there are.
package enum FFmpegImageDecoder {
    package struct Result: Sendable {
        package let image: DecodedImage
        /// Frames in the file (GIF animation); 1 for still images.
        package let frameCount: Int
    }

    package static func decode(path: String, format: MediaFormat, options: DecodeOptions = DecodeOptions(),
                              countFrames: Bool = false) throws -> Result {
        try decode(try MediaInput(path: path), format: format, options: options, countFrames: countFrames)
    }

    /// The same from bytes in memory (libavformat reads them through a custom AVIOContext).
    package static func decode(data: [UInt8], format: MediaFormat, options: DecodeOptions = DecodeOptions(),
                              countFrames: Bool = false) throws -> Result {
        try decode(try MediaInput(data: data), format: format, options: options, countFrames: countFrames)
    }

    static func decode(_ input: MediaInput, format: MediaFormat, options: DecodeOptions, countFrames: Bool) throws -> Result {
        guard let stream = input.bestStream(AVMEDIA_TYPE_VIDEO) else {
            throw MediaPrepError(.corrupt, "no image in this \(format.rawValue) file")
        }
        let par = stream.pointee.codecpar.pointee
        if par.width > 0, par.height > 0, Int(par.width) * Int(par.height) > options.maxPixels {
            throw MediaPrepError(.tooManyPixels, "\(par.width)×\(par.height) is over the \(options.maxPixels)-pixel limit")
        }
        let decoder = try FrameDecoder(input: input, stream: stream, maxPixels: options.maxPixels)
        guard let frame = try decoder.next() else {
            throw MediaPrepError(.truncated, "the \(format.rawValue) file holds no complete image")
        }
        let layout: PixelLayout = FrameConverter.hasAlphaChannel(frame) ? .rgba : .rgb
        let pixels = try FrameConverter.convert(frame, layout: layout)
        var icc: [UInt8]? = nil
        if let sd = input.ff.util.av_frame_get_side_data(frame, AV_FRAME_DATA_ICC_PROFILE), let data = sd.pointee.data, sd.pointee.size > 0 {
            icc = Array(UnsafeBufferPointer(start: data, count: Int(sd.pointee.size)))
        }
        var frames = 1
        if countFrames {
            // The decoder may already hold a later packet; ask it for a second frame first,
            // then count what is left in the file without decoding it.
            if try decoder.next() != nil {
                frames = 2 + decoder.countRemainingPackets(limit: 100_000)
            }
        }
        var decoded = DecodedImage(pixels: pixels, format: format, sourceWidth: pixels.width,
                                   sourceHeight: pixels.height, orientation: .up)
        decoded.iccProfile = icc
        return Result(image: decoded, frameCount: frames)
    }
}

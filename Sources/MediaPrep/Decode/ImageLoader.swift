import FoundationEssentials
import Glibc

/// Decodes a still by the decoder its format's registry entry declares: the single entry point for stills.
package enum ImageLoader {
    /// Reads a file, refusing empty files and anything that is not an image we decode.
    package static func load(path: String, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        let data = try FileBytes.read(path)
        return try load(data: data, path: path, options: options)
    }

    /// Decodes bytes already in memory; FFmpeg-decoded formats are read from `path` when given.
    package static func load(data: [UInt8], path: String?, options: DecodeOptions = DecodeOptions()) throws -> DecodedImage {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "the file is empty") }
        let format = FormatSniffer.sniff(data)
        switch FormatRegistry.picture(format)?.decoder {
        case .jpeg?:
            return try JPEGDecoder.decode(data, options: options)
        case .png?:
            return try PNGDecoder.decode(data, options: options)
        case .jxl?:
            return try JXLDecoder.decode(data, maxPixels: options.maxPixels, minimum: options.minimum).image
        case .heif?:
            return try HEIFDecoder.decode(data, format: format, maxPixels: options.maxPixels, minimum: options.minimum)
        case .webp? where WebPAnimation.isAnimated(data):
            let first = try WebPAnimation(data, maxPixels: options.maxPixels).firstFrame()
            return DecodedImage(pixels: first, format: .webp, sourceWidth: first.width, sourceHeight: first.height, orientation: .up)
        case .webp?:
            return try WebPDecoder.decode(data, options: options)
        case .tiff?:
            do {
                if let path { return try TIFFDecoder.decode(try InputFile(path), options: options) }
                return try TIFFDecoder.decode(data, options: options)
            } catch let e as MediaPrepError where e == TIFFDecoder.rawOnly || e == TIFFDecoder.cameraRaw {
                return try RawDecoder.decode(data, format: e == TIFFDecoder.cameraRaw ? .cameraRaw : .tiff, options: options)
            }
        case .raw?:
            return try RawDecoder.decode(data, format: format, options: options)
        case .ffmpeg?:
            if let path { return try FFmpegImageDecoder.decode(path: path, format: format, options: options).image }
            return try FFmpegImageDecoder.decode(data: data, format: format, options: options).image
        case nil:
            throw MediaPrepError(.unsupportedFormat, "not an image this tool decodes (\(format.rawValue))")
        }
    }
}

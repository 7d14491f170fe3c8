import Foundation

/// Picks the decoder for a file by its content: the single entry point for still images.
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
        switch format {
        case .jpeg:
            return try JPEGDecoder.decode(data, options: options)
        case .png:
            return try PNGDecoder.decode(data, options: options)
        case .jxl:
            return try JXLDecoder.decode(data, maxPixels: options.maxPixels, minimum: options.minimum).image
        case .heic, .avif:
            return try HEIFDecoder.decode(data, format: format, maxPixels: options.maxPixels, minimum: options.minimum)
        case .webp where WebPAnimation.isAnimated(data):
            let first = try WebPAnimation(data, maxPixels: options.maxPixels).firstFrame()
            return DecodedImage(pixels: first, format: .webp, sourceWidth: first.width, sourceHeight: first.height, orientation: .up)
        case .webp:
            return try WebPDecoder.decode(data, options: options)
        case .tiff:
            do {
                if let path { return try TIFFDecoder.decode(try InputFile(path), options: options) }
                return try TIFFDecoder.decode(data, options: options)
            } catch let e as MediaPrepError where e == TIFFDecoder.rawOnly || e == TIFFDecoder.cameraRaw {
                return try RawDecoder.decode(data, format: e == TIFFDecoder.cameraRaw ? .cameraRaw : .tiff, options: options)
            }
        case .cameraRaw:
            return try RawDecoder.decode(data, format: .cameraRaw, options: options)
        case .gif, .bmp, .jp2:
            if let path { return try FFmpegImageDecoder.decode(path: path, format: format, options: options).image }
            return try FFmpegImageDecoder.decode(data: data, format: format, options: options).image
        default:
            throw MediaPrepError(.unsupportedFormat, "not an image this tool decodes (\(format.rawValue))")
        }
    }
}

/// File reading with errors typed for the CLI.
package enum FileBytes {
    /// Files larger than this are never read into memory (images over it are refused; videos,
    /// voice and plain files are copied and planned by size without being read).
    package static let maxReadBytes = 256 * 1024 * 1024

    /// The whole file, by POSIX reads (Foundation's `contents(atPath:)` leaks 4 KB on an empty file).
    package static func read(_ path: String, limit: Int = maxReadBytes) throws -> [UInt8] {
        let (fd, size) = try InputFile.openRegular(path)  // refuses missing paths, FIFOs, devices, /proc and empty files
        defer { close(fd) }
        guard size <= limit else {
            throw MediaPrepError(.overLimit, "\(path) is \(size) bytes, over the \(limit)-byte limit for reading an image into memory")
        }
        // Only the bytes read count as initialized: no zeroing pass over a 12 MB photo first.
        let out = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            HugePages.advise(base, size)
            var got = 0
            while got < size {
                let n = Glibc.read(fd, base + got, size - got)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                got += n
            }
            initialized = got  // less when the file shrank while being read
        }
        guard !out.isEmpty else { throw MediaPrepError(.unreadableFile, "cannot read \(path)") }
        return out
    }

    /// The first bytes only, for sniffing large files without reading them whole.
    package static func head(_ path: String, count: Int = FormatSniffer.headerLength) throws -> [UInt8] {
        let file = try InputFile(path)
        return file.head(count)
    }

    /// The last bytes only (end markers of a file that may be cut off).
    package static func tail(_ path: String, count: Int) throws -> [UInt8] {
        let file = try InputFile(path)
        return try file.read(at: max(0, file.size - count), count: count)
    }

    /// Size of a regular file; directories, missing paths, FIFOs, devices and kernel files are refused
    /// here, before any stage tries to read or copy them.
    package static func size(_ path: String) throws -> Int { try InputFile(path).size }
}

/// A file looked at once, carrying what later stages need so none of them reads or parses it again.
///
/// `@unchecked Sendable`: the opened container is used by one thread at a time, handed from the
/// probing stage to the preparing stage and never shared.
public struct ProbedSource: @unchecked Sendable {
    public internal(set) var probe: ProbeResult
    /// The whole file, for JPEG and PNG (the image pipeline needs every byte anyway).
    let data: [UInt8]?
    let jpegHeader: JPEGDecoder.Header?
    /// GIF, WebP, BMP, TIFF: the first frame, decoded while probing.
    let firstFrame: DecodedImage?
    /// Audio and video: the opened container, read on by the thumbnailer.
    let media: MediaInput?

    /// Pixels the image pipeline will hold decoded at once, after JPEG shrink-on-load to the
    /// view size; what a batch's memory budget is charged.
    public func decodedPixels(profile: ImageProfile) -> Int {
        guard let w = probe.width, let h = probe.height else { return 0 }
        switch probe.kind {
        case .image:
            if let header = jpegHeader {
                let (mw, mh) = JPEGDecoder.minimumSize(header, orientation: probe.orientation, profile: profile)
                let size = JPEGDecoder.decodedSize(header, options: DecodeOptions(minimumWidth: mw, minimumHeight: mh))
                return size.width * size.height
            }
            return w * h
        case .animatedImage: return w * h
        case .video: return min(w * h, 1280 * 720)  // one frame at a time, scaled for the thumbnail
        case .voice, .file: return 0
        }
    }
}

extension MediaProbe {
    /// One typed pass over a file for preparation: bytes read once, JPEG header and Exif parsed
    /// once, a GIF's first frame decoded once, a video's container opened once.
    public static func source(path: String, maxPixels: Int = 100_000_000) throws -> ProbedSource {
        let size = try FileBytes.size(path)
        guard size > 0 else { throw MediaPrepError(.emptyInput, "\(path) is empty") }
        let format = FormatSniffer.sniff(try FileBytes.head(path))
        var r = ProbeResult(path: path, kind: .file, format: format, bytes: size)
        switch format {
        case .jpeg:
            let data = try FileBytes.read(path)
            let h = try JPEGDecoder.header(data)
            r.orientation = ExifOrientation.fromJPEG(data)
            (r.width, r.height) = r.orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
            r.kind = .image
            r.frameCount = 1
            return ProbedSource(probe: r, data: data, jpegHeader: h, firstFrame: nil, media: nil)
        case .png:
            let data = try FileBytes.read(path)
            guard let (w, h) = PNGHeader.size(data) else { throw MediaPrepError(.truncated, "\(path) has no complete PNG header") }
            // PNG has no shrink-on-load: the whole image would be decoded, so the limit applies here.
            guard w * h <= maxPixels else { throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(maxPixels)-pixel limit") }
            (r.width, r.height) = (w, h)
            r.kind = .image
            r.frameCount = 1
            return ProbedSource(probe: r, data: data, jpegHeader: nil, firstFrame: nil, media: nil)
        case .gif, .webp, .bmp, .tiff:
            let d = try FFmpegImageDecoder.decode(path: path, format: format, options: DecodeOptions(maxPixels: maxPixels),
                                                  countFrames: format == .gif)
            r.animated = d.frameCount > 1
            r.kind = r.animated ? .animatedImage : .image
            (r.width, r.height) = (d.image.displayWidth, d.image.displayHeight)
            r.frameCount = d.frameCount
            r.videoCodec = format.rawValue
            return ProbedSource(probe: r, data: nil, jpegHeader: nil, firstFrame: d.image, media: nil)
        case _ where format.isAudioVisual:
            let input = try MediaInput(path: path)
            try probeAV(input: input, path: path, into: &r)
            return ProbedSource(probe: r, data: nil, jpegHeader: nil, firstFrame: nil, media: input)
        default:
            return ProbedSource(probe: r, data: nil, jpegHeader: nil, firstFrame: nil, media: nil)
        }
    }
}

/// The PNG IHDR fields a probe needs, read without libpng.
enum PNGHeader {
    static func size(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 24 else { return nil }
        func be32(_ o: Int) -> Int { head[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (w, h) = (be32(16), be32(20))
        // The PNG spec caps both at 2^31 − 1, which also keeps w × h within Int (found by fuzzing:
        // 0xFFFFFFFF × 0xFFFFFFFF overflowed the pixel-limit check).
        return w > 0 && h > 0 && w <= 0x7FFF_FFFF && h <= 0x7FFF_FFFF ? (w, h) : nil
    }
}

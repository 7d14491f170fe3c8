extension MediaProbe {
    /// One typed pass over a file: bytes read once, a JPEG's header and Exif parsed once, a PNG's
    /// header and transparency read once, a GIF's first frame decoded once, a video's container
    /// opened once. What it finds is what `SendPlanner` decides on.
    package static func source(path: String, depth: ProbeDepth = .whole, maxPixels: Int = 100_000_000) throws -> ProbedSource {
        var p = try ProbeRead(path: path, depth: depth, maxPixels: maxPixels)
        switch FormatRegistry.picture(p.format)?.decoder {
        case .jpeg?:
            return try p.jpeg()
        case .png?:
            return try p.png()
        case .heif?:
            return try p.heif()
        case .jxl?:
            return try p.jxl()
        case .webp? where WebPAnimation.isAnimated(p.head):
            return try p.animatedWebP()
        case .webp?:
            return try p.webp()
        case .tiff?, .raw?, .ffmpeg?:
            return try p.decodedByOthers()
        case _ where p.format.isAudioVisual:
            return try p.audioVisual()
        case _ where p.format.isPackage:
            return try p.documentPackage()
        case _ where p.format.isDocument:
            return try p.workingDocument()
        default:
            return try p.other()
        }
    }
}

/// A file being probed: the bytes read so far (its head, or all of it) and what is known of it, with
/// one probe per family of formats.
struct ProbeRead {
    let path: String
    let file: InputFile
    let depth: ProbeDepth
    let maxPixels: Int
    /// What its bytes are (a FLAC behind an ID3 tag told as a FLAC).
    let format: MediaFormat
    var head: [UInt8]
    var whole: Bool
    var r: ProbeResult

    init(path: String, depth: ProbeDepth, maxPixels: Int) throws {
        file = try InputFile(path)
        head = file.head(262_144)
        var format = FormatSniffer.sniff(head)
        if format == .mp3, let behind = FormatSniffer.behindID3(file.reader) { format = behind }
        (self.path, self.depth, self.maxPixels, self.format) = (path, depth, maxPixels, format)
        r = ProbeResult(path: path, kind: .file, format: format, bytes: file.size)
        whole = head.count == file.size
    }

    var size: Int { file.size }

    mutating func readWhole() throws {
        if !whole { head = try file.whole(after: head); whole = true }
    }

    /// A long picture may go as a file with its own bytes (`--long-images file`): read whole,
    /// and what names the sender planned out, as for any audio or video file.
    mutating func asFile(_ s: ProbedSource, orientation: ExifOrientation? = nil) throws -> ProbedSource {
        guard let w = s.probe.width, let h = s.probe.height, h > LongImage.maxAspect * w else { return s }
        var s = s
        if !whole {
            try readWhole()
            if format == .jpeg || format == .png { s = try MediaProbe.still(head, isWhole: true, &r, jpegHeader: s.jpeg?.header) }
        }
        s.rewrite = MetadataRewrite.picture(head, jpeg: s.jpeg, orientation: orientation ?? s.probe.orientation)
        return s
    }
}

extension MediaProbe {
    /// A JPEG or PNG already in memory (an upload not yet on disk), probed as a file would be.
    package static func source(data: [UInt8], name: String = "the data") throws -> ProbedSource {
        guard !data.isEmpty else { throw MediaPrepError(.emptyInput, "\(name) is empty") }
        let format = FormatSniffer.sniff(data)
        guard format == .jpeg || format == .png else {
            throw MediaPrepError(.unsupportedFormat, "\(name): only JPEG and PNG are probed from memory, not \(format.rawValue)")
        }
        var r = ProbeResult(path: name, kind: .file, format: format, bytes: data.count)
        return try still(data, isWhole: true, &r)
    }

    /// JPEG and PNG: the header (and a JPEG's segments) parsed once, no pixel decoded.
    static func still(_ data: [UInt8], isWhole: Bool, _ r: inout ProbeResult, jpegHeader: JPEGHeader? = nil) throws -> ProbedSource {
        r.kind = .image
        r.frameCount = 1
        if r.format == .jpeg {
            let j = try JPEGSource(data, isWhole: isWhole, header: jpegHeader)
            r.orientation = j.orientation
            (r.width, r.height) = j.displaySize
            return ProbedSource(probe: r, data: data, isWhole: isWhole, jpeg: j, colour: SourceColour.inspect(j.iccProfile),
                                firstFrame: nil, media: nil)
        }
        guard let (w, h) = PNGHeader.size(data) else { throw MediaPrepError(.truncated, "\(r.path) has no complete PNG header") }
        r.orientation = PNGChunks.exifOrientation(data)
        (r.width, r.height) = r.orientation.swapsDimensions ? (h, w) : (w, h)
        r.hasAlpha = PNGHeader.mayHaveAlpha(data)
        let colours = EmbeddedProfile.ofPNG(data)
        var s = ProbedSource(probe: r, data: data, isWhole: isWhole, jpeg: nil,
                             colour: colours.flatMap { SourceColour.inspect($0.profile, describedAs: $0.name) }, firstFrame: nil, media: nil)
        // Kept even when empty: the plan's PNG routes read it instead of walking the chunks again.
        s.metadata = PictureMetadata(png: data)
        return s
    }
}

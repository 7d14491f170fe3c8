/// A file looked at once, carrying what later stages need so none of them reads or parses it again.
///
/// `@unchecked Sendable`: the opened container is used by one thread at a time, handed from the
/// probing stage to the preparing stage and never shared.
package struct ProbedSource: @unchecked Sendable {
    package internal(set) var probe: ProbeResult
    /// JPEG and PNG: the whole file (`ProbeDepth.whole`), or its start (`headers`, or `preparing` a
    /// file the decoder reads on from the file itself).
    private(set) var data: [UInt8]?
    /// True when `data` is the whole file.
    let isWhole: Bool
    /// JPEG: header, segments, orientation and metadata, parsed once.
    let jpeg: JPEGSource?
    /// An embedded profile that makes the pixels other than sRGB (nil: sRGB, untagged or unreadable).
    let colour: SourceColour?
    /// PNG, HEIC/AVIF, WebP, GIF, APNG: the metadata the file carries (a JPEG's is in `jpeg`), for what
    /// `check` reports; a still PNG's from the walk `PNGStripper` cuts by, even when it is empty.
    var metadata: PictureMetadata? = nil
    /// GIF, BMP, TIFF and animated WebP: the (first) picture, decoded while probing.
    let firstFrame: DecodedImage?
    /// Audio and video: the opened container, read on by the thumbnailer.
    let media: MediaInput?
    /// A still WebP's header, read without decoding (`WebPDecoder`): shrunk on load like a JPEG.
    var webp: WebPDecoder.Header? = nil
    /// Animated WebP, APNG and GIF: its frames, read on demand when it is made a GIF.
    var animation: AnimationSource? = nil
    /// Audio and video: its tags and private boxes, found while probing, taken out if it goes as it is.
    var rewrite: MetadataRewrite? = nil
    /// An HDR AVIF or HEIC still's transfer: its decode maps it to SDR (`HDRStill`).
    var hdr: HDRToSDR.Transfer? = nil
    /// A QuickTime movie from before `ftyp` (a camera's MJPEG clip, an old Apple movie): moved into an
    /// MP4 when its codecs would let it go as it is, since not every player opens one.
    var withoutFileType = false
    /// Why a picture format goes as a file, when the probe found it cannot be shown (a DNG of raw
    /// sensor data only): what the plan says, decided here once.
    var sentAsFileBecause: String? = nil
    /// A raw photo (a DNG of sensor data alone, a camera maker's raw) as LibRaw opened it: its
    /// demosaic waits for `prepare`, inside the batch's pixel budget, and `check` never pays for it.
    var raw: RawDecoder.Header? = nil
    /// A GIF without its comments and application data (`GIFStripper`), cut by the probe's walk:
    /// what goes when it is sent with its own frames. Nil when there is nothing to cut.
    var strippedGIF: [UInt8]? = nil
    /// A motion photo's video (`MotionPhoto`): its bytes in the file, and its length in seconds.
    var motionVideo: (range: Range<Int>, seconds: Double?)? = nil
    /// A HEIC's or AVIF's orientation from its Exif (its probe size is shown already turned): what its
    /// own bytes sent as a file keep, so a viewer still turns it.
    var heifOrientation: ExifOrientation? = nil
    /// A TIFF's header, read without decoding (`TIFFDecoder.header`): its decode waits for `prepare`,
    /// which shrinks it on load when it is too large to be sent at its own size.
    var tiff: TIFFDecoder.Header? = nil
    /// Goes through LibRaw's demosaic (`raw`).
    var demosaiced: Bool { raw != nil }
    /// An HDR still's size as shown, which its decode is shrunk on load against.
    var hdrSize: (width: Int, height: Int)? {
        guard hdr != nil, let w = probe.width, let h = probe.height else { return nil }
        return (w, h)
    }

    /// The file's bytes, handed over: this source keeps none, so they are freed once the taker is done.
    mutating func takeData() -> [UInt8] {
        defer { data = nil }
        return data ?? []
    }

    /// Refuses, before any pixel is decoded, an image whose decode would cost more than `maxPixels`
    /// allow (a JPEG after shrink-on-load to the view size unless it must be decoded whole), with the
    /// error `probe`, `check` and `prepare` all give.
    package func checkDecodeCost(profile: ImageProfile, maxPixels: Int) throws {
        if let j = jpeg {
            let d = JPEGDecoder.decodedSize(j, profile: profile)
            try JPEGDecoder.checkHeader(j.header, fileBytes: probe.bytes, decoded: d.width * d.height, limit: maxPixels)
        } else if let w = probe.width, let h = probe.height, w * h > maxPixels {
            throw MediaPrepError(.tooManyPixels, "\(w)×\(h) is over the \(maxPixels)-pixel limit")
        }
    }

    /// Pixels the image pipeline will hold decoded at once, after JPEG shrink-on-load to the
    /// view size; what a batch's memory budget is charged.
    package func decodedPixels(profile: ImageProfile) -> Int {
        guard let w = probe.width, let h = probe.height else { return 0 }
        switch probe.kind {
        case .image:
            if let j = jpeg {
                let size = JPEGDecoder.decodedSize(j, profile: profile)
                return size.width * size.height
            }
            if let header = webp {
                let size = WebPDecoder.decodedSize(header, profile: profile)
                return size.width * size.height
            }
            if let raw { return raw.heldPixels(profile: profile) }
            // An HDR still holds 16-bit samples twice (the decoder's, then the mapping's frame) before
            // it is halved: 12 bytes a pixel against an 8-bit picture's 4.
            return hdr == nil ? w * h : 3 * w * h
        case .animatedImage: return w * h
        case .video: return min(w * h, 1280 * 720)  // one frame at a time, scaled for the thumbnail
        case .voice, .file: return 0
        }
    }
}

/// How much of a file a probe reads: `check` needs headers (and a small JPEG whole, to prove it is
/// not damaged before saying it goes as it is); `prepare` needs every byte of an image anyway.
package enum ProbeDepth: Sendable {
    case headers(wholeUpTo: Int)
    case whole
    /// What `prepare` reads: the whole file, except a PNG or a baseline JPEG too large to be sent at
    /// its own size, whose head is kept and the rest read by the decoder from the file as it goes.
    case preparing
}

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
private struct ProbeRead {
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

    mutating func jpeg() throws -> ProbedSource {
        // A motion photo's video follows the picture: its header says so, and then it is read whole.
        if !whole, MotionPhoto.claimed(head) { try readWhole() }
        // The frame header, read once from the file's start when only the start may be needed.
        var header: JPEGHeader? = nil
        if case .headers(let limit) = depth, size > limit {
            // Every segment sits before the first scan; a large Exif thumbnail can push the frame
            // header past the first 256 KiB, and then the whole file is read after all.
            header = try? JPEGHeader(head)
            if header == nil { try readWhole() }
        } else if case .preparing = depth, !whole {
            // Always shrunk on load: the decoder reads the rest from the file as it goes.
            header = try? JPEGHeader(head)
            if !(header.map(JPEGDecoder.isStreamed) ?? false) { try readWhole() }
        } else {
            try readWhole()
        }
        var s = try asFile(MediaProbe.still(head, isWhole: whole, &r, jpegHeader: header))
        if whole, let j = s.jpeg, let v = MotionPhoto.video(in: head, jpegEnd: j.tail?.end) { s.motionVideo = (v, motionSeconds(head, v)) }
        return s
    }

    mutating func png() throws -> ProbedSource {
        if let info = AnimationHeaders.apng(head), let (w, h) = PNGHeader.size(head) {
            // An APNG: FFmpeg's decoder composes its frames (blend and dispose ops).
            (r.kind, r.animated, r.frameCount, r.videoCodec) = (.animatedImage, true, info.frames, "apng")
            (r.width, r.height) = (w, h)
            r.hasAlpha = PNGHeader.mayHaveAlpha(head)
            var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
            try readWhole()  // its text and eXIf chunks may follow the frames
            try ContainerEnd.png(head)
            s.metadata = PictureMetadata(png: head)
            s.animation = try FFmpegAnimation(path: path, data: FFmpegAnimation.apngFrames(head), width: w, height: h,
                                              plays: info.plays, maxPixels: maxPixels)
            return s
        }
        switch depth {
        case .whole: try readWhole()
        case .preparing where !PNGHeader.isStreamed(head): try readWhole()
        default: break
        }
        return try asFile(MediaProbe.still(head, isWhole: whole, &r))
    }

    mutating func heif() throws -> ProbedSource {
        // The header only: the decode waits for `prepare`, inside the batch's pixel budget.
        try readWhole()
        try ContainerEnd.isoBMFF(head)
        let h = try HEIFDecoder.header(head, format: format, maxPixels: maxPixels)
        // An animated AVIF (browsers', `avifenc`'s): its frames through FFmpeg, as an APNG's are,
        // made a GIF. Its still stays what goes where the frames would lose something FFmpeg 5.1
        // cannot join or map: transparency (a second, auxiliary track) or HDR.
        if format == .avif, h.hdr == nil, !h.hasAlpha, h.orientation == .up, AnimationHeaders.avifSequence(head) {
            // Read from the bytes already read whole, here and in `prepare`: the file is read once.
            if let (frames, w, ht) = try FFmpegAnimation.singleTrack(data: head, path: path) {
                (r.kind, r.animated, r.frameCount, r.videoCodec) = (.animatedImage, true, frames, "av1")
                (r.width, r.height, r.hasAlpha) = (w, ht, false)
                var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
                s.metadata = h.metadata
                s.animation = try FFmpegAnimation(path: path, data: head, width: w, height: ht, plays: 0, maxPixels: maxPixels)
                return s
            }
        }
        (r.width, r.height) = h.orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
        (r.kind, r.frameCount, r.hasAlpha) = (.image, 1, h.hasAlpha)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil,
                             colour: h.colour.flatMap { SourceColour.inspect($0.profile, describedAs: $0.name) }, firstFrame: nil, media: nil)
        s.metadata = h.metadata
        s.hdr = h.hdr
        s.heifOrientation = h.orientation
        if let v = MotionPhoto.video(in: head, jpegEnd: nil) { s.motionVideo = (v, motionSeconds(head, v)) }
        return try asFile(s, orientation: h.orientation)
    }

    mutating func jxl() throws -> ProbedSource {
        try readWhole()
        if !head.starts(with: [0xFF, 0x0A]) { try ContainerEnd.isoBMFF(head) }  // the container; a bare codestream has no sizes
        let h = try JXLDecoder.header(head, maxPixels: maxPixels)
        (r.width, r.height) = (h.width, h.height)
        (r.kind, r.frameCount, r.hasAlpha) = (.image, 1, h.hasAlpha)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: SourceColour.inspect(h.iccProfile),
                             firstFrame: nil, media: nil)
        s.hdr = h.hdr?.transfer
        return try asFile(s)
    }

    mutating func animatedWebP() throws -> ProbedSource {
        // FFmpeg 5.1's WebP decoder has no animation: libwebpdemux composes the frames.
        try readWhole()
        try ContainerEnd.riff(head)
        let animation = try WebPAnimation(head, maxPixels: maxPixels) { w, h, frames in
            var claimed = r
            (claimed.width, claimed.height, claimed.frameCount) = (w, h, frames)
            try AnimationCost.checkDecodeCost(claimed)  // an animated WebP is always remade
        }
        let first = animation.firstFrame()
        (r.width, r.height, r.frameCount) = (animation.width, animation.height, animation.frameCount)
        (r.kind, r.animated, r.videoCodec) = (.animatedImage, true, format.rawValue)
        r.hasAlpha = AlphaOps.hasRealAlpha(first)
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil,
                             firstFrame: DecodedImage(pixels: first, format: format, sourceWidth: first.width,
                                                      sourceHeight: first.height, orientation: .up), media: nil)
        s.animation = animation
        s.metadata = PictureMetadata(webp: head)
        return s
    }

    mutating func webp() throws -> ProbedSource {
        // Its EXIF and XMP may follow the image: read whole. Only the header is parsed here; the
        // decode waits for `prepare`, which knows the size it needs (shrink-on-load).
        try readWhole()
        try ContainerEnd.riff(head)
        let h = try WebPDecoder.header(head)
        (r.width, r.height, r.hasAlpha) = (h.width, h.height, h.hasAlpha)
        (r.kind, r.frameCount) = (.image, 1)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: SourceColour.inspect(WebPChunks.iccProfile(head)),
                             firstFrame: nil, media: nil)
        s.webp = h
        let m = PictureMetadata(webp: head)
        if !m.isEmpty { s.metadata = m }
        return try asFile(s)
    }

    /// A GIF read whole (comments and XMP may sit anywhere in it): one the file's end cuts is
    /// refused, as is one whose frames ask too much to decode.
    mutating func checkGIF() throws -> GIFBlocks.Walk? {
        try readWhole()
        // FFmpeg drops a frame the file's end cuts and plays the rest: it would go as if whole.
        let walk = GIFBlocks.walk(head)
        if let walk, case .cut(let at) = walk.end {
            throw MediaPrepError(.truncated, "the GIF is cut off: its block at byte \(at) (after \(walk.frames) complete frame\(walk.frames == 1 ? "" : "s")) runs past the end of the file, \(head.count) bytes")
        }
        // One that every profile remakes (a loop over the frame pixels a phone is asked to decode)
        // and that asks too much for it is refused before its first frame is decoded (a 6 KB GIF of
        // 255 frames of a 4096² screen cost 243 MB first).
        if let walk, head.count >= 10 {
            var claimed = r
            (claimed.width, claimed.height, claimed.frameCount) = (Bytes.le(head, 6, 2), Bytes.le(head, 8, 2), walk.frames)
            if AnimationCost.loopPixels(claimed) > AnimationCost.maxSentFramePixels {
                try AnimationCost.checkDecodeCost(claimed)
            }
        }
        return walk
    }

    /// A raw photo as LibRaw opens it (its sizes alone; `prepare` demosaics it), as `r.format` says it is.
    mutating func raw() throws -> ProbedSource {
        try readWhole()
        // From headers alone (`check`), the sensor data is read too: what `prepare` will decode.
        var headersOnly = false
        if case .headers = depth { headersOnly = true }
        let header = try RawDecoder.header(head, maxPixels: maxPixels, readSamples: headersOnly)
        (r.width, r.height) = header.displaySize
        (r.kind, r.frameCount, r.hasAlpha, r.orientation, r.videoCodec) = (.image, 1, false, .up, r.format.rawValue)
        var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        s.raw = header
        return try asFile(s)
    }
    /// No rewrite takes a maker's raw apart (its Exif, GPS and serial sit in maker boxes and IFDs):
    /// it leaves as LibRaw's pixels, or not at all.
    mutating func cameraRaw() throws -> ProbedSource {
        r.format = .cameraRaw
        do {
            return try raw()
        } catch let e as MediaPrepError where [.codecUnavailable, .unsupportedFormat, .decodeFailed].contains(e.code) {
            throw MediaPrepError(e.code, "a camera raw photo that cannot be shown here (\(e.message)): not sent, since its camera's metadata (GPS, serial number) could not be taken out")
        }
    }

    mutating func decodedByOthers() throws -> ProbedSource {
        let gif = format == .gif ? try checkGIF() : nil
        if format == .cameraRaw { return try cameraRaw() }
        let d: FFmpegImageDecoder.Result
        do {
            if format == .tiff {
                // Its tags alone: nothing is decoded, or allocated for the pixels, before the plan accepts it
                // (a 12 KB 10000×10000 1-bit TIFF took 686 MB in `check`).
                let h = try TIFFDecoder.header(file, maxPixels: maxPixels)
                (r.width, r.height) = h.orientation.swapsDimensions ? (h.height, h.width) : (h.width, h.height)
                (r.kind, r.frameCount, r.orientation, r.hasAlpha, r.videoCodec) = (.image, 1, h.orientation, h.mayHaveAlpha, format.rawValue)
                var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: SourceColour.inspect(h.iccProfile),
                                     firstFrame: nil, media: nil)
                s.tiff = h
                return try asFile(s, orientation: h.orientation)
            }
            d = try FFmpegImageDecoder.decode(path: path, format: format, options: DecodeOptions(maxPixels: maxPixels),
                                              countFrames: format == .gif)
        } catch let e as MediaPrepError where e == TIFFDecoder.cameraRaw {
            return try cameraRaw()
        } catch let e as MediaPrepError where e == TIFFDecoder.rawOnly {
            // Sensor data alone: demosaiced by LibRaw (its pixels are all that leaves). Where LibRaw is
            // missing or does not take its layout, the DNG goes as a document, its camera, dates and GPS
            // zeroed in place; damaged (LibRaw's data errors, a crash of its process, too few bytes for
            // its sensor) it is refused.
            do {
                return try raw()
            } catch let why as MediaPrepError where ![.corrupt, .truncated, .timeout, .outOfMemory].contains(why.code) {
                r.kind = .file
                var s = ProbedSource(probe: r, data: head, isWhole: true, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
                s.rewrite = MetadataRewrite.picture(head, jpeg: nil, orientation: .up)
                s.sentAsFileBecause = "a DNG of raw sensor data only, with no preview to show: sent as a file (\(why.message))"
                return s
            }
        }
        r.animated = d.frameCount > 1
        r.kind = r.animated ? .animatedImage : .image
        (r.width, r.height, r.orientation) = (d.image.displayWidth, d.image.displayHeight, d.image.orientation)
        r.frameCount = d.frameCount
        r.videoCodec = format.rawValue
        r.hasAlpha = AlphaOps.hasRealAlpha(d.image.pixels)
        var s = ProbedSource(probe: r, data: format == .gif ? head : nil, isWhole: format == .gif, jpeg: nil,
                             colour: SourceColour.inspect(d.image.iccProfile ?? (format == .jp2 ? EmbeddedProfile.fromJP2(head) : nil)),
                             firstFrame: d.image, media: nil)
        if let gif, let stripped = GIFStripper.strip(head, walk: gif), !stripped.isUnchanged {
            (s.metadata, s.strippedGIF) = (stripped.found, stripped.data)
        }
        if r.animated {
            s.animation = try FFmpegAnimation(path: path, width: d.image.pixels.width, height: d.image.pixels.height,
                                              plays: gif?.plays(in: head) ?? 1, maxPixels: maxPixels)
            return s
        }
        return try asFile(s)
    }

    mutating func audioVisual() throws -> ProbedSource {
        // Our own walk of the container first: it names what is cut or broken where FFmpeg can only
        // say it cannot open the file (an MP4 cut before its index at the end).
        switch format {
        case .matroska, .webm: try ContainerEnd.matroska(file.reader)
        case .ogg: try ContainerEnd.ogg(file.reader)
        default: break
        }
        let rewrite = try FormatRegistry.rewrite(file.reader, format: format)
        let input = try MediaInput(path: path)
        try MediaProbe.probeAV(input: input, path: path, into: &r)
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: input)
        s.rewrite = rewrite
        s.withoutFileType = format == .mov && !(head.count >= 8 && Array(head[4..<8]) == Array("ftyp".utf8))
        return s
    }

    mutating func documentPackage() throws -> ProbedSource {
        return try MediaProbe.document(path: path, file: file, r)
    }

    mutating func workingDocument() throws -> ProbedSource {
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        s.rewrite = try FormatRegistry.rewrite(file.reader, format: format)
        return s
    }

    mutating func other() throws -> ProbedSource {
        return ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
    }
}

extension MediaProbe {
    /// A PDF, a ZIP (a DOCX, an ODT, an EPUB…), a TAR or an HTML page: what names its author found,
    /// or why it goes as it came (encrypted, signed, unreadable to its library), said in its reasons.
    fileprivate static func document(path: String, file: InputFile, _ r: ProbeResult) throws -> ProbedSource {
        var s = ProbedSource(probe: r, data: nil, isWhole: false, jpeg: nil, colour: nil, firstFrame: nil, media: nil)
        switch r.format {
        case .pdf:
            do {
                s.rewrite = try PDFCleaner.rewrite(path: path, size: r.bytes)
            } catch let e as MediaPrepError where [.corrupt, .unsupportedFormat].contains(e.code) {
                s.sentAsFileBecause = e.message
            }
        case .zip:
            switch try ZipPackageCleaner.inspect(path: path, size: r.bytes) {
            case .clean(let rewrite, let family):
                s.probe.format = family.format
                s.rewrite = rewrite
            case .asItCame(let reason, let family):
                s.probe.format = family.format
                s.sentAsFileBecause = reason
            }
        case .tarGzip:
            do {
                s.rewrite = try FormatRegistry.rewrite(file.reader, format: .tarGzip)
            } catch let e as MediaPrepError where e == TarRewrite.tooLargeToClean {
                s.sentAsFileBecause = e.message
            }
        default:
            s.rewrite = try FormatRegistry.rewrite(file.reader, format: r.format)
        }
        return s
    }
}

/// A motion photo's video length, probed from its bytes; nil when FFmpeg cannot read it.
private func motionSeconds(_ data: [UInt8], _ range: Range<Int>) -> Double? {
    (try? MediaProbe.probeAV(data: Array(data[range]), name: "the motion photo's video"))?.durationSeconds
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
    fileprivate static func still(_ data: [UInt8], isWhole: Bool, _ r: inout ProbeResult, jpegHeader: JPEGHeader? = nil) throws -> ProbedSource {
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

/// The PNG IHDR fields a probe needs, read without libpng.
enum PNGHeader {
    /// Over the pixels any image is sent at (`ImageProfile.maxSentPixels`), with every chunk before
    /// the image data in `head`: such a PNG is always shrunk on load, so `prepare` streams it from
    /// the file instead of reading it whole (59 MP PNG, 17.7 MB: its peak memory less by that much).
    static func isStreamed(_ head: [UInt8]) -> Bool {
        guard let (w, h) = size(head), w * h > ImageProfile.simplex.maxSentPixels else { return false }
        return PNGChunks.reachesImageData(head)
    }

    static func size(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 24 else { return nil }
        func be32(_ o: Int) -> Int { head[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (w, h) = (be32(16), be32(20))
        // The PNG spec caps both at 2^31 − 1, which also keeps w × h within Int (found by fuzzing:
        // 0xFFFFFFFF × 0xFFFFFFFF overflowed the pixel-limit check).
        return w > 0 && h > 0 && w <= 0x7FFF_FFFF && h <= 0x7FFF_FFFF ? (w, h) : nil
    }

    /// Why a PNG is dearer to decode than its size says, as `check` words it, or nil: 8 bits a sample
    /// or fewer and a palette of at most 256 entries is what every recipient's decoder handles.
    static func decodeCost(_ head: [UInt8]) -> String? {
        guard head.count >= 26 else { return "no complete header" }
        if head[24] > 8 { return "16-bit samples brought to 8 bits" }
        if let plte = PNGChunks.chunks(head).first(where: { $0.type == "PLTE" }), plte.body.count > 768 {
            return "a palette over 256 entries re-encoded"
        }
        return nil
    }

    /// Colour types 4 and 6 carry alpha, as does a tRNS chunk (before IDAT, so in the head; libpng
    /// ignores one after it). Whether any pixel is really transparent is known only once decoded. The
    /// chunks are walked, not the bytes searched: a search read all of milkyway-5120.png's 10 MB, and
    /// "tRNS" may turn up inside compressed data.
    static func mayHaveAlpha(_ head: [UInt8]) -> Bool {
        head.count > 25 && (head[25] == 4 || head[25] == 6) || PNGChunks.beforeImageData(head).contains { $0.type == "tRNS" }
    }
}

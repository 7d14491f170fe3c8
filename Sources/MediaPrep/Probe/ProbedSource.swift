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

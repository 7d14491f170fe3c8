/// The first bytes of a file, as every recogniser reads them.
struct SniffedHead {
    /// The first `FormatSniffer.headerLength` bytes: what most magics need.
    let b: [UInt8]
    /// As much as the caller passed: some formats are told further in (a TS's third packet, DICOM's
    /// preamble, an SVG's root element, a TAR's magic at 257).
    let data: [UInt8]

    func at(_ offset: Int, _ ascii: String) -> Bool {
        let bytes = Array(ascii.utf8)
        return b.count >= offset + bytes.count && b[offset..<offset + bytes.count].elementsEqual(bytes)
    }
    func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
        b.count >= offset + bytes.count && b[offset..<offset + bytes.count].elementsEqual(bytes)
    }
    func le(_ offset: Int, _ n: Int) -> Int { Bytes.le(b, offset, n) }
}

/// One format (or a family told by the same magic): how it is recognised, and how what names its
/// sender is taken out of it without touching its streams. Declared in the format's home.
struct FormatEntry: Sendable {
    /// What the entry recognises: its formats (a family may answer one of several).
    let formats: [MediaFormat]
    let recognise: @Sendable (SniffedHead) -> MediaFormat?
    /// The lossless rewrite of a container or document (nil: the format has none here, or it is a
    /// picture, whose rewrite is in `pictures`).
    var rewrite: (@Sendable (ByteReader, MediaFormat) throws -> MetadataRewrite?)? = nil
    /// The pictures among its formats, with their decoder and rewrite. (No dictionary: a first
    /// `[MediaFormat: …]` cost every start 0.23 million instructions instantiating its metadata,
    /// 6 % of `check photo.jpg`, callgrind.)
    var picture: PictureHandling? = nil

    /// This entry with `formats` declared pictures.
    func picture(_ formats: MediaFormat..., decoder: PictureDecoder, rewrite: PictureHandling.Rewrite? = nil) -> FormatEntry {
        var e = self
        e.picture = PictureHandling(formats: formats, decoder: decoder, rewrite: rewrite)
        return e
    }
}

/// A picture format's own handling: which decoder reads its header and pixels (and so how its probe
/// counts what decoding it costs, before any pixel is allocated), and how what names its sender is
/// cut from its own bytes when it goes as a file.
struct PictureHandling: Sendable {
    typealias Rewrite = @Sendable (_ data: [UInt8], _ jpeg: JPEGSource?, _ orientation: ExifOrientation) -> MetadataRewrite?
    let formats: [MediaFormat]
    let decoder: PictureDecoder
    /// Nil: nothing of it is sent as it came (it is always decoded and re-encoded).
    let rewrite: Rewrite?
}

/// Which decoder reads a picture, and so how its header's claim is counted.
enum PictureDecoder: Sendable {
    /// libjpeg: at its DCT shrink-on-load size; progressive and arithmetic whole.
    case jpeg
    /// libpng: rows streamed and shrunk when over the sent-pixel cap, else whole.
    case png
    /// libheif: the tiles and layers of its item graph.
    case heif
    /// libjxl: whole, its SizeHeader's cost estimated (`JXLDecoder.admit`).
    case jxl
    /// libwebp: shrunk on load; an animation's frames times its canvas.
    case webp
    /// libtiff: its directory's sizes, shrunk on load; sensor data alone goes to LibRaw.
    case tiff
    /// LibRaw: its sensor's size, demosaiced in a forked child.
    case raw
    /// FFmpeg: its codec's header, then the first frame whole (a GIF's frames times its screen first).
    case ffmpeg
}

/// The one dispatch over formats: asked in order, the first recogniser that answers wins (a magic
/// other formats' text may start with comes after them, a frame sync near the end).
enum FormatRegistry {
    static let entries: [FormatEntry] = [
        PictureFormats.jpeg, PictureFormats.png, PictureFormats.gif, RIFFFormats.entry,
        StreamFormats.flv, StreamFormats.mpegps, StreamFormats.asf, StreamFormats.realMedia, StreamFormats.mxf, StreamFormats.dv,
        AudioFormats.amr, AudioFormats.aiff, AudioFormats.caf, AudioFormats.wavpack, AudioFormats.ape, AudioFormats.tta,
        AudioFormats.ac3, AudioFormats.eac3, AudioFormats.dts, AudioFormats.truehd,
        PictureFormats.bmp, PictureFormats.qoi, PictureFormats.cameraRaw,
        WorkingDocuments.psd, WorkingDocuments.xcf, WorkingDocuments.psp, WorkingDocuments.exr, WorkingDocuments.dpx, WorkingDocuments.fits,
        PictureFormats.tiff, ISOFormats.ftyp, ISOFormats.quickTime, PictureFormats.jp2, PictureFormats.jxl,
        StreamFormats.ebml, AudioFormats.ogg, AudioFormats.flac, AudioFormats.id3, AudioFormats.frameSync, StreamFormats.transportStream,
        WorkingDocuments.dicom, DocumentFormats.pdf, DocumentFormats.zip, DocumentFormats.tar,
        WorkingDocuments.svg, DocumentFormats.html, DocumentFormats.tarGzip, WorkingDocuments.svgz,
    ]

    /// What `data` is, by the first entry that recognises it.
    static func recognise(_ data: [UInt8]) -> MediaFormat {
        let head = SniffedHead(b: Array(data.prefix(FormatSniffer.headerLength)), data: data)
        for entry in entries { if let format = entry.recognise(head) { return format } }
        return .unknown
    }

    private static let byFormat: [MediaFormat: FormatEntry] = {
        var map: [MediaFormat: FormatEntry] = [:]
        for entry in entries { for f in entry.formats where map[f] == nil || entry.rewrite != nil { map[f] = entry } }
        return map
    }()

    /// How `format` is decoded and stripped, when it is a picture (the first entry that says so).
    static func picture(_ format: MediaFormat) -> PictureHandling? {
        for entry in entries { if let p = entry.picture, p.formats.contains(format) { return p } }
        return nil
    }

    /// The entry that rewrites `format`, if one does.
    static func entry(for format: MediaFormat) -> FormatEntry? { byFormat[format] }

    /// What `format` carries that can be taken out losslessly (nil: nothing, or no rewrite here).
    static func rewrite(_ r: ByteReader, format: MediaFormat) throws -> MetadataRewrite? {
        try byFormat[format]?.rewrite?(r, format)
    }
}

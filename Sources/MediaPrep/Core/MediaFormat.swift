/// What the bytes of a file are, decided by content so a lying extension changes nothing.
public enum MediaFormat: String, Sendable, Codable {
    case jpeg, png, gif, webp, bmp, tiff
    /// HEIC/HEIF (the iPhone's default) and AVIF, read through libheif.
    case heic, avif
    /// JPEG XL, read through libjxl.
    case jxl
    /// JPEG 2000 (scanners, macOS's Preview, archives), read through FFmpeg.
    case jp2
    /// A camera's raw photo in a format of its maker's (Canon CR2 and CR3, Olympus ORF, Panasonic RW2,
    /// Fujifilm RAF), and a TIFF holding sensor data that is no DNG (Nikon NEF, Sony ARW, once probed):
    /// demosaiced by LibRaw.
    case cameraRaw
    /// QOI ("Quite OK Image"), lossless, read through FFmpeg.
    case qoi
    case mp4, mov, matroska, webm, m4a, aac, mp3, ogg, wav, flac
    /// AVI, as older cameras record: FFmpeg reads it; it leaves as MP4.
    case avi
    /// MPEG transport stream (.ts; a camcorder's AVCHD .mts and .m2ts), MPEG program stream (.mpg,
    /// .vob) and Flash video: always transcoded to MP4 (`isTranscodedOnly`).
    case mpegts, mpegps, flv
    /// Windows Media (WMV video, WMA audio) in ASF, its Content Description naming the author: no
    /// Apple player plays its codecs; always transcoded, as the three above are.
    case asf
    /// A DV camcorder's raw DIF stream (its recording date rides in every frame), RealMedia (its
    /// content description names the author) and MXF (a professional camera's or editor's, naming
    /// them and their dates): unknown files until now, sent as they came; always transcoded.
    case dv, realMedia, mxf
    /// AMR-NB/WB, as older phones' recorders write it: a voice note once transcoded.
    case amr
    /// AIFF/AIFC and Core Audio Format, as Macs and iOS apps write sound.
    case aiff, caf
    /// WavPack, Monkey's Audio and TTA (lossless music, APEv2 or ID3 tagged) and raw AC-3.
    case wavpack, ape, tta, ac3
    /// Films' sound as a bare stream (a track pulled from a Blu-ray or a remux): E-AC-3 (Dolby Digital
    /// Plus), DTS, and Dolby TrueHD (or MLP). They were unknown files, sent as they came.
    case eac3, dts, truehd
    /// A Photoshop document: sent as a file (the working file its sender shares), its Exif, IPTC and
    /// XMP resources emptied in place.
    case psd
    /// A GIMP document: sent as a file, as a PSD is, its Exif, XMP, IPTC and comment parasites emptied in place.
    case xcf
    /// Working images of film, VFX and astronomy, sent as files as a PSD is, what names the sender
    /// emptied in place: OpenEXR (owner, capture date, GPS, a renderer's file paths), DPX (creator,
    /// project, the scanner's serial number) and FITS (the observing site, the observer, the night).
    case exr, dpx, fits
    /// SVG: a drawing sent as a file, the editor's paths, its metadata and its embedded photos' Exif emptied in place.
    case svg
    /// SVGZ: an SVG compressed with gzip (Inkscape's and Illustrator's), cleaned as an SVG inside and compressed again.
    case svgz
    /// DICOM: a medical scan sent as a file, the patient's, staff's, hospital's and scan's details emptied in place.
    case dicom
    /// PaintShop Pro: sent as a file, as a PSD is, its creator fields and Exif emptied in place.
    case psp
    /// Documents sent as files, what names their author taken out: a PDF (through qpdf), a ZIP and the
    /// documents that are ZIPs (Office Open XML, OpenDocument, EPUB, through libzip), a TAR, an HTML page.
    case pdf, zip, officeDocument, openDocument, epub, tar, html
    /// A TAR compressed with gzip (.tar.gz, .tgz): cleaned as a TAR inside, compressed again.
    case tarGzip
    case unknown

    /// Still or animatable image formats the image pipeline decodes.
    public var isImage: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .bmp, .tiff, .heic, .avif, .jxl, .jp2, .cameraRaw, .qoi: return true
        default: return false
        }
    }

    /// Containers that never leave as they are, even with `--video original`: no stripper takes their
    /// metadata out in place (FLV's onMetaData, a TS's SDT), and an AVCHD camcorder's date and GPS ride
    /// in the H.264 stream's own SEI messages, which a remux or a copy would keep.
    package var isTranscodedOnly: Bool { [.mpegts, .mpegps, .flv, .asf, .dv, .realMedia, .mxf].contains(self) }

    /// "an MPEG-TS", "an FLV", as a reason names a transcoded-only container.
    package var containerArticleName: String {
        switch self {
        case .mpegts: return "an MPEG-TS"
        case .mpegps: return "an MPEG-PS"
        case .flv: return "an FLV"
        case .asf: return "a Windows Media file"
        case .dv: return "a DV camcorder stream"
        case .realMedia: return "a RealMedia file"
        case .mxf: return "an MXF"
        default: return "a \(rawValue)"
        }
    }

    /// Working images sent as files, whatever names their sender emptied in place (`MetadataRewrite.document`).
    package var isDocument: Bool { [.psd, .xcf, .psp, .exr, .dpx, .fits, .svg, .svgz, .dicom].contains(self) }

    /// Documents and archives rewritten whole or member by member (`Documents/`).
    package var isPackage: Bool { [.pdf, .zip, .officeDocument, .openDocument, .epub, .tar, .tarGzip, .html].contains(self) }

    /// Containers handed to FFmpeg as audio or video.
    public var isAudioVisual: Bool {
        switch self {
        case .mp4, .mov, .matroska, .webm, .avi, .mpegts, .mpegps, .flv, .asf, .dv, .realMedia, .mxf, .m4a, .aac, .mp3, .ogg, .wav, .flac, .amr, .aiff, .caf, .wavpack, .ape, .tta, .ac3, .eac3, .dts, .truehd: return true
        default: return false
        }
    }
}

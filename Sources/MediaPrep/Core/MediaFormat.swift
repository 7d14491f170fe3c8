/// What the bytes of a file are, decided by content so a lying extension changes nothing.
public enum MediaFormat: String, Sendable, Codable {
    case jpeg, png, gif, webp, bmp, tiff
    /// HEIC/HEIF (the iPhone's default) and AVIF, read through libheif.
    case heic, avif
    /// JPEG XL, read through libjxl.
    case jxl
    case mp4, mov, matroska, webm, m4a, aac, mp3, ogg, wav, flac
    /// AVI, as older cameras record: FFmpeg reads it; it leaves as MP4.
    case avi
    /// MPEG transport stream (.ts; a camcorder's AVCHD .mts and .m2ts), MPEG program stream (.mpg,
    /// .vob) and Flash video: always transcoded to MP4 (`isTranscodedOnly`).
    case mpegts, mpegps, flv
    case unknown

    /// Still or animatable image formats the image pipeline decodes.
    public var isImage: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .bmp, .tiff, .heic, .avif, .jxl: return true
        default: return false
        }
    }

    /// Containers that never leave as they are, even with `--video original`: no stripper takes their
    /// metadata out in place (FLV's onMetaData, a TS's SDT), and an AVCHD camcorder's date and GPS ride
    /// in the H.264 stream's own SEI messages, which a remux or a copy would keep.
    package var isTranscodedOnly: Bool { [.mpegts, .mpegps, .flv].contains(self) }

    /// Containers handed to FFmpeg as audio or video.
    public var isAudioVisual: Bool {
        switch self {
        case .mp4, .mov, .matroska, .webm, .avi, .mpegts, .mpegps, .flv, .m4a, .aac, .mp3, .ogg, .wav, .flac: return true
        default: return false
        }
    }
}

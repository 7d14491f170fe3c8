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
    /// MPEG transport stream (.ts; a camcorder's AVCHD .mts and .m2ts): always transcoded to MP4.
    case mpegts
    case unknown

    /// Still or animatable image formats the image pipeline decodes.
    public var isImage: Bool {
        switch self {
        case .jpeg, .png, .gif, .webp, .bmp, .tiff, .heic, .avif, .jxl: return true
        default: return false
        }
    }

    /// Containers handed to FFmpeg as audio or video.
    public var isAudioVisual: Bool {
        switch self {
        case .mp4, .mov, .matroska, .webm, .avi, .mpegts, .m4a, .aac, .mp3, .ogg, .wav, .flac: return true
        default: return false
        }
    }
}

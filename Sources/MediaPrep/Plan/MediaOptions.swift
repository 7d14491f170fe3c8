import UploadPlanner

/// What becomes of videos and voice notes: the sender chooses playable-everywhere or as-it-came, and a size.
public struct MediaOptions: Sendable, Equatable {
    public enum VideoMode: String, Sendable, CaseIterable {
        /// Sent exactly as it came (a WebM or MKV may not play on iPhones).
        case original
        /// MP4 with H.264/HEVC + AAC as is; the same codecs in another container remuxed; the rest
        /// transcoded to H.264 + AAC.
        case compatible
    }

    /// How audio is sent: SimpleX's voice messages exist only up to 300 s; a longer recording (a
    /// podcast, a lecture) goes as a file, as the app's file picker sends it.
    public enum AudioMode: String, Sendable, CaseIterable {
        /// A recording (mono, untagged) is a voice message up to the voice limit; music (an artist or
        /// album tag, cover art, or stereo and ≥ 30 s) and longer recordings go as files.
        case auto
        /// Always a voice message (over the limit: refused, `voiceTooLong`).
        case voice
        /// Always a file, its own bytes and name.
        case file
    }

    /// A screenshot too long to stay readable as one image within the budget (taller than 12 times
    /// its width: measured, a 1170×9000 article still reads 97% shrunk into one image).
    public enum LongImages: String, Sendable, CaseIterable {
        /// Cut into parts (a little overlap) sent in order as one album, each within the budget;
        /// more than 10 parts (SimpleX's album limit): a file.
        case split
        /// Its original bytes as a file, opened and zoomed in any viewer.
        case file
        /// One image, however small its text becomes.
        case shrink
    }

    public var video = VideoMode.compatible
    public var longImages = LongImages.split
    public var audio = AudioMode.auto
    /// A video is never sent larger than this (re-encoded to fit); nil: the profile's cap, if any.
    public var videoMaxBytes: Int?
    /// A voice note is never sent larger than this (re-encoded at a lower rate to fit).
    public var voiceMaxBytes: Int?
    /// An animated GIF larger than this is made a smaller GIF within the image budget (nil: GIFs go as they are).
    public var animatedMaxBytes: Int?
    /// A video's picture is at most this many rows on its short side (480, 720, 1080: "720p" whether
    /// the clip is landscape or portrait): a larger one is transcoded down to it; nil: no cap.
    public var videoMaxHeight: Int?
    /// The named quality the sender picked; `standard` changes nothing.
    public var quality = Quality.standard
    /// The part of each video to send, in seconds from its start: without a transcode the cut falls on
    /// the keyframe at or before `lowerBound` and the packets between are copied; with one, exact to the frame.
    public var trim: Range<Double>?
    /// A video that cannot fit its byte budget whole is sent as its first part that fits.
    public var trimToFit = false
    /// A motion photo (Google's or Samsung's) goes as its still, as the app sends it, or as its video.
    public var motion = Motion.still
    /// Refuse a document whose metadata cannot be taken out (an encrypted or damaged PDF, a signed
    /// package, a ZIP of encrypted members) rather than send it as it came, said so.
    public var refuseUncleaned = false

    public enum Motion: String, Sendable, CaseIterable {
        /// The photo, its video left out (said so).
        case still
        /// Its seconds of video as a video message, stripped like every video, the still its preview.
        case video
    }

    /// What a sender picks in one word, each a set of the limits that exist: standard is what the app
    /// sends; HD the largest image recipients still receive without asking and 1080p video; original a
    /// photo's own pixels (a JPEG or PNG an image message, other formats a file), its metadata gone.
    public enum Quality: String, Sendable, CaseIterable {
        case standard, hd, original
    }

    public init() {}

    /// `quality`'s limits applied to `profile` and to these options, where the sender set none of
    /// their own (`explicitBytes`: a `--max-bytes` given; an explicit video height stays).
    public mutating func apply(_ quality: Quality, to profile: inout ImageProfile, limits: SimplexLimits = .simplex, explicitBytes: Bool = false) {
        self.quality = quality
        guard quality == .hd else { return }
        if !explicitBytes, profile.maxBytes < limits.maxImageSizeAutoReceive {
            profile.maxBytes = limits.maxImageSizeAutoReceive
            profile.name = "hd"
        }
        if videoMaxHeight == nil { videoMaxHeight = 1080 }
    }

    /// The sizes a recipient's app downloads without asking (MAX_VIDEO_SIZE_AUTO_RCV, MAX_VOICE_SIZE_AUTO_RCV,
    /// MAX_IMAGE_SIZE_AUTO_RCV).
    public static func autoReceive(_ limits: SimplexLimits = .simplex) -> MediaOptions {
        var o = MediaOptions()
        o.videoMaxBytes = limits.maxVideoSizeAutoReceive
        o.voiceMaxBytes = limits.maxVoiceSizeAutoReceive
        o.animatedMaxBytes = limits.maxImageSizeAutoReceive
        return o
    }
}

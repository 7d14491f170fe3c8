/// How a video is re-encoded to H.264 + AAC: a bot can pin these, a byte budget chooses them.
package struct VideoEncodePlan: Sendable, Equatable {
    /// Cap on the long side of the picture as displayed (never upscaled); even sizes are kept.
    package var maxLongSide: Int
    /// Frames faster than this are dropped (a 60 fps screen capture at 30 uses half the bits).
    package var maxFrameRate: Double
    /// Average video rate for a two-pass encode; nil encodes at constant quality `crf`.
    package var videoBitRate: Int?
    package var crf = 23
    /// With `crf`, a ceiling on the rate (VBV), so a generous budget still bounds the size.
    package var maxRate: Int?
    /// The VBV buffer in seconds of `maxRate`: how far a stretch may run over it (2 s by default;
    /// shorter for a short clip, whose first keyframe would otherwise be most of the file).
    package var bufferSeconds = 2.0
    package var audioBitRate: Int
    package var audioChannels: Int
    package var audioSampleRate: Int
    /// libx264 preset: medium, x264's own default (what `ffmpeg -c:v libx264` uses).
    package var preset = "medium"
    /// Seconds of the source kept (`--trim`, `--trim-to-fit`), exact to the frame; nil: all of it.
    package var trim: Range<Double>?

    package init(maxLongSide: Int, maxFrameRate: Double, videoBitRate: Int? = nil, audioBitRate: Int,
                audioChannels: Int, audioSampleRate: Int) {
        self.maxLongSide = maxLongSide
        self.maxFrameRate = maxFrameRate
        self.videoBitRate = videoBitRate
        self.audioBitRate = audioBitRate
        self.audioChannels = audioChannels
        self.audioSampleRate = audioSampleRate
    }

    /// Long side cap without a budget: what a phone shows full screen, and what every client decodes.
    package static let defaultLongSide = 1920

    /// Without a byte budget: constant quality (x264's default CRF 23) at ≤ 1920 px and ≤ 60 fps,
    /// AAC at 128 kbit/s (FFmpeg's default), the source's channels up to stereo.
    package static func compatible(_ source: VideoSource) -> VideoEncodePlan {
        VideoEncodePlan(maxLongSide: defaultLongSide, maxFrameRate: 60, audioBitRate: source.audioChannels > 1 ? 128_000 : 64_000,
                        audioChannels: min(2, source.audioChannels), audioSampleRate: AACRates.nearest(source.audioSampleRate))
    }

    /// H.264 spends at least this many bits a pixel a frame before blocks show (720p30: 111 kbit/s).
    static let floorBitsPerPixel = 0.004

    /// A transcode for compatibility alone does not grow the file: constant quality with the rate
    /// capped at the source's own (its total, less the AAC it will carry, at 48 kbit/s or a quarter
    /// of the total, whichever is more, up to the default), and no lower than `floorBitsPerPixel`
    /// at the output size. Returns the plan and, when the floor binds, the words to say it may grow.
    /// (A 466 KB 20 s 720p VP9: 2.81 MB uncapped; see docs/media.md for the measurement.)
    package static func compatible(_ source: VideoSource, sourceBitRate: Int?, maxLongSide: Int = defaultLongSide) -> (plan: VideoEncodePlan, note: String?) {
        var plan = compatible(source)
        plan.maxLongSide = min(plan.maxLongSide, maxLongSide)
        guard let total = sourceBitRate, total > 0 else { return (plan, nil) }
        if source.hasAudio { plan.audioBitRate = min(plan.audioBitRate, max(48_000, total / 4)) }
        let scale = min(1, Double(plan.maxLongSide) / Double(max(1, max(source.width, source.height))))
        let size = (width: Int(Double(source.width) * scale), height: Int(Double(source.height) * scale))
        let fps = min(plan.maxFrameRate, source.frameRate > 0 ? source.frameRate : 30)
        let floor = Int(floorBitsPerPixel * Double(size.width * size.height) * fps)
        let cap = total - (source.hasAudio ? plan.audioBitRate : 0)
        plan.maxRate = max(floor, cap)
        plan.bufferSeconds = min(2, max(0.5, source.seconds / 10))
        let note = cap < floor
            ? "the source's \(total / 1000) kbit/s is below what H.264 needs at \(size.width)×\(size.height) (\(floor / 1000) kbit/s): the file may grow"
            : nil
        return (plan, note)
    }
}

/// What the plan needs to know of a source, from the probe.
package struct VideoSource: Sendable, Equatable {
    /// As displayed (rotation applied).
    package var width: Int
    package var height: Int
    package var seconds: Double
    package var frameRate: Double
    /// 0 when there is no audio stream.
    package var audioChannels: Int
    package var audioSampleRate: Int

    package init(width: Int, height: Int, seconds: Double, frameRate: Double, audioChannels: Int, audioSampleRate: Int) {
        (self.width, self.height, self.seconds, self.frameRate) = (width, height, seconds, frameRate)
        (self.audioChannels, self.audioSampleRate) = (audioChannels, audioSampleRate)
    }

    var hasAudio: Bool { audioChannels > 0 }

    /// From a probe; a missing frame rate counts as 30, missing audio parameters as none.
    init(probe p: ProbeResult) {
        self.init(width: p.width ?? 0, height: p.height ?? 0, seconds: p.durationSeconds ?? 0, frameRate: p.frameRate ?? 30,
                  audioChannels: p.audioCodec == nil ? 0 : max(1, p.audioChannels ?? 2), audioSampleRate: p.audioSampleRate ?? 48_000)
    }
}

/// Sample rates the AAC encoder takes.
enum AACRates {
    static let all = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000]
    static func nearest(_ rate: Int) -> Int {
        guard rate > 0 else { return 48_000 }
        return all.min { abs($0 - rate) < abs($1 - rate) } ?? 48_000
    }
}

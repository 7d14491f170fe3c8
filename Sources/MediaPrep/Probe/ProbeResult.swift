import UploadPlanner

/// Everything `probe` learns about a file without preparing it.
public struct ProbeResult: Sendable, Equatable {
    public var path: String
    public var kind: UploadContentKind
    public var format: MediaFormat
    public var bytes: Int
    /// FFmpeg's demuxer name (e.g. "mov,mp4,m4a,3gp,3g2,mj2"), nil for JPEG/PNG read natively.
    public var container: String?
    public var videoCodec: String?
    public var audioCodec: String?
    public var audioChannels: Int?
    public var audioSampleRate: Int?
    /// The audio stream's own rate, where its header or the demuxer states one.
    public var audioBitRate: Int?
    /// As displayed: orientation or rotation already applied.
    public var width: Int?
    public var height: Int?
    /// Clockwise degrees to turn stored frames upright (0, 90, 180, 270).
    public var rotation: Int = 0
    package var orientation: ExifOrientation = .up
    public var hasAlpha: Bool = false
    public var durationSeconds: Double?
    public var bitRate: Int?
    public var frameRate: Double?
    /// Fields, not frames (a DVD, a camcorder's 1080i): a transcode deinterlaces.
    public var interlaced = false
    public var frameCount: Int?
    public var animated: Bool = false
    /// Audio that is music, not a recording, and why ("artist and album tags", "stereo, 3 min"): the
    /// app sends a picked song as a file; only its recorder makes voice messages.
    public var music: String?
}

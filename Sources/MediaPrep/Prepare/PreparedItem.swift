import UploadPlanner

/// One input's outcome: the file to send and what the message says about it, or why not.
public struct PreparedItem: Sendable {
    public var input: String
    public var kind: MediaKind
    public var output: String?
    public var bytes: Int?
    public var width: Int?
    public var height: Int?
    /// Whole seconds as the message carries them: truncated for video, rounded for voice.
    public var durationSeconds: Int?
    public var preview: String?
    /// jpeg/png for prepared images, else the sniffed source format.
    public var format: MediaFormat?
    public var quality: Int?
    public var route: PrepareRoute?
    /// Whether recipients download it without asking (SimpleX's *_AUTO_RCV limits).
    public var autoReceive: Bool?
    /// The message content without text; the composer adds text to the last one.
    public var content: MsgContent?
    public var error: MediaPrepError?
    /// How the named output travels (computed once it has its final name).
    public var transfer: TransferPlan?
    /// With `AttachmentPreparer.stagesOutputs`: the file, written but not yet named (`output` is nil until then).
    public var staged: StagedFile?

    public init(input: String, kind: MediaKind) {
        self.input = input
        self.kind = kind
    }
}

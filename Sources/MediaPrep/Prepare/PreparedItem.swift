import UploadPlanner

/// One input's outcome: the file to send and what the message says about it, or why not.
package struct PreparedItem: Sendable {
    package var input: String
    package var kind: UploadContentKind
    package var output: String?
    package var bytes: Int?
    package var width: Int?
    package var height: Int?
    /// Whole seconds as the message carries them: truncated for video, rounded for voice.
    package var durationSeconds: Int?
    package var preview: String?
    /// jpeg/png for prepared images, else the sniffed source format.
    package var format: MediaFormat?
    package var quality: Int?
    package var route: PrepareRoute?
    /// Whether recipients download it without asking (SimpleX's *_AUTO_RCV limits).
    package var autoReceive: Bool?
    /// The message content without text; the composer adds text to the last one.
    package var content: MsgContent?
    package var error: MediaPrepError?
    /// How the named output travels (computed once it has its final name).
    package var transfer: TransferPlan?
    /// A long screenshot's later parts, in order (this item is part 1); each its own file and message.
    package var parts: [PreparedItem] = []
    /// Which part of how many this is (nil: the input is one attachment).
    package var part: (index: Int, of: Int)?
    /// With `AttachmentPreparer.stagesOutputs`: the file, written but not yet named (`output` is nil until then).
    package var staged: StagedFile?
    /// `--resume`: its output was already complete in the output folder; nothing was done.
    package var skipped = false
    /// Skipped for another reason than `--resume` (the movie of a Live Photo, sent with its still).
    package var skipReason: String?
    /// Why this kind, route and quality, in words (the plan's reasons, and the quality search's).
    package var reasons: [String] = []
    /// Its transparency was flattened onto this colour (0xRRGGBB): a JPEG has none.
    package var flattenedOnto: UInt32?

    package init(input: String, kind: UploadContentKind) {
        self.input = input
        self.kind = kind
    }
}

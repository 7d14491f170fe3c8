import FoundationEssentials
import Glibc
import UploadPlanner

/// Everything a send of many attachments needs to know, in one value a bot can keep and reuse.
public struct BatchOptions: Sendable {
    public var profile: ImageProfile = .simplex
    public var limits: SimplexLimits = .simplex
    /// Refuse images with more pixels than this after shrink-on-load.
    public var maxPixels = 100_000_000
    public var outputDirectory: String
    /// Moment used for `IMG_yyyyMMdd_HHmmss` names, seconds since 1970 UTC.
    public var timestamp: Int64
    /// Goes on the very last message, with the quote and the mentions, as the app does.
    public var text = ""
    public var quotedItemId: Int64?
    public var mentions: [String: Int64] = [:]
    /// Contact or group the `/_send` lines address; nil makes no lines.
    public var chat: SendCommand.Chat?
    /// 1 for a contact, the member count for a group (XFTP recipient keys).
    public var recipients = 1
    public var xftp = true
    /// Inputs prepared at once (default: the core count).
    public var jobs = Cores.available
    /// Threads one input may use; nil: the cores available divided among the jobs running. An engine
    /// that gives each task one core (a single-thread Dask worker) sets 1.
    public var threadsPerInput: Int?
    /// Decoded pixels in flight across all jobs; a single larger image still runs, alone.
    public var pixelBudget = 192_000_000
    /// Seconds one picture or animation may take once its turn comes, else it fails with `timeout`
    /// (a hostile file the header checks could not see); nil: no limit.
    public var timeLimit: Double? = 120
    /// Whether videos and voice notes are made playable everywhere, and their byte budgets.
    public var media = MediaOptions()
    /// How a text-only message's link card is fetched; nil sends such text without one.
    public var linkPreviews: LinkPreviewer.Options? = LinkPreviewer.Options()
    /// For runs an engine may repeat or retry: each output is named after its input, as
    /// `outputDirectory/<name>.<ext>` where `<name>` is what this returns for the input (its path
    /// relative to the folder given), replacing an earlier attempt's file; an input whose output is
    /// already there is skipped. nil: the app's `IMG_…` names, never replacing anything.
    public var resumeName: (@Sendable (_ input: String) -> String)?

    public init(outputDirectory: String, timestamp: Int64 = Int64(Date().timeIntervalSince1970)) {
        self.outputDirectory = outputDirectory
        self.timestamp = timestamp
    }

    /// True when the last message differs from the others, so it must wait for the end of the input.
    var lastMessageIsSpecial: Bool { !text.isEmpty || quotedItemId != nil || !mentions.isEmpty }
}

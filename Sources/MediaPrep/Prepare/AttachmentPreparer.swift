import FoundationEssentials
import Glibc
import UploadPlanner

/// Prepares any file the compose bar accepts, dispatching on what the file really is.
package struct AttachmentPreparer: Sendable {
    package var profile: ImageProfile
    package var limits: SimplexLimits
    package var outputDirectory: String
    /// Moment used for `IMG_yyyyMMdd_HHmmss` names, seconds since 1970 UTC.
    package var timestamp: Int64
    package var maxPixels = 100_000_000
    /// Long side of video thumbnails that previews are cut from.
    package var thumbnailSide = 640
    /// Threads one image may use; a batch running a job per core sets 1.
    package var threads = 2
    /// Cancellation, time limit, pixel budget and progress: what the run shares with this input.
    package var run = RunContext()
    var cancellation: CancellationFlag? { run.cancellation }
    var pixelBudget: PixelBudget? { run.pixelBudget }
    /// Leave outputs under temporary names (`PreparedItem.staged`) for the caller to name in order.
    package var stagesOutputs = false
    /// Videos and voice notes: playable everywhere or as they came, and their byte budgets.
    package var media = MediaOptions()
    /// iPhone Live Photos among the inputs: each still's movie (`LivePhoto.pairs`).
    package var livePhotos: [String: String] = [:]
    /// Sending over XFTP (else SMP only) and to how many recipients: how outputs travel.
    package var xftp = true
    package var recipients = 1

    package init(profile: ImageProfile = .simplex, limits: SimplexLimits = .simplex, outputDirectory: String, timestamp: Int64) {
        self.profile = profile
        self.limits = limits
        self.outputDirectory = outputDirectory
        self.timestamp = timestamp
    }

    /// The limits every decision reads, the same ones `SendCheck` reads.
    var rules: SendRules {
        var r = SendRules()
        (r.profile, r.limits, r.maxPixels, r.media, r.xftp, r.recipients) = (profile, limits, maxPixels, media, xftp, recipients)
        return r
    }

    /// Never throws: a failure is recorded in the item so the rest of a batch goes on.
    package func prepare(path: String) -> PreparedItem {
        var one = self
        one.run = run.forInput()
        return one.prepareOne(path: path)
    }

    /// Probe → plan → execute → deliver, each entered once.
    func prepareOne(path: String) -> PreparedItem {
        var item = PreparedItem(input: path, kind: .file)
        // A Live Photo's movie goes with its still (its video message), or not at all.
        if let still = livePhotos.first(where: { $0.value == path })?.key {
            item.kind = .video
            item.skipped = true
            item.skipReason = "the video of the Live Photo \(still): " + (media.motion == .video ? "sent as its video message" : "not sent (--motion video sends it)")
            return item
        }
        if let movie = livePhotos[path] { return livePhoto(still: path, movie: movie) }
        do {
            try deliver(try execute(path: path, &item), &item)
        } catch {
            fail(&item, error)
        }
        return item
    }

    /// Probes and plans `path` (its kind, format and reasons go in `item`) and carries the plan out:
    /// what it made, staged and not yet named.
    func execute(path: String, _ item: inout PreparedItem) throws -> [Produced] {
        try cancellation?.check()
        let source = try Trace.time("read and probe") { try MediaProbe.source(path: path, depth: .preparing, maxPixels: maxPixels) }
        let plan = SendPlanner.plan(source, rules)
        item.kind = plan.kind
        item.format = source.probe.format
        if let e = plan.error { throw e }
        item.reasons = plan.reasons
        if plan.kind == .image || plan.kind == .animatedImage { FFmpegLibraries.prefetchScaling() }  // every image is scaled (its preview at least)
        var charge: Int? = 0
        if let budget = pixelBudget {
            charge = budget.acquire(Self.heldPixels(source, plan, profile: profile), cancellation: cancellation)
        }
        guard let charged = charge else { throw MediaPrepError(.cancelled, "interrupted before this input started") }
        defer { pixelBudget?.release(charged) }
        if plan.kind == .image || plan.kind == .animatedImage { cancellation?.startClock() }
        return try carryOut(plan, consume source, &item)  // the file's bytes go as soon as they are decoded
    }

    /// What carrying out `plan` holds at its peak, in the batch budget's pixels: an image's decoded
    /// pixels; a transcode's frames and encoder (`VideoEncodePlan.heldBytes`), which a 4K clip fitted at
    /// 1080p puts at 620 MB where its thumbnail frame is 0.9 MP.
    package static func heldPixels(_ source: ProbedSource, _ plan: SendPlan, profile: ImageProfile) -> Int {
        let decoded = source.decodedPixels(profile: profile)
        let transcode: VideoEncodePlan?
        switch plan.action {
        // Its video is charged as any video when it is prepared (`sendMotionVideo`): a charge held here
        // as well could wait on itself.
        case .motionVideo: return 0
        case .transcodeVideo(let t): transcode = t.plan
        case .remux(_, let fallback): transcode = fallback?.plan  // over its budget, the remux is transcoded
        default: transcode = nil
        }
        guard let t = transcode, let w = source.probe.width, let h = source.probe.height else { return decoded }
        return max(decoded, t.heldBytes(sourceWidth: w, sourceHeight: h) / PixelBudget.bytesPerPixel)
    }

    /// A failure recorded in the item, so the rest of a batch goes on.
    func fail(_ item: inout PreparedItem, _ error: Error) {
        item.error = (error as? MediaPrepError) ?? MediaPrepError(.decodeFailed, "\(error)")
        item.output = nil
        if item.format == nil, let id = MediaProbe.identify(path: item.input) { (item.format, item.kind) = (id.format, id.kind) }
    }

    /// One executor per action, each returning whole what it made.
    private func carryOut(_ plan: SendPlan, _ source: consuming ProbedSource, _ item: inout PreparedItem) throws -> [Produced] {
        let probe = source.probe
        switch plan.action {
        case .reject(let e):
            throw e
        case .keepOriginal where plan.kind == .animatedImage:
            return [try sendAnimated(source)]  // a GIF's own frames, its metadata cut out
        case .keepOriginal(let route):
            return [try prepareImage(consume source, keep: route)]
        case .encodeImage:
            return [try prepareImage(consume source, keep: nil)]
        case .encodeAnimation:
            return [try encodeAnimation(source)]
        case .splitImage(let ranges):
            return try splitImage(source, ranges)
        case .copy(keepName: true, let rewrite):
            return [try prepareFile(probe, rewrite)]
        case .copy(_, let rewrite):
            switch plan.kind {
            case .animatedImage: return [try sendAnimated(source)]
            case .voice: return [try sendVoice(probe, rewrite)]
            default: return [try sendVideo(source, rewrite)]
            }
        case .remux(let budget, let fallback):
            return [try remuxVideo(source, budget: budget, fallback: fallback)]
        case .transcodeVideo(let t):
            return [try transcodeVideo(probe, t)]
        case .motionVideo(let range):
            return try sendMotionVideo(source, range, &item)
        case .transcodeVoice(let rate, let budget):
            return [try transcodeVoice(source, bitRate: rate, budget: budget)]
        case .audioFile(let route):
            return [try sendAudioFile(source, route)]
        }
    }

    var imagePreparer: ImagePreparer {
        var preparer = ImagePreparer(profile: profile, maxPixels: maxPixels)
        preparer.keepsOriginal = media.quality == .original
        preparer.threads = threads
        preparer.cancellation = cancellation
        return preparer
    }
}

/// A remux that came out over the budget: transcoding takes over.
struct RemuxTooLarge: Error {}

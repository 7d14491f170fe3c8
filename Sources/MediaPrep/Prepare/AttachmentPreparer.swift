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
    /// Checked between stages and before an output is linked into place.
    package var cancellation: CancellationFlag?
    /// Seconds one picture or animation may take once its turn comes (decoding, the budget search,
    /// a GIF's tries), checked between stages and frames; nil: none. Videos and sound are bounded by
    /// FFmpeg's own read time limit and their duration.
    package var timeLimit: Double? = AttachmentPreparer.defaultTimeLimit
    /// Measured: the slowest good animation tried (a 20 s 480×270 GIF of 500 frames) took 12 s.
    package static let defaultTimeLimit = 120.0
    /// Decoded pixels in flight across a batch; each input waits for its share before decoding.
    package var pixelBudget: PixelBudget?
    /// Leave outputs under temporary names (`PreparedItem.staged`) for the caller to name in order.
    package var stagesOutputs = false
    /// Videos and voice notes: playable everywhere or as they came, and their byte budgets.
    package var media = MediaOptions()
    /// iPhone Live Photos among the inputs: each still's movie (`LivePhoto.pairs`).
    package var livePhotos: [String: String] = [:]
    /// How far a long job (a transcode) is, 0…1, with the input's path.
    package var onProgress: (@Sendable (_ path: String, _ fraction: Double) -> Void)?

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
        one.cancellation = CancellationFlag(input: cancellation, timeLimit: timeLimit)
        return one.prepareOne(path: path)
    }

    private func prepareOne(path: String) -> PreparedItem {
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
            try cancellation?.check()
            let rules = self.rules
            let source = try Trace.time("read and probe") { try MediaProbe.source(path: path, depth: .preparing, maxPixels: maxPixels) }
            let plan = SendPlanner.plan(source, rules)
            item.kind = plan.kind
            item.format = source.probe.format
            if let e = plan.error { throw e }
            item.reasons = plan.reasons
            if plan.kind == .image || plan.kind == .animatedImage { FFmpegLibraries.prefetchScaling() }  // every image is scaled (its preview at least)
            var charge: Int? = 0
            if let budget = pixelBudget {
                charge = budget.acquire(source.decodedPixels(profile: profile), cancellation: cancellation)
            }
            guard let charged = charge else { throw MediaPrepError(.cancelled, "interrupted before this input started") }
            defer { pixelBudget?.release(charged) }
            if plan.kind == .image || plan.kind == .animatedImage { cancellation?.startClock() }
            try carryOut(plan, consume source, &item)  // the file's bytes go as soon as they are decoded
        } catch let e as MediaPrepError {
            item.error = e
            item.output = nil
            if item.format == nil, let id = MediaProbe.identify(path: path) { (item.format, item.kind) = (id.format, id.kind) }
        } catch {
            item.error = MediaPrepError(.decodeFailed, "\(error)")
            item.output = nil
        }
        return item
    }

    private func carryOut(_ plan: SendPlan, _ source: consuming ProbedSource, _ item: inout PreparedItem) throws {
        let probe = source.probe
        switch plan.action {
        case .reject(let e):
            throw e
        case .keepOriginal where plan.kind == .animatedImage:
            try sendAnimated(source, &item)  // a GIF's own frames, its metadata cut out
        case .keepOriginal(let route):
            try prepareImage(consume source, keep: route, &item)
        case .encodeImage:
            try prepareImage(consume source, keep: nil, &item)
        case .encodeAnimation:
            try encodeAnimation(source, &item)
        case .splitImage(let ranges):
            try splitImage(source, ranges, &item)
        case .copy(keepName: true, let rewrite):
            try prepareFile(probe, rewrite, &item)
        case .copy(_, let rewrite):
            switch plan.kind {
            case .animatedImage: try sendAnimated(source, &item)
            case .voice: try sendVoice(probe, rewrite, &item)
            default: try sendVideo(source, rewrite, &item)
            }
        case .remux(let budget, let fallback):
            try remuxVideo(source, budget: budget, fallback: fallback, &item)
        case .transcodeVideo(let t):
            try finishVideo(try transcodeVideo(probe, t, &item), &item)
        case .motionVideo(let range):
            try sendMotionVideo(source, range, &item)
        case .transcodeVoice(let rate, let budget):
            try transcodeVoice(source, bitRate: rate, budget: budget, &item)
        case .audioFile(let route):
            try sendAudioFile(source, route, &item)
        }
    }

    /// The last step of every kind: checked to be sendable (nothing is named that cannot go), then
    /// named now, or left for a batch to name in input order.
    private func place(_ item: inout PreparedItem, _ staged: StagedFile, size: Int) throws {
        let transfer = rules.transfer(size: size, kind: item.kind, fileName: staged.base + "." + staged.ext)
        guard transfer.method != .rejected else {
            staged.discard()
            throw MediaPrepError(.overLimit, transfer.reason ?? "cannot be sent")
        }
        if stagesOutputs {
            item.staged = staged
        } else {
            let out = try staged.commit()
            item.output = out
            item.transfer = rules.transfer(size: size, kind: item.kind, fileName: out.split(separator: "/").last.map(String.init) ?? out)
        }
    }

    /// A file an encoder or muxer writes: staged, probed (what is sent is what the message then
    /// describes: size and duration of the new file), looked at by `inspect` (a video's thumbnail
    /// comes from the output) and placed. Returns the new file's probe.
    private func produce(_ item: inout PreparedItem, kind: UploadContentKind, base: String? = nil, ext: String,
                         _ write: (String) throws -> Void, inspect: (String) throws -> Void = { _ in }) throws -> ProbeResult {
        let staged = try OutputWriter.stageProduced(directory: outputDirectory, base: base ?? name(kind), ext: ext,
                                                    cancellation: cancellation, produce: write)
        let made: ProbeResult
        do {
            made = try MediaProbe.probe(path: staged.temporaryPath, thorough: false)
            try inspect(staged.temporaryPath)
        } catch {
            staged.discard()
            throw error
        }
        try place(&item, staged, size: made.bytes)
        return made
    }

    /// The input's own bytes under a message's name, without its tags when `rewrite` has any.
    private func copy(_ probe: ProbeResult, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem, base: String, ext: String) throws {
        var size = rewrite?.outputSize ?? probe.bytes
        let staged = try Trace.time(rewrite == nil ? "copy" : "copy without metadata") {
            try OutputWriter.stageProduced(directory: outputDirectory, base: base, ext: ext, cancellation: cancellation) { tmp in
                if let rewrite { try rewrite.write(from: probe.path, to: tmp) } else { try FileCopier.copy(from: probe.path, expectedSize: probe.bytes, to: tmp) }
                if rewrite?.rebuild != nil {
                    var st = stat()
                    guard FileNameBytes.withCString(tmp, { stat($0, &st) }) == 0 else { throw MediaPrepError(.writeFailed, "cannot stat \(tmp)") }
                    size = Int(st.st_size)
                }
            }
        }
        try place(&item, staged, size: size)
        item.route = rewrite == nil ? .original : .stripped
        item.bytes = size
    }

    private func name(_ kind: UploadContentKind) -> String {
        "\(FileNaming.prefix(for: kind))_\(FileNaming.stamp(timestamp))"
    }

    private var imagePreparer: ImagePreparer {
        var preparer = ImagePreparer(profile: profile, maxPixels: maxPixels)
        preparer.keepsOriginal = media.quality == .original
        preparer.threads = threads
        preparer.cancellation = cancellation
        return preparer
    }

    private func prepareImage(_ source: consuming ProbedSource, keep: PrepareRoute?, _ item: inout PreparedItem) throws {
        try record(try imagePreparer.prepare(source: consume source, keep: keep), &item)
    }

    /// Each part staged under the next name and checked like any image; if one fails, none is sent.
    private func splitImage(_ source: ProbedSource, _ ranges: [Range<Int>], _ item: inout PreparedItem) throws {
        let prepared = try imagePreparer.prepareParts(source: source, ranges: ranges)
        var items: [PreparedItem] = []
        do {
            for (i, p) in prepared.enumerated() {
                var part = PreparedItem(input: item.input, kind: .image)
                (part.format, part.reasons) = (item.format, item.reasons)
                try record(p, &part, suffix: prepared.count > 1 ? "_part\(i + 1)" : "")
                part.part = (i + 1, prepared.count)
                items.append(part)
            }
        } catch {
            for it in items {
                it.staged?.discard()
                if let out = it.output { unlink(out) }  // named already (not staging): taken back
            }
            throw error
        }
        guard var first = items.first else { throw MediaPrepError(.decodeFailed, "no part to send") }
        first.parts = Array(items.dropFirst())
        item = first
    }

    private func record(_ p: PreparedImage, _ item: inout PreparedItem, suffix: String = "") throws {
        let ext = p.format == .png ? "png" : "jpg"
        try Trace.time("write output") {
            try place(&item, try OutputWriter.stage(p.data, directory: outputDirectory, base: name(.image) + suffix, ext: ext,
                                                    cancellation: cancellation), size: p.data.count)
        }
        item.bytes = p.data.count
        (item.width, item.height) = (p.width, p.height)
        item.preview = p.preview
        item.format = p.format == .png ? .png : .jpeg
        item.quality = p.quality
        if let q = p.quality {
            item.reasons.append("JPEG quality \(q) at \(p.width)×\(p.height): the best the budget search found within \(profile.maxBytes.formatted) bytes")
        }
        item.route = p.route
        item.flattenedOnto = p.flattenedOnto
        item.autoReceive = p.data.count <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: p.preview)
    }

    private func sendAnimated(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        let probe = source.probe
        let first = try source.firstFrame
            ?? FFmpegImageDecoder.decode(path: probe.path, format: probe.format, options: DecodeOptions(maxPixels: maxPixels)).image
        let preview = try PreviewMaker.make(from: first.pixels, maxLength: profile.previewMaxLength)
        // Its own frames, without comments or XMP (read whole only when the plan saw any).
        if source.metadata.map({ !$0.isEmpty }) == true, let data = source.data, let stripped = GIFStripper.strip(data), !stripped.isUnchanged {
            try place(&item, try OutputWriter.stage(stripped.data, directory: outputDirectory, base: name(.animatedImage), ext: "gif",
                                                    cancellation: cancellation), size: stripped.data.count)
            item.route = .stripped
            item.bytes = stripped.data.count
        } else {
            try copy(probe, nil, &item, base: name(.animatedImage), ext: "gif")
        }
        (item.width, item.height) = (probe.width, probe.height)
        item.preview = preview
        item.autoReceive = probe.bytes <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: preview)
    }

    /// Made a GIF within the image budget; when even the smallest try is over it, the whole-size GIF
    /// goes (recipients accept it as they would a large GIF).
    private func encodeAnimation(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        guard let animation = source.animation else { throw MediaPrepError(.decodeFailed, "no animation to encode") }
        let first = try source.firstFrame?.pixels ?? animation.firstFrame()
        let preview = try PreviewMaker.make(from: first, maxLength: profile.previewMaxLength)
        try cancellation?.check()
        let made = try AnimationBudget.fit(MeteredAnimation(animation, cancellation: cancellation), maxBytes: profile.maxBytes, autoReceiveBytes: limits.maxImageSizeAutoReceive,
                                           maxPixels: profile.maxSentPixels)
        try Trace.time("write output") {
            try place(&item, try OutputWriter.stage(made.gif.data, directory: outputDirectory, base: name(.animatedImage), ext: "gif",
                                                    cancellation: cancellation), size: made.gif.data.count)
        }
        (item.width, item.height, item.bytes) = (made.gif.width, made.gif.height, made.gif.data.count)
        item.format = .gif
        item.preview = preview
        item.route = .encoded
        item.autoReceive = made.gif.data.count <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: preview)
    }

    private var thumbnailer: VideoThumbnailer { VideoThumbnailer(maxSide: thumbnailSide) }

    private func sendVideo(_ source: ProbedSource, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem) throws {
        var original = source.probe
        let thumb = try source.media.map { try thumbnailer.thumbnail(input: $0, path: original.path) }
            ?? thumbnailer.thumbnail(path: original.path)
        try copy(original, rewrite, &item, base: name(.video), ext: Self.ext(original, original.path))
        original.bytes = item.bytes ?? original.bytes
        try finishVideo((original, thumb), &item)
    }

    /// Over the budget, the remuxed file is transcoded instead (the plan's fallback).
    private func remuxVideo(_ source: ProbedSource, budget: Int?, fallback: VideoTranscodePlan?, _ item: inout PreparedItem) throws {
        let original = source.probe
        var thumb: VideoThumbnail?
        let made: ProbeResult
        do {
            let input = try MediaInput(path: original.path)
            made = try produce(&item, kind: .video, ext: "mp4", { tmp in
                try VideoRemuxer().remux(input, to: tmp, window: media.trim)
                if let budget, try FileBytes.size(tmp) > budget { throw RemuxTooLarge() }
            }, inspect: { tmp in thumb = try thumbnailer.thumbnail(path: tmp) })
            item.route = .remuxed
        } catch is RemuxTooLarge {
            guard let fallback else {
                throw MediaPrepError(.overLimit, "the remuxed video is over the \((budget ?? 0).formatted)-byte budget and no encode fits it")
            }
            return try finishVideo(try transcodeVideo(original, fallback, &item), &item)
        }
        try finishVideo((made, thumb), &item)
    }

    /// A Live Photo's still with its movie: the still, its movie left out and said so; or, with
    /// `--motion video`, the movie as any video is prepared, the still its preview.
    private func livePhoto(still: String, movie: String) -> PreparedItem {
        var inner = self
        inner.livePhotos = [:]
        guard media.motion == .video else {
            var item = inner.prepareOne(path: still)
            let seconds = (try? MediaProbe.probe(path: movie, thorough: false).durationSeconds).flatMap { $0 }
            item.reasons.append("Live Photo: its \(seconds.map { "\(SendPlanner.seconds($0)) s of " } ?? "")video (\(movie)) not sent (--motion video sends it)")
            return item
        }
        var made = inner.prepareOne(path: movie)
        guard made.error == nil else { return made }
        showStill(still, on: &made)
        made.input = still
        made.reasons = ["Live Photo: its video (\(movie)) sent as a video message, the still its preview"] + made.reasons
        return made
    }

    /// A still's preview, upright, on a video message made from it: what a motion photo's or Live
    /// Photo's video shows. The video's own frame stays when the still cannot be decoded.
    private func showStill(_ path: String, on made: inout PreparedItem) {
        guard let data = try? InputFile(path).whole(after: []) else { return }
        let options = DecodeOptions(maxPixels: maxPixels, minimumWidth: PreviewMaker.sides[0], minimumHeight: PreviewMaker.sides[0])
        guard let still = try? ImageLoader.load(data: data, path: path, options: options),
              let preview = try? PreviewMaker.make(from: Orienter.apply(still.orientation, to: still.pixels), maxLength: profile.previewMaxLength) else { return }
        made.preview = preview
        if case .video(let text, _, let duration)? = made.content { made.content = .video(text: text, image: preview, duration: duration) }
    }

    /// A motion photo's video: its bytes copied to a private file and prepared as any video is (what is
    /// in it stripped, made playable, fitted to a budget), the still its preview.
    private func sendMotionVideo(_ source: ProbedSource, _ range: Range<Int>, _ item: inout PreparedItem) throws {
        let path = source.probe.path
        let scratch = try OutputWriter.scratchDirectory() + "/motion-" + UUID().uuidString + ".mp4"
        defer { unlink(scratch) }
        let file = try InputFile(path)
        try FileCopier.write([.source(range)], from: path, expectedSize: file.size, to: scratch)
        var inner = self
        inner.media.motion = .still
        var made = inner.prepareOne(path: scratch)
        if let e = made.error { throw e }
        showStill(path, on: &made)
        made.input = item.input
        made.reasons = item.reasons + made.reasons
        item = made
    }

    /// The preview and the duration come from the file that is sent.
    private func finishVideo(_ sent: (probe: ProbeResult, thumbnail: VideoThumbnail?), _ item: inout PreparedItem) throws {
        try cancellation?.check()
        guard let t = sent.thumbnail else { throw MediaPrepError(.corrupt, "no frame of the video could be decoded") }
        let preview = try PreviewMaker.make(from: t.pixels, maxLength: profile.previewMaxLength, fullChroma: t.mappedFromHDR)
        let probe = sent.probe
        let duration = Int(probe.durationSeconds ?? 0)  // truncated, as SimpleX does
        item.format = probe.format
        item.bytes = probe.bytes
        (item.width, item.height) = (probe.width, probe.height)
        item.durationSeconds = duration
        item.preview = preview
        item.autoReceive = probe.bytes <= limits.maxVideoSizeAutoReceive
        item.content = .video(text: "", image: preview, duration: duration)
    }

    /// H.264 + AAC in MP4 at constant quality, or fitted to the plan's budget (two-pass x264).
    private func transcodeVideo(_ original: ProbeResult, _ t: VideoTranscodePlan,
                                _ item: inout PreparedItem) throws -> (probe: ProbeResult, thumbnail: VideoThumbnail?) {
        var transcoder = VideoTranscoder(plan: t.plan)
        transcoder.cancellation = cancellation
        transcoder.threads = max(threads, 2)
        let path = original.path
        if let report = onProgress { transcoder.progress = { report(path, $0) } }
        var shot: VideoThumbnail?
        let made = try produce(&item, kind: .video, ext: "mp4", { tmp in
            _ = try transcoder.transcode(source: path, to: tmp, maxBytes: t.budget, fallback: t.fallback)
        }, inspect: { tmp in shot = try thumbnailer.thumbnail(path: tmp) })
        item.route = .encoded
        return (made, shot)
    }

    private func sendVoice(_ probe: ProbeResult, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem) throws {
        var sent = probe
        try copy(probe, rewrite, &item, base: name(.voice), ext: Self.ext(probe, probe.path))
        sent.bytes = item.bytes ?? probe.bytes
        finishVoice(sent, &item)
    }

    /// Into the app's own voice format; over the budget by a little (the encoder's rate is not exact
    /// at low rates), once more at a rate scaled down.
    private func transcodeVoice(_ source: ProbedSource, bitRate: Int32, budget: Int?, _ item: inout PreparedItem) throws {
        let path = source.probe.path
        let end = try ContainerEnd.voiceSource(source.probe.format, path: path)  // where the sound ends, if before the file does
        var voice = VoiceTranscoder()
        voice.bitRate = bitRate
        let reopen = { () throws -> MediaInput in try end.map { try MediaInput(path: path, end: $0) } ?? MediaInput(path: path) }
        let input = try (end == nil ? source.media : nil) ?? reopen()
        let made = try produce(&item, kind: .voice, ext: "m4a") { tmp in
            try voice.transcode(input, to: tmp, cancellation: cancellation)
            guard let budget else { return }
            let size = try FileBytes.size(tmp)
            guard size > budget else { return }
            var again = voice
            again.bitRate = Int32(Double(voice.bitRate) * Double(budget) / Double(size) * 0.93)
            guard again.bitRate >= VoiceTranscoder.minimumBitRate else {
                throw MediaPrepError(.overLimit, "the voice note came out at \(size) bytes, over the \(budget)-byte budget")
            }
            try again.transcode(try reopen(), to: tmp, cancellation: cancellation)
            let second = try FileBytes.size(tmp)
            if second > budget { throw MediaPrepError(.overLimit, "the voice note came out at \(second) bytes, over the \(budget)-byte budget") }
        }
        item.route = .encoded
        item.format = .m4a
        finishVoice(made, &item, source: source.probe)
    }

    private func finishVoice(_ made: ProbeResult, _ item: inout PreparedItem, source: ProbeResult? = nil) {
        let duration = Int((made.durationSeconds ?? source?.durationSeconds ?? 0).rounded())
        item.bytes = made.bytes
        item.durationSeconds = duration
        item.autoReceive = made.bytes <= limits.maxVoiceSizeAutoReceive
        item.content = .voice(text: "", duration: duration)
    }

    /// Plain files keep their own name (made unique), as the app sends documents.
    private func prepareFile(_ probe: ProbeResult, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem) throws {
        let (base, ext) = Self.ownName(probe.path)
        try copy(probe, rewrite, &item, base: base, ext: ext)
        item.autoReceive = false
        item.content = .file(text: "")
    }

    /// Audio from a container whose tags cannot be cut in place, under its own name in a clean file:
    /// its packets moved, or its sound re-encoded (`AudioFileRoute`).
    private func sendAudioFile(_ source: ProbedSource, _ route: AudioFileRoute, _ item: inout PreparedItem) throws {
        let probe = source.probe
        let input = try source.media ?? MediaInput(path: probe.path)
        let made = try produce(&item, kind: .file, base: Self.ownName(probe.path).base, ext: route.ext) { tmp in
            switch route {
            case .remux(let muxer, _):
                try VideoRemuxer().remux(input, to: tmp, muxer: muxer, audioOnly: true)
            case .transcode(let rate, let channels, let bits):
                try AudioTranscoder(sampleRate: rate, channels: channels, bitRate: bits).transcode(input, to: tmp, cancellation: cancellation)
            }
        }
        item.route = if case .remux = route { .remuxed } else { .encoded }
        item.format = made.format
        item.bytes = made.bytes
        item.autoReceive = false
        item.content = .file(text: "")
    }

    /// A file's own name, as text the recipient's app can show (a byte that is not UTF-8 becomes `_`),
    /// split at its last dot.
    static func ownName(_ path: String) -> (base: String, ext: String) {
        let file = FileNameBytes.portable(path.split(separator: "/").last.map(String.init) ?? "file")
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return (file, "") }
        return (String(file[..<dot]), String(file[file.index(after: dot)...]))
    }

    static func ext(_ probe: ProbeResult, _ path: String) -> String {
        switch probe.format {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .webm: return "webm"
        case .matroska: return "mkv"
        case .avi: return "avi"
        case .m4a: return "m4a"
        case .aac: return "aac"
        case .mp3: return "mp3"
        case .ogg: return probe.audioCodec == "opus" ? "opus" : "ogg"
        case .wav: return "wav"
        case .flac: return "flac"
        default:
            let last = path.split(separator: "/").last ?? ""
            if let dot = last.lastIndex(of: ".") { return String(last[last.index(after: dot)...]).lowercased() }
            return "bin"
        }
    }
}

import Foundation

/// A remux that came out over the budget: transcoding takes over.
private struct RemuxTooLarge: Error {}

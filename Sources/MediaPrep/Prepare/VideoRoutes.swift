import FoundationEssentials
import Glibc
import UploadPlanner

/// Videos: sent as they are, remuxed, transcoded to the budget; Live Photos and motion photos.
extension AttachmentPreparer {
    func sendVideo(_ source: ProbedSource, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem) throws {
        var original = source.probe
        let thumb = try source.media.map { try thumbnailer.thumbnail(input: $0, path: original.path) }
            ?? thumbnailer.thumbnail(path: original.path)
        try copy(original, rewrite, &item, base: name(.video), ext: Self.ext(original, original.path))
        original.bytes = item.bytes ?? original.bytes
        try finishVideo((original, thumb), &item)
    }

    /// Over the budget, the remuxed file is transcoded instead (the plan's fallback).
    func remuxVideo(_ source: ProbedSource, budget: Int?, fallback: VideoTranscodePlan?, _ item: inout PreparedItem) throws {
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
    func livePhoto(still: String, movie: String) -> PreparedItem {
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
    func showStill(_ path: String, on made: inout PreparedItem) {
        guard let data = try? InputFile(path).whole(after: []) else { return }
        let options = DecodeOptions(maxPixels: maxPixels, minimumWidth: PreviewMaker.sides[0], minimumHeight: PreviewMaker.sides[0])
        guard let still = try? ImageLoader.load(data: data, path: path, options: options),
              let preview = try? PreviewMaker.make(from: Orienter.apply(still.orientation, to: still.pixels), maxLength: profile.previewMaxLength) else { return }
        made.preview = preview
        if case .video(let text, _, let duration)? = made.content { made.content = .video(text: text, image: preview, duration: duration) }
    }

    /// A motion photo's video: its bytes copied to a private file and prepared as any video is (what is
    /// in it stripped, made playable, fitted to a budget), the still its preview.
    func sendMotionVideo(_ source: ProbedSource, _ range: Range<Int>, _ item: inout PreparedItem) throws {
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
    func finishVideo(_ sent: (probe: ProbeResult, thumbnail: VideoThumbnail?), _ item: inout PreparedItem) throws {
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
    func transcodeVideo(_ original: ProbeResult, _ t: VideoTranscodePlan,
                                _ item: inout PreparedItem) throws -> (probe: ProbeResult, thumbnail: VideoThumbnail?) {
        var transcoder = VideoTranscoder(plan: t.plan)
        transcoder.cancellation = cancellation
        transcoder.threads = VideoTranscoder.decodeThreads(cores: threads, sourcePixels: (original.width ?? 0) * (original.height ?? 0))
        let path = original.path
        if let report = onProgress { transcoder.progress = { report(path, $0) } }
        var shot: VideoThumbnail?
        let made = try produce(&item, kind: .video, ext: "mp4", { tmp in
            _ = try transcoder.transcode(source: path, to: tmp, maxBytes: t.budget, fallback: t.fallback)
        }, inspect: { tmp in shot = try thumbnailer.thumbnail(path: tmp) })
        item.route = .encoded
        return (made, shot)
    }

    var thumbnailer: VideoThumbnailer { VideoThumbnailer(maxSide: thumbnailSide) }
}

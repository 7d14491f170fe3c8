import FoundationEssentials
import Glibc
import UploadPlanner

/// Videos: sent as they are, remuxed, transcoded to the budget; Live Photos and motion photos.
extension AttachmentPreparer {
    func sendVideo(_ source: ProbedSource, _ rewrite: MetadataRewrite?) throws -> Produced {
        var original = source.probe
        let thumb = try source.media.map { try thumbnailer.thumbnail(input: $0, path: original.path) }
            ?? thumbnailer.thumbnail(path: original.path)
        let (staged, bytes, route) = try copy(original, rewrite, base: name(.video), ext: Self.ext(original, original.path))
        original.bytes = bytes
        return try Produced.finishing(staged) { try video(staged, original, thumb, route: route) }
    }

    /// Over the budget, the remuxed file is transcoded instead (the plan's fallback).
    func remuxVideo(_ source: ProbedSource, budget: Int?, fallback: VideoTranscodePlan?) throws -> Produced {
        let original = source.probe
        do {
            let input = try MediaInput(path: original.path)
            return try produce(base: name(.video), ext: "mp4", { tmp in
                try VideoRemuxer().remux(input, to: tmp, window: media.trim)
                if let budget, try FileBytes.size(tmp) > budget { throw RemuxTooLarge() }
            }, finish: { staged, made in
                try video(staged, made, try thumbnailer.thumbnail(path: staged.temporaryPath), route: .remuxed)
            })
        } catch is RemuxTooLarge {
            guard let fallback else {
                throw MediaPrepError(.overLimit, "the remuxed video is over the \((budget ?? 0).formatted)-byte budget and no encode fits it")
            }
            return try transcodeVideo(original, fallback)
        }
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
        var item = PreparedItem(input: movie, kind: .file)
        do {
            let made = try inner.execute(path: movie, &item)
            item.reasons = ["Live Photo: its video (\(movie)) sent as a video message, the still its preview"] + item.reasons
            try deliver(showingStill(still, made), &item)
            item.input = still
        } catch {
            fail(&item, error)
        }
        return item
    }

    /// `made` shown with the still at `path` as its preview: what a motion photo's or Live Photo's
    /// video message shows. The video's own frame stays when the still cannot be decoded.
    func showingStill(_ path: String, _ made: [Produced]) -> [Produced] {
        stillPreview(path).map { p in made.map { $0.showing(p) } } ?? made
    }

    /// A still's preview, upright; nil when it cannot be decoded.
    func stillPreview(_ path: String) -> String? {
        guard let data = try? InputFile(path).whole(after: []) else { return nil }
        let options = DecodeOptions(maxPixels: maxPixels, minimumWidth: PreviewMaker.sides[0], minimumHeight: PreviewMaker.sides[0])
        guard let still = try? ImageLoader.load(data: data, path: path, options: options) else { return nil }
        return try? PreviewMaker.make(from: Orienter.apply(still.orientation, to: still.pixels), maxLength: profile.previewMaxLength)
    }

    /// A motion photo's video: its bytes copied to a private file and prepared as any video is (what is
    /// in it stripped, made playable, fitted to a budget), the still its preview. `item` takes the
    /// video's own plan (its kind and reasons).
    func sendMotionVideo(_ source: ProbedSource, _ range: Range<Int>, _ item: inout PreparedItem) throws -> [Produced] {
        let path = source.probe.path
        let scratch = try OutputWriter.scratchDirectory() + "/motion-" + UUID().uuidString + ".mp4"
        defer { unlink(scratch) }
        let file = try InputFile(path)
        try FileCopier.write([.source(range)], from: path, expectedSize: file.size, to: scratch)
        var inner = self
        inner.media.motion = .still
        var video = PreparedItem(input: scratch, kind: .video)
        let made = try inner.execute(path: scratch, &video)
        (item.kind, item.reasons) = (video.kind, item.reasons + video.reasons)
        return showingStill(path, made)
    }

    /// The preview and the duration come from the file that is sent.
    func video(_ staged: StagedFile, _ sent: ProbeResult, _ thumbnail: VideoThumbnail?, route: PrepareRoute) throws -> Produced {
        try cancellation?.check()
        guard let t = thumbnail else { throw MediaPrepError(.corrupt, "no frame of the video could be decoded") }
        let preview = try PreviewMaker.make(from: t.pixels, maxLength: profile.previewMaxLength, fullChroma: t.mappedFromHDR)
        return Produced(staged: staged, bytes: sent.bytes, format: sent.format, route: route,
                        shown: .video(width: sent.width, height: sent.height, preview: preview, duration: Int(sent.durationSeconds ?? 0)),  // truncated, as SimpleX does
                        autoReceive: sent.bytes <= limits.maxVideoSizeAutoReceive)
    }

    /// H.264 + AAC in MP4 at constant quality, or fitted to the plan's budget (two-pass x264).
    func transcodeVideo(_ original: ProbeResult, _ t: VideoTranscodePlan) throws -> Produced {
        var transcoder = VideoTranscoder(plan: t.plan)
        transcoder.cancellation = cancellation
        transcoder.threads = VideoTranscoder.decodeThreads(cores: threads, sourcePixels: (original.width ?? 0) * (original.height ?? 0))
        let path = original.path
        if let report = run.onProgress { transcoder.progress = { report(path, $0) } }
        return try produce(base: name(.video), ext: "mp4", { tmp in
            _ = try transcoder.transcode(source: path, to: tmp, maxBytes: t.budget, fallback: t.fallback)
        }, finish: { staged, made in
            try video(staged, made, try thumbnailer.thumbnail(path: staged.temporaryPath), route: .encoded)
        })
    }

    var thumbnailer: VideoThumbnailer { VideoThumbnailer(maxSide: thumbnailSide) }
}

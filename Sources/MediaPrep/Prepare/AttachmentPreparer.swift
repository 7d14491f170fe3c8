import UploadPlanner

/// Prepares any file the compose bar accepts, dispatching on what the file really is.
public struct AttachmentPreparer: Sendable {
    public var profile: ImageProfile
    public var limits: SimplexLimits
    public var outputDirectory: String
    /// Moment used for `IMG_yyyyMMdd_HHmmss` names, seconds since 1970 UTC.
    public var timestamp: Int64
    public var maxPixels = 100_000_000
    /// Long side of video thumbnails that previews are cut from.
    public var thumbnailSide = 640
    /// Threads one image may use; a batch running a job per core sets 1.
    public var threads = 2
    /// Checked between stages and before an output is linked into place.
    public var cancellation: CancellationFlag?
    /// Decoded pixels in flight across a batch; each input waits for its share before decoding.
    public var pixelBudget: PixelBudget?
    /// Leave outputs under temporary names (`PreparedItem.staged`) for the caller to name in order.
    public var stagesOutputs = false
    /// Videos and voice notes: playable everywhere or as they came, and their byte budgets.
    public var media = MediaOptions()
    /// How far a long job (a transcode) is, 0…1, with the input's path.
    public var onProgress: (@Sendable (_ path: String, _ fraction: Double) -> Void)?

    public init(profile: ImageProfile = .simplex, limits: SimplexLimits = .simplex, outputDirectory: String, timestamp: Int64) {
        self.profile = profile
        self.limits = limits
        self.outputDirectory = outputDirectory
        self.timestamp = timestamp
    }

    /// Never throws: a failure is recorded in the item so the rest of a batch goes on.
    public func prepare(path: String) -> PreparedItem {
        var item = PreparedItem(input: path, kind: .file)
        do {
            try cancellation?.check()
            let source = try Trace.time("read and probe") { try MediaProbe.source(path: path, maxPixels: maxPixels) }
            let probe = source.probe
            item.kind = probe.kind
            item.format = probe.format
            var charge: Int? = 0
            if let budget = pixelBudget {
                charge = budget.acquire(source.decodedPixels(profile: profile), cancellation: cancellation)
            }
            guard let charged = charge else { throw MediaPrepError(.cancelled, "interrupted before this input started") }
            defer { pixelBudget?.release(charged) }
            switch probe.kind {
            case .image: try prepareImage(source, &item)
            case .animatedImage: try prepareAnimated(source, &item)
            case .video: try prepareVideo(source, &item)
            case .voice: try prepareVoice(source, &item)
            case .file: try prepareFile(path, probe, &item)
            }
        } catch let e as MediaPrepError {
            item.error = e
            item.output = nil
        } catch {
            item.error = MediaPrepError(.decodeFailed, "\(error)")
            item.output = nil
        }
        return item
    }

    /// The last step of every kind: name the file now, or leave that to a batch.
    private func place(_ item: inout PreparedItem, _ staged: StagedFile) throws {
        if stagesOutputs { item.staged = staged } else { item.output = try staged.commit() }
    }

    /// A file an encoder or muxer writes: staged, probed (what is sent is what the message then
    /// describes: size and duration of the new file), looked at by `inspect` (a video's thumbnail
    /// comes from the output) and placed. Returns the new file's probe.
    private func produce(_ item: inout PreparedItem, kind: UploadContentKind, ext: String,
                         _ write: (String) throws -> Void, inspect: (String) throws -> Void = { _ in }) throws -> ProbeResult {
        let staged = try OutputWriter.stageProduced(directory: outputDirectory, base: name(kind), ext: ext,
                                                    cancellation: cancellation, produce: write)
        let made: ProbeResult
        do {
            made = try MediaProbe.probe(path: staged.temporaryPath)
            try inspect(staged.temporaryPath)
        } catch {
            staged.discard()
            throw error
        }
        try place(&item, staged)
        return made
    }

    private func name(_ kind: UploadContentKind) -> String {
        "\(FileNaming.prefix(for: kind))_\(FileNaming.stamp(timestamp))"
    }

    private func prepareImage(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        var preparer = ImagePreparer(profile: profile, maxPixels: maxPixels)
        preparer.threads = threads
        preparer.cancellation = cancellation
        let p = try preparer.prepare(source: source)
        let ext = p.format == .png ? "png" : "jpg"
        try Trace.time("write output") {
            try place(&item, try OutputWriter.stage(p.data, directory: outputDirectory, base: name(.image), ext: ext,
                                                    cancellation: cancellation))
        }
        item.bytes = p.data.count
        (item.width, item.height) = (p.width, p.height)
        item.preview = p.preview
        item.format = p.format == .png ? .png : .jpeg
        item.quality = p.quality
        item.route = p.route
        item.autoReceive = p.data.count <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: p.preview)
    }

    /// Animated GIFs go as their original bytes (re-encoding would lose frames or grow them), except
    /// where the destination does not animate them (Bluesky): there they become a short H.264 video.
    private func prepareAnimated(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        let probe = source.probe
        if profile.animatedAsVideo {
            item.kind = .video
            return try prepareVideo(source, &item, forceTranscode: true)
        }
        let first = try source.firstFrame
            ?? FFmpegImageDecoder.decode(path: probe.path, format: probe.format, options: DecodeOptions(maxPixels: maxPixels)).image
        let preview = try PreviewMaker.make(from: first.pixels, maxLength: profile.previewMaxLength)
        try place(&item, try OutputWriter.stageCopy(from: probe.path, directory: outputDirectory, base: name(.animatedImage),
                                                    ext: "gif", cancellation: cancellation))
        item.bytes = probe.bytes
        (item.width, item.height) = (probe.width, probe.height)
        item.preview = preview
        item.route = .original
        item.autoReceive = probe.bytes <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: preview)
    }

    /// MP4/MOV with H.264/HEVC and AAC goes as it is; the same codecs in Matroska/WebM are moved
    /// into an MP4 untouched (iPhones cannot open MKV); anything else (VP9, AV1, Opus…) is
    /// transcoded to H.264 + AAC. A byte budget re-encodes whatever is over it. The preview and the
    /// duration come from the file that is sent.
    private func prepareVideo(_ source: ProbedSource, _ item: inout PreparedItem, forceTranscode: Bool = false) throws {
        let original = source.probe
        try checkTransferable(original)
        let budget = media.videoMaxBytes ?? profile.maxVideoBytes
        let compatibility = forceTranscode ? .needsTranscode : media.video == .original ? .playable : VideoCompatibility.of(original)
        let fits = budget.map { original.bytes <= $0 } ?? true
        var thumb: VideoThumbnail?
        let thumbnailer = VideoThumbnailer(maxSide: thumbnailSide)
        let probe: ProbeResult
        switch (compatibility, fits) {
        case (.playable, true):
            thumb = try source.media.map { try thumbnailer.thumbnail(input: $0, path: original.path) }
                ?? thumbnailer.thumbnail(path: original.path)
            try place(&item, try OutputWriter.stageCopy(from: original.path, directory: outputDirectory, base: name(.video),
                                                        ext: Self.ext(original, original.path), cancellation: cancellation))
            item.route = .original
            probe = original
        case (.playable, false) where media.video == .original:
            throw MediaPrepError(.overLimit, "\(original.bytes) bytes is over the \(budget ?? 0)-byte video budget (--video original does not re-encode)")
        case (.remux, true):
            do {
                let input = try MediaInput(path: original.path)
                probe = try produce(&item, kind: .video, ext: "mp4", { tmp in
                    try VideoRemuxer().remux(input, to: tmp)
                    if let budget, try FileBytes.size(tmp) > budget { throw RemuxTooLarge() }
                }, inspect: { tmp in thumb = try thumbnailer.thumbnail(path: tmp) })
                item.route = .remuxed
            } catch is RemuxTooLarge {
                probe = try transcodeVideo(original, budget: budget, &item, thumbnail: &thumb, thumbnailer: thumbnailer)
            }
        default:
            probe = try transcodeVideo(original, budget: budget, &item, thumbnail: &thumb, thumbnailer: thumbnailer)
        }
        try cancellation?.check()
        guard let t = thumb else { throw MediaPrepError(.corrupt, "no frame of the video could be decoded") }
        let preview = try PreviewMaker.make(from: t.pixels, maxLength: profile.previewMaxLength)
        let duration = Int(probe.durationSeconds ?? 0)  // truncated, as SimpleX does
        item.format = probe.format
        item.bytes = probe.bytes
        (item.width, item.height) = (probe.width, probe.height)
        item.durationSeconds = duration
        item.preview = preview
        item.autoReceive = probe.bytes <= limits.maxVideoSizeAutoReceive
        item.content = .video(text: "", image: preview, duration: duration)
    }

    /// H.264 + AAC in MP4 at constant quality, or fitted to `budget` (two-pass x264).
    private func transcodeVideo(_ original: ProbeResult, budget: Int?, _ item: inout PreparedItem,
                                thumbnail: inout VideoThumbnail?, thumbnailer: VideoThumbnailer) throws -> ProbeResult {
        let source = VideoSource(probe: original)
        var plan = VideoEncodePlan.compatible(source)
        var fallback: VideoEncodePlan? = nil
        if let budget { (plan, fallback) = try VideoBudget.plan(source, maxBytes: budget) }
        var transcoder = VideoTranscoder(plan: plan)
        transcoder.cancellation = cancellation
        transcoder.threads = max(threads, 2)
        let path = original.path
        if let report = onProgress { transcoder.progress = { report(path, $0) } }
        var shot: VideoThumbnail?
        let made = try produce(&item, kind: .video, ext: "mp4", { tmp in
            _ = try transcoder.transcode(source: path, to: tmp, maxBytes: budget, fallback: fallback)
        }, inspect: { tmp in shot = try thumbnailer.thumbnail(path: tmp) })
        thumbnail = shot
        item.route = .encoded
        return made
    }

    /// AAC in M4A/MP4 goes as it is; any other audio becomes the app's own format (AAC-LC .m4a,
    /// mono, 16 kHz, 32 kbit/s), since iPhones cannot play Opus, Vorbis, FLAC or WAV notes. With a
    /// budget, a note over it is encoded at the rate that fits (never below 16 kbit/s).
    private func prepareVoice(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        var probe = source.probe
        let path = probe.path
        let seconds = probe.durationSeconds ?? 0
        guard seconds <= Double(limits.maxVoiceMessageSeconds) else {
            throw MediaPrepError(.voiceTooLong, String(format: "%.1f s is over the %d s voice message limit", seconds, limits.maxVoiceMessageSeconds))
        }
        var voice = VoiceTranscoder()
        if let budget = media.voiceMaxBytes {
            guard let rate = VoiceTranscoder.bitRate(fitting: budget, seconds: seconds) else {
                throw MediaPrepError(.overLimit, String(format: "%.1f s of voice cannot fit %d bytes even at %d kbit/s",
                                                        seconds, budget, VoiceTranscoder.minimumBitRate / 1000))
            }
            voice.bitRate = rate
        }
        if VoiceTranscoder.playsAsIs(probe), probe.bytes <= media.voiceMaxBytes ?? Int.max {
            try place(&item, try OutputWriter.stageCopy(from: path, directory: outputDirectory, base: name(.voice),
                                                        ext: Self.ext(probe, path), cancellation: cancellation))
            item.route = .original
        } else {
            let input = try source.media ?? MediaInput(path: path)
            probe = try produce(&item, kind: .voice, ext: "m4a") { tmp in
                try voice.transcode(input, to: tmp, cancellation: cancellation)
                guard let budget = media.voiceMaxBytes else { return }
                // Over by a little (the encoder's rate is not exact at low rates): once more, scaled down.
                let size = try FileBytes.size(tmp)
                guard size > budget else { return }
                var again = voice
                again.bitRate = Int32(Double(voice.bitRate) * Double(budget) / Double(size) * 0.93)
                guard again.bitRate >= VoiceTranscoder.minimumBitRate else {
                    throw MediaPrepError(.overLimit, "the voice note came out at \(size) bytes, over the \(budget)-byte budget")
                }
                try again.transcode(try MediaInput(path: path), to: tmp, cancellation: cancellation)
                let second = try FileBytes.size(tmp)
                if second > budget { throw MediaPrepError(.overLimit, "the voice note came out at \(second) bytes, over the \(budget)-byte budget") }
            }
            item.route = .encoded
            item.format = .m4a
        }
        let duration = Int((probe.durationSeconds ?? seconds).rounded())
        item.bytes = probe.bytes
        item.durationSeconds = duration
        item.autoReceive = probe.bytes <= limits.maxVoiceSizeAutoReceive
        item.content = .voice(text: "", duration: duration)
    }

    /// Plain files keep their own name (made unique), as the app sends documents.
    private func prepareFile(_ path: String, _ probe: ProbeResult, _ item: inout PreparedItem) throws {
        try checkTransferable(probe)
        let file = path.split(separator: "/").last.map(String.init) ?? "file"
        var base = file, ext = ""
        if let dot = file.lastIndex(of: "."), dot != file.startIndex {
            base = String(file[..<dot])
            ext = String(file[file.index(after: dot)...])
        }
        try place(&item, try OutputWriter.stageCopy(from: path, directory: outputDirectory, base: base, ext: ext,
                                                    cancellation: cancellation))
        item.bytes = probe.bytes
        item.route = .original
        item.autoReceive = false
        item.content = .file(text: "")
    }

    private func checkTransferable(_ probe: ProbeResult) throws {
        if Int64(probe.bytes) > limits.maxFileSizeXFTP {
            throw MediaPrepError(.overLimit, "\(probe.bytes) bytes is over the \(limits.maxFileSizeXFTP)-byte file limit")
        }
    }

    static func ext(_ probe: ProbeResult, _ path: String) -> String {
        switch probe.format {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .webm: return "webm"
        case .matroska: return "mkv"
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

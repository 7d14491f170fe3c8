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
            let source = try MediaProbe.source(path: path, maxPixels: maxPixels)
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
    /// describes: size and duration of the new file) and placed. Returns the new file's probe.
    private func produce(_ item: inout PreparedItem, kind: UploadContentKind, ext: String,
                         _ write: (String) throws -> Void) throws -> ProbeResult {
        let staged = try OutputWriter.stageProduced(directory: outputDirectory, base: name(kind), ext: ext,
                                                    cancellation: cancellation, produce: write)
        let made: ProbeResult
        do { made = try MediaProbe.probe(path: staged.temporaryPath) } catch {
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
        try place(&item, try OutputWriter.stage(p.data, directory: outputDirectory, base: name(.image), ext: ext,
                                                cancellation: cancellation))
        item.bytes = p.data.count
        (item.width, item.height) = (p.width, p.height)
        item.preview = p.preview
        item.format = p.format == .png ? .png : .jpeg
        item.quality = p.quality
        item.route = p.route
        item.autoReceive = p.data.count <= limits.maxImageSizeAutoReceive
        item.content = .image(text: "", image: p.preview)
    }

    /// Animated GIFs go as their original bytes (re-encoding would lose frames or grow them).
    private func prepareAnimated(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        let probe = source.probe
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
    /// into an MP4 untouched (iPhones cannot open MKV). Others still go as they are (transcoding
    /// to H.264 is not built yet). The preview comes from a chosen frame of the original.
    private func prepareVideo(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        var probe = source.probe
        let thumbnailer = VideoThumbnailer(maxSide: thumbnailSide)
        let thumb = try source.media.map { try thumbnailer.thumbnail(input: $0, path: probe.path) }
            ?? thumbnailer.thumbnail(path: probe.path)
        try cancellation?.check()
        let preview = try PreviewMaker.make(from: thumb.pixels, maxLength: profile.previewMaxLength)
        try checkTransferable(probe)
        if VideoCompatibility.of(probe) == .remux {
            // A fresh input: the thumbnailer has read the probed one.
            let input = try MediaInput(path: probe.path)
            probe = try produce(&item, kind: .video, ext: "mp4") { tmp in try VideoRemuxer().remux(input, to: tmp) }
            item.route = .remuxed
            item.format = .mp4
        } else {
            try place(&item, try OutputWriter.stageCopy(from: probe.path, directory: outputDirectory, base: name(.video),
                                                        ext: Self.ext(probe, probe.path), cancellation: cancellation))
            item.route = .original
        }
        let duration = Int(probe.durationSeconds ?? 0)  // truncated, as SimpleX does
        item.bytes = probe.bytes
        (item.width, item.height) = (probe.width, probe.height)
        item.durationSeconds = duration
        item.preview = preview
        item.autoReceive = probe.bytes <= limits.maxVideoSizeAutoReceive
        item.content = .video(text: "", image: preview, duration: duration)
    }

    /// AAC in M4A/MP4 goes as it is; any other audio becomes the app's own format (AAC-LC .m4a,
    /// mono, 16 kHz, 32 kbit/s), since iPhones cannot play Opus, Vorbis, FLAC or WAV notes.
    private func prepareVoice(_ source: ProbedSource, _ item: inout PreparedItem) throws {
        var probe = source.probe
        let path = probe.path
        let seconds = probe.durationSeconds ?? 0
        guard seconds <= Double(limits.maxVoiceMessageSeconds) else {
            throw MediaPrepError(.voiceTooLong, String(format: "%.1f s is over the %d s voice message limit", seconds, limits.maxVoiceMessageSeconds))
        }
        if VoiceTranscoder.playsAsIs(probe) {
            try place(&item, try OutputWriter.stageCopy(from: path, directory: outputDirectory, base: name(.voice),
                                                        ext: Self.ext(probe, path), cancellation: cancellation))
            item.route = .original
        } else {
            let input = try source.media ?? MediaInput(path: path)
            probe = try produce(&item, kind: .voice, ext: "m4a") { tmp in
                try VoiceTranscoder().transcode(input, to: tmp, cancellation: cancellation)
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

import FoundationEssentials
import Glibc
import UploadPlanner

/// Voice notes and audio files: sent as they are, transcoded to Opus in its budget, or as files.
extension AttachmentPreparer {
    func sendVoice(_ probe: ProbeResult, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem) throws {
        var sent = probe
        try copy(probe, rewrite, &item, base: name(.voice), ext: Self.ext(probe, probe.path))
        sent.bytes = item.bytes ?? probe.bytes
        finishVoice(sent, &item)
    }

    /// Into the app's own voice format; over the budget by a little (the encoder's rate is not exact
    /// at low rates), once more at a rate scaled down.
    func transcodeVoice(_ source: ProbedSource, bitRate: Int32, budget: Int?, _ item: inout PreparedItem) throws {
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

    func finishVoice(_ made: ProbeResult, _ item: inout PreparedItem, source: ProbeResult? = nil) {
        let duration = Int((made.durationSeconds ?? source?.durationSeconds ?? 0).rounded())
        item.bytes = made.bytes
        item.durationSeconds = duration
        item.autoReceive = made.bytes <= limits.maxVoiceSizeAutoReceive
        item.content = .voice(text: "", duration: duration)
    }

    /// Audio from a container whose tags cannot be cut in place, under its own name in a clean file:
    /// its packets moved, or its sound re-encoded (`AudioFileRoute`).
    func sendAudioFile(_ source: ProbedSource, _ route: AudioFileRoute, _ item: inout PreparedItem) throws {
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
}

import FoundationEssentials
import Glibc
import UploadPlanner

/// Voice notes and audio files: sent as they are, transcoded to Opus in its budget, or as files.
extension AttachmentPreparer {
    func sendVoice(_ probe: ProbeResult, _ rewrite: MetadataRewrite?) throws -> Produced {
        let (staged, bytes, route) = try copy(probe, rewrite, base: name(.voice), ext: Self.ext(probe, probe.path))
        return voice(staged, bytes: bytes, format: probe.format, route: route, seconds: probe.durationSeconds)
    }

    /// Into the app's own voice format; over the budget by a little (the encoder's rate is not exact
    /// at low rates), once more at a rate scaled down.
    func transcodeVoice(_ source: ProbedSource, bitRate: Int32, budget: Int?) throws -> Produced {
        let path = source.probe.path
        let end = try ContainerEnd.voiceSource(source.probe.format, path: path)  // where the sound ends, if before the file does
        var voice = VoiceTranscoder()
        voice.bitRate = bitRate
        let reopen = { () throws -> MediaInput in try end.map { try MediaInput(path: path, end: $0) } ?? MediaInput(path: path) }
        let input = try (end == nil ? source.media : nil) ?? reopen()
        return try produce(base: name(.voice), ext: "m4a", { tmp in
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
        }, finish: { staged, made in
            self.voice(staged, bytes: made.bytes, format: .m4a, route: .encoded, seconds: made.durationSeconds ?? source.probe.durationSeconds)
        })
    }

    /// A voice message: its duration rounded, as the app shows it.
    func voice(_ staged: StagedFile, bytes: Int, format: MediaFormat, route: PrepareRoute, seconds: Double?) -> Produced {
        Produced(staged: staged, bytes: bytes, format: format, route: route, shown: .voice(duration: Int((seconds ?? 0).rounded())),
                 autoReceive: bytes <= limits.maxVoiceSizeAutoReceive)
    }

    /// Audio from a container whose tags cannot be cut in place, under its own name in a clean file:
    /// its packets moved, or its sound re-encoded (`AudioFileRoute`).
    func sendAudioFile(_ source: ProbedSource, _ route: AudioFileRoute) throws -> Produced {
        let probe = source.probe
        let input = try source.media ?? MediaInput(path: probe.path)
        return try produce(base: Self.ownName(probe.path).base, ext: route.ext, { tmp in
            switch route {
            case .remux(let muxer, _):
                try VideoRemuxer().remux(input, to: tmp, muxer: muxer, audioOnly: true)
            case .transcode(let rate, let channels, let bits):
                try AudioTranscoder(sampleRate: rate, channels: channels, bitRate: bits).transcode(input, to: tmp, cancellation: cancellation)
            }
        }, finish: { staged, made in
            let how: PrepareRoute = if case .remux = route { .remuxed } else { .encoded }
            return Produced(staged: staged, bytes: made.bytes, format: made.format, route: how, shown: .file, autoReceive: false)
        })
    }
}

import CFFmpeg

/// Any audio FFmpeg reads, re-encoded as AAC-LC in an `.m4a` (faststart) at a chosen rate, channel
/// count and bit rate: the one encode loop behind voice notes and audio files that cannot leave as
/// they came.
struct AudioTranscoder {
    var sampleRate: Int32
    var channels: Int32
    var bitRate: Int32

    /// Decodes `input`'s best audio stream, resamples it and writes the `.m4a` at `path`. A stream
    /// that never decodes, is cut short or has damaged packets is refused, not sent as what survived.
    func transcode(_ input: MediaInput, to path: String, cancellation: CancellationFlag? = nil) throws {
        guard let stream = input.bestStream(AVMEDIA_TYPE_AUDIO) else {
            throw MediaPrepError(.noAudioStream, "no audio stream to encode")
        }
        let ff = input.ff
        // FLAC's frame checksums, which every encoder writes; not an MP3's optional CRC, which some
        // encoders write wrong while the sound plays well.
        let decoder = try FrameDecoder(input: input, stream: stream, checkCRC: stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_FLAC)
        let encoder = try StreamEncoder.aac(ff: ff, sampleRate: sampleRate, channels: channels, bitRate: bitRate)
        let muxer = try MP4Muxer(ff: ff, format: "ipod", path: path)
        let out = try muxer.addStream(for: encoder)
        try muxer.start()
        let resampler = try AudioResampler(ff: ff, sampleRate: sampleRate, channels: channels, frameSize: encoder.frameSize)
        let tb = encoder.codec.pointee.time_base
        let write = { (p: UnsafeMutablePointer<AVPacket>) in try muxer.write(p, stream: out, from: tb) }
        let encode = { (f: UnsafeMutablePointer<AVFrame>) in try encoder.encode(f, sink: write) }
        var frames = 0
        // How far the sound reaches: by its timestamps, or by the samples decoded when those are missing.
        var reached = 0.0, decoded = 0.0
        while let f = try decoder.next() {
            if frames % 64 == 0 { try cancellation?.check() }
            frames += 1
            if f.pointee.sample_rate > 0 {
                let length = Double(f.pointee.nb_samples) / Double(f.pointee.sample_rate)
                decoded += length
                if let t = decoder.seconds(of: f) { reached = max(reached, t + length) }
            }
            try resampler.add(f, emit: encode)
        }
        guard resampler.started else { throw MediaPrepError(.truncated, "the audio stream holds no decodable sound") }
        try input.requireClaimedEnd(covered: max(reached, decoded), slack: ContainerEnd.soundSlack)
        // A damaged recording is not sent as what survived: a packet the decoder refused (a FLAC
        // frame whose checksum fails). An Ogg page whose checksum fails is refused before
        // (`ContainerEnd.oggPages`): the demuxer drops it without a word.
        if decoder.damagedPackets > 0 {
            throw MediaPrepError(.corrupt, "\(decoder.damagedPackets) of the recording's packets are damaged")
        }
        try resampler.finish(emit: encode)
        try encoder.encode(nil, sink: write)
        try muxer.finish()
    }
}

import CFFmpeg

/// Any audio FFmpeg reads, as the SimpleX iOS app records voice: AAC-LC in `.m4a`, mono, 16 kHz,
/// 32 kbit/s. An Ogg/Opus or WAV note sent as it is would not play on iPhones (AVPlayer).
struct VoiceTranscoder {
    static let sampleRate: Int32 = 16_000
    static let bitRate: Int32 = 32_000
    /// Lowest rate a byte budget may push a note to: FFmpeg's AAC at 16 kHz mono stays intelligible
    /// down to here (12 kbit/s smeared consonants in listening checks of the fixtures).
    static let minimumBitRate: Int32 = 16_000

    var bitRate: Int32 = VoiceTranscoder.bitRate

    /// AAC in an MP4-family file plays in every client as it is; anything else is transcoded.
    static func playsAsIs(_ p: ProbeResult) -> Bool {
        p.audioCodec == "aac" && (p.format == .m4a || p.format == .mp4 || p.format == .mov)
    }

    /// The rate that fits `seconds` of sound into `maxBytes`, or nil when even the minimum does not.
    /// An .m4a's header and index take ~1.4 KB plus ~6 bytes per 64 ms frame (voice.wav: 10,223
    /// bytes at 32 kbit/s for 2.2 s); FFmpeg's AAC encoder lands within a few % of its rate.
    static func bitRate(fitting maxBytes: Int, seconds: Double) -> Int32? {
        guard seconds > 0 else { return bitRate }
        let overhead = 1_536 + Int(seconds / 0.064 * 6)
        let usable = Double(maxBytes - overhead) * 0.95 * 8 / seconds
        guard usable >= Double(minimumBitRate) else { return nil }
        return Int32(min(Double(bitRate), usable))
    }

    /// Decodes `input`'s audio, resamples it to mono 16 kHz and writes an `.m4a` (faststart) at `path`.
    func transcode(_ input: MediaInput, to path: String, cancellation: CancellationFlag? = nil) throws {
        guard let stream = input.bestStream(AVMEDIA_TYPE_AUDIO) else {
            throw MediaPrepError(.noAudioStream, "no audio stream to make a voice note from")
        }
        let ff = input.ff
        // FLAC's frame checksums, which every encoder writes; not an MP3's optional CRC, which some
        // encoders write wrong while the sound plays well.
        let decoder = try FrameDecoder(input: input, stream: stream, checkCRC: stream.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_FLAC)
        let encoder = try StreamEncoder.aac(ff: ff, sampleRate: Self.sampleRate, channels: 1, bitRate: bitRate)
        let muxer = try MP4Muxer(ff: ff, format: "ipod", path: path)
        let out = try muxer.addStream(for: encoder)
        try muxer.start()
        let resampler = try AudioResampler(ff: ff, sampleRate: Self.sampleRate, channels: 1, frameSize: encoder.frameSize)
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
        // A damaged recording is not made a voice note of what survived: a packet the decoder refused
        // (a FLAC frame whose checksum fails). An Ogg page whose checksum fails is refused before
        // (`ContainerEnd.oggPages`): the demuxer drops it without a word.
        if decoder.damagedPackets > 0 {
            throw MediaPrepError(.corrupt, "\(decoder.damagedPackets) of the recording's packets are damaged")
        }
        try resampler.finish(emit: encode)
        try encoder.encode(nil, sink: write)
        try muxer.finish()
    }
}

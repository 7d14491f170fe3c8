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
        try AudioTranscoder(sampleRate: Self.sampleRate, channels: 1, bitRate: bitRate).transcode(input, to: path, cancellation: cancellation)
    }
}

/// How audio leaves as a file from a container whose tags cannot be cut in place (an MPEG-TS's
/// service names, an FLV's onMetaData): never with its own bytes, but its packets in a clean file
/// where the codec allows, else re-encoded as AAC. Decided by the plan from the probe alone.
package enum AudioFileRoute: Sendable, Equatable {
    /// The best audio stream's packets, untouched, in a new file: AAC into `.m4a` (muxer "ipod"),
    /// MP3 into `.mp3` with no ID3 tag.
    case remux(muxer: String, ext: String)
    /// AAC-LC `.m4a` at the source's rate (up to 48 kHz), mono or stereo.
    case transcode(sampleRate: Int32, channels: Int32, bitRate: Int32)

    /// A music-grade rate: 80 kbit/s a channel (FFmpeg's AAC wants ≥ 128 kbit/s for stereo music),
    /// never more than the source stream's own (a 64 kbit/s MP2 does not grow), never under 32 a channel.
    static let bitRatePerChannel = 80_000, minimumPerChannel = 32_000

    static func of(_ p: ProbeResult) -> AudioFileRoute {
        switch p.audioCodec {
        case "aac": return .remux(muxer: "ipod", ext: "m4a")
        case "mp3": return .remux(muxer: "mp3", ext: "mp3")
        default:
            let channels = Int32(min(max(p.audioChannels ?? 2, 1), 2))
            let source = p.audioSampleRate ?? 48_000
            let rate = Int32(source >= 8_000 && source <= 48_000 ? source : 48_000)
            var bits = bitRatePerChannel * Int(channels)
            if let b = p.audioBitRate ?? p.bitRate, b > 0 { bits = max(min(bits, b), minimumPerChannel * Int(channels)) }
            return .transcode(sampleRate: rate, channels: channels, bitRate: Int32(bits))
        }
    }

    var ext: String {
        if case .remux(_, let ext) = self { return ext }
        return "m4a"
    }

    /// In words, for `check` and the item's reasons.
    func describe(_ p: ProbeResult) -> String {
        let codec = p.audioCodec ?? "audio"
        switch self {
        case .remux(_, let ext): return "its \(codec.uppercased()) moved into an .\(ext) (packets untouched)"
        case .transcode(let rate, let channels, let bits):
            let khz = rate % 1000 == 0 ? "\(rate / 1000)" : "\(Double(rate) / 1000)"
            return "its \(codec.uppercased()) re-encoded as AAC .m4a (\(channels == 1 ? "mono" : "stereo"), \(khz) kHz, \(bits / 1000) kbit/s)"
        }
    }
}

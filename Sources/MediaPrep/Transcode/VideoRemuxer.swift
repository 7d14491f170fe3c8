import CFFmpeg

/// Decides what a video needs so that every client plays it: AVPlayer plays MP4/MOV with H.264 or
/// HEVC and AAC (or no) audio; the same codecs in another container only need a new container.
enum VideoCompatibility: Equatable {
    case playable
    /// H.264/HEVC (+ AAC) in Matroska/WebM: the packets move into an MP4 untouched.
    case remux
    /// Other codecs (VP9, AV1, MPEG-4, Opus, Vorbis…): transcoded to H.264 + AAC.
    case needsTranscode

    static let videoCodecs: Set<String> = ["h264", "hevc"]

    static func of(_ p: ProbeResult) -> VideoCompatibility {
        let codecsOK = videoCodecs.contains(p.videoCodec ?? "") && (p.audioCodec == nil || p.audioCodec == "aac")
        guard codecsOK else { return .needsTranscode }
        return p.format == .mp4 || p.format == .mov ? .playable : .remux
    }
}

/// Moves a video's packets into an MP4 (faststart) without decoding them.
struct VideoRemuxer {
    func remux(_ input: MediaInput, to path: String) throws {
        var message = [CChar](repeating: 0, count: 200)
        let rc = cffl_remux_to_mp4(input.api, input.context, path, input.deadline, &message, Int32(message.count))
        guard rc >= 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw MediaPrepError.ffmpeg(rc == cff_averror_exit() ? .timeout : .corrupt, "cannot remux to MP4: \(text)", rc)
        }
    }
}

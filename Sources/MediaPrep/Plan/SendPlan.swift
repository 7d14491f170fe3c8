import UploadPlanner

/// What becomes of one input, decided once from its probe: `prepare` carries it out, `check`
/// prints it. Made by `SendPlanner.plan`, a pure function of the probed source and the rules.
package struct SendPlan: Sendable {
    package enum Action: Sendable {
        /// A JPEG within budget sent without re-encoding (`untouched`, `stripped` or `rotated`; a rotation
        /// the DCT cannot do perfectly falls back to encoding).
        case keepOriginal(PrepareRoute)
        /// Decoded, resized and encoded within the budget (JPEG, or PNG when transparency fits).
        case encodeImage
        /// A long screenshot cut into `parts` images (rows `ranges`, with overlap), sent in order.
        case splitImage(parts: [Range<Int>])
        /// Animated WebP/APNG (or a GIF over the sender's cap) made an animated GIF within the budget:
        /// SimpleX's apps animate GIF only.
        case encodeAnimation
        /// The input's own bytes under a message's name (`keepName`: a document keeps its own), its
        /// tags and private boxes taken out when `rewrite` says so (streams byte for byte).
        case copy(keepName: Bool, rewrite: MetadataRewrite?)
        /// H.264/HEVC (+ AAC) from Matroska/WebM into an MP4, packets untouched; over `budget`, the
        /// transcode plan takes over (nil: none fits).
        case remux(budget: Int?, fallback: VideoTranscodePlan?)
        case transcodeVideo(VideoTranscodePlan)
        /// A motion photo's video (its bytes in the photo) prepared as any video is, the still its preview.
        case motionVideo(Range<Int>)
        /// Any audio into the app's voice format, at `bitRate`, within `budget` when there is one.
        case transcodeVoice(bitRate: Int32, budget: Int?)
        /// Audio sent as a file from a container whose tags cannot be cut in place (TS, PS, FLV):
        /// under its own name, in a clean file.
        case audioFile(AudioFileRoute)
        case reject(MediaPrepError)
    }

    package var kind: UploadContentKind
    package var action: Action
    /// In words, what preparation does or why the input cannot be sent, as `check` prints it.
    package var reasons: [String]

    /// One stable word for what happens (`reencoded`, `madeGIF`, …) or the error code: SARIF's rule id.
    package var code: String {
        switch action {
        case .keepOriginal(.untouched), .copy(_, nil): return "sendable"
        case .copy: return "metadataStripped"
        case .keepOriginal(.rotated): return "rotatedLosslessly"
        case .keepOriginal: return "metadataStripped"
        case .encodeImage: return "reencoded"
        case .encodeAnimation: return "madeGIF"
        case .splitImage: return "splitLongImage"
        case .remux: return "remuxed"
        case .transcodeVideo: return "transcoded"
        case .motionVideo: return "motionVideo"
        case .transcodeVoice: return "voiceTranscoded"
        case .audioFile(.remux): return "remuxed"
        case .audioFile: return "transcoded"
        case .reject(let e): return e.code.rawValue
        }
    }

    package var error: MediaPrepError? {
        if case .reject(let e) = action { return e }
        return nil
    }
}

/// An H.264 + AAC encode: the plan, and the plan to fall back to when constant quality comes out
/// over the budget.
package struct VideoTranscodePlan: Sendable {
    var plan: VideoEncodePlan
    var fallback: VideoEncodePlan?
    var budget: Int?
}

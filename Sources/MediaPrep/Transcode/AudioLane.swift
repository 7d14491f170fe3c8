import CFFmpeg

/// The audio half: decoded, resampled to the plan's layout and rate, AAC-encoded.
final class AudioLane {
    let decoder: FrameDecoder
    let encoder: StreamEncoder
    let resampler: AudioResampler
    var output: UnsafeMutablePointer<AVStream>?
    var sink: ((UnsafeMutablePointer<AVPacket>, UnsafeMutablePointer<AVStream>, AVRational) throws -> Void)?

    init(plan: VideoEncodePlan, decoder: FrameDecoder, ff: FFmpeg) throws {
        self.decoder = decoder
        let channels = Int32(max(1, plan.audioChannels)), rate = Int32(plan.audioSampleRate)
        encoder = try StreamEncoder.aac(ff: ff, sampleRate: rate, channels: channels, bitRate: Int32(plan.audioBitRate))
        resampler = try AudioResampler(ff: ff, sampleRate: rate, channels: channels, frameSize: encoder.frameSize)
    }

    /// Where the decoded sound has reached, in seconds from the stream start.
    private(set) var lastSeconds: Double?
    /// The part sent: a frame of sound that ends before it or starts after it is left out (the cut
    /// within a frame of sound, 21 ms of AAC).
    var trim: Range<Double>?

    func drain() throws {
        while let f = try decoder.receive() {
            let t = decoder.seconds(of: f)
            if let t { lastSeconds = t + Double(f.pointee.nb_samples) / Double(max(1, f.pointee.sample_rate)) }
            if let trim, let t, let end = lastSeconds, end <= trim.lowerBound || t >= trim.upperBound { continue }
            try resampler.add(f, emit: encode)
        }
    }

    private func encode(_ f: UnsafeMutablePointer<AVFrame>?) throws {
        let tb = encoder.codec.pointee.time_base
        try encoder.encode(f) { [sink, output] p in if let sink, let output { try sink(p, output, tb) } }
    }

    func finish() throws {
        try resampler.finish(emit: encode)
        try encode(nil)
    }
}

import CFFmpeg

/// Decoded audio of any layout, format and rate, cut into float-planar frames of an encoder's
/// frame size at its rate and channel count (libswresample and an audio FIFO).
final class AudioResampler {
    let sampleRate: Int32
    let channels: Int32
    private let frameSize: Int32
    private let fifo: OpaquePointer
    private var swr: OpaquePointer? = nil
    private var pts: Int64 = 0

    init(sampleRate: Int32, channels: Int32, frameSize: Int32) throws {
        guard let f = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, channels, 4096) else {
            throw MediaPrepError(.encodeFailed, "cannot allocate an audio buffer")
        }
        (self.sampleRate, self.channels, self.frameSize, fifo) = (sampleRate, channels, frameSize, f)
    }

    deinit {
        swr_free(&swr)
        av_audio_fifo_free(fifo)
    }

    /// True once any sound went in (a stream that never decoded is damaged, not silent).
    var started: Bool { swr != nil }

    /// Adds one decoded frame; `emit` gets every whole frame now available (stamped in samples).
    func add(_ frame: UnsafeMutablePointer<AVFrame>, emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        if swr == nil {
            swr = cff_swr_for(frame, sampleRate, channels)
            guard swr != nil else { throw MediaPrepError(.decodeFailed, "cannot resample this audio") }
        }
        let rc = cff_resample_into_fifo(swr, fifo, frame, sampleRate, channels)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "resampling failed", rc) }
        try drain(final: false, emit: emit)
    }

    /// Flushes the resampler and emits the rest, the last frame short.
    func finish(emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        guard swr != nil else { return }
        let rc = cff_resample_into_fifo(swr, fifo, nil, sampleRate, channels)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "resampling failed", rc) }
        try drain(final: true, emit: emit)
    }

    private func drain(final: Bool, emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        while av_audio_fifo_size(fifo) >= frameSize || (final && av_audio_fifo_size(fifo) > 0) {
            let n = min(frameSize, av_audio_fifo_size(fifo))
            var made = cff_fifo_frame(fifo, n, sampleRate, channels, pts)
            defer { av_frame_free(&made) }
            guard let frame = made else { throw MediaPrepError(.encodeFailed, "cannot make an audio frame") }
            pts += Int64(n)
            try emit(frame)
        }
    }
}

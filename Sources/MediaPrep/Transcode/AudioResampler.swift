import CFFmpeg

/// Decoded audio of any layout, format and rate, cut into float-planar frames of an encoder's
/// frame size at its rate and channel count (libswresample and an audio FIFO).
final class AudioResampler {
    let sampleRate: Int32
    let channels: Int32
    private let ff: FFmpeg
    private let frameSize: Int32
    private let fifo: OpaquePointer
    private var swr: OpaquePointer? = nil
    private var pts: Int64 = 0

    init(ff: FFmpeg, sampleRate: Int32, channels: Int32, frameSize: Int32) throws {
        guard let f = ff.util.av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, channels, 4096) else {
            throw MediaPrepError(.encodeFailed, "cannot allocate an audio buffer")
        }
        (self.ff, self.sampleRate, self.channels, self.frameSize, fifo) = (ff, sampleRate, channels, frameSize, f)
    }

    deinit {
        ff.media.swr_free(&swr)
        ff.util.av_audio_fifo_free(fifo)
    }

    /// True once any sound went in (a stream that never decoded is damaged, not silent).
    var started: Bool { swr != nil }

    /// Adds one decoded frame; `emit` gets every whole frame now available (stamped in samples).
    func add(_ frame: UnsafeMutablePointer<AVFrame>, emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        if swr == nil { swr = try resampler(for: frame) }
        try resample(frame)
        try drain(final: false, emit: emit)
    }

    /// Flushes the resampler and emits the rest, the last frame short.
    func finish(emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        guard swr != nil else { return }
        try resample(nil)
        try drain(final: true, emit: emit)
    }

    /// A resampler from the first frame's layout (its channel count's default layout when it has none),
    /// format and rate to float-planar at ours.
    private func resampler(for frame: UnsafeMutablePointer<AVFrame>) throws -> OpaquePointer {
        var out = AVChannelLayout(), input = AVChannelLayout()  // copy() uninits its target first
        ff.util.av_channel_layout_default(&out, channels)
        defer { ff.util.av_channel_layout_uninit(&input) }
        let layout = frame.pointee.ch_layout
        if layout.order == AV_CHANNEL_ORDER_UNSPEC || layout.nb_channels <= 0 {
            ff.util.av_channel_layout_default(&input, max(1, layout.nb_channels))
        } else if ff.util.av_channel_layout_copy(&input, &frame.pointee.ch_layout) < 0 {
            throw MediaPrepError(.decodeFailed, "cannot resample this audio")
        }
        var s: OpaquePointer? = nil
        let rc = ff.media.swr_alloc_set_opts2(&s, &out, AV_SAMPLE_FMT_FLTP, sampleRate, &input,
                                              AVSampleFormat(rawValue: frame.pointee.format), frame.pointee.sample_rate, 0, nil)
        guard rc >= 0, let made = s, ff.media.swr_init(made) >= 0 else {
            ff.media.swr_free(&s)
            throw MediaPrepError(.decodeFailed, "cannot resample this audio")
        }
        return made
    }

    /// Resamples `frame` (nil: flush what the resampler holds) into the FIFO.
    private func resample(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        let inRate = frame?.pointee.sample_rate ?? sampleRate, inCount = frame?.pointee.nb_samples ?? 0
        let maxOut = Int32(ff.util.av_rescale_rnd(ff.media.swr_get_delay(swr, Int64(inRate)) + Int64(inCount), Int64(sampleRate),
                                                  Int64(inRate), AV_ROUND_UP)) + 32
        var buffers: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>? = nil
        var lineSize: Int32 = 0
        guard ff.util.av_samples_alloc_array_and_samples(&buffers, &lineSize, channels, maxOut, AV_SAMPLE_FMT_FLTP, 0) >= 0,
              let planes = buffers else { throw MediaPrepError(.encodeFailed, "out of memory resampling") }
        defer {
            ff.util.av_freep(planes)  // the samples (one allocation), then the plane array
            var array: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>? = planes
            withUnsafeMutablePointer(to: &array) { ff.util.av_freep($0) }
        }
        let source = frame.map { UnsafeMutableRawPointer($0.pointee.extended_data).assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        var rc = ff.media.swr_convert(swr, planes, maxOut, source, inCount)
        if rc > 0 { rc = ff.util.av_audio_fifo_write(fifo, UnsafeMutableRawPointer(planes).assumingMemoryBound(to: UnsafeMutableRawPointer?.self), rc) }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "resampling failed", rc) }
    }

    private func drain(final: Bool, emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        while ff.util.av_audio_fifo_size(fifo) >= frameSize || (final && ff.util.av_audio_fifo_size(fifo) > 0) {
            let n = min(frameSize, ff.util.av_audio_fifo_size(fifo))
            var made = ff.util.av_frame_alloc()
            defer { ff.util.av_frame_free(&made) }
            guard let frame = made else { throw MediaPrepError(.encodeFailed, "cannot make an audio frame") }
            frame.pointee.nb_samples = n
            frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
            frame.pointee.sample_rate = sampleRate
            ff.util.av_channel_layout_default(&frame.pointee.ch_layout, channels)
            frame.pointee.pts = pts
            guard ff.util.av_frame_get_buffer(frame, 0) >= 0 else { throw MediaPrepError(.encodeFailed, "cannot make an audio frame") }
            let read = withUnsafeMutablePointer(to: &frame.pointee.data) { planes in
                planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 8) { ff.util.av_audio_fifo_read(fifo, $0, n) }
            }
            guard read >= n else { throw MediaPrepError(.encodeFailed, "cannot make an audio frame") }
            pts += Int64(n)
            try emit(frame)
        }
    }
}

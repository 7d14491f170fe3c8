import CFFmpeg

/// Decodes one stream's frames in order; owns the codec context, packet and frame.
final class FrameDecoder {
    let input: MediaInput
    let stream: UnsafeMutablePointer<AVStream>
    let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    private var draining = false
    private var finished = false
    /// Packets read so far, to bound how much a damaged file can make us read.
    private(set) var packetsRead = 0

    init(input: MediaInput, stream: UnsafeMutablePointer<AVStream>, maxPixels: Int = 100_000_000) throws {
        self.input = input
        self.stream = stream
        guard let dec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id) else {
            let name = String(cString: avcodec_get_name(stream.pointee.codecpar.pointee.codec_id))
            throw MediaPrepError(.codecUnavailable, "no decoder for codec \(name)")
        }
        guard let ctx = avcodec_alloc_context3(dec) else {
            throw MediaPrepError(.decodeFailed, "cannot allocate a decoder")
        }
        var c: UnsafeMutablePointer<AVCodecContext>? = ctx
        guard let pkt = av_packet_alloc(), let frm = av_frame_alloc() else {
            avcodec_free_context(&c)
            throw MediaPrepError(.decodeFailed, "cannot allocate a packet or frame")
        }
        codec = ctx
        packet = pkt
        frame = frm
        // From here on deinit frees everything.
        var rc = avcodec_parameters_to_context(ctx, stream.pointee.codecpar)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "bad codec parameters", rc) }
        ctx.pointee.max_pixels = Int64(maxPixels)
        ctx.pointee.thread_count = 1
        rc = avcodec_open2(ctx, dec, nil)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "cannot open the decoder", rc) }
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var c: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&c)
    }

    /// The next decoded frame (valid until the next call), or nil at the end of the stream.
    func next() throws -> UnsafeMutablePointer<AVFrame>? {
        while !finished {
            let r = avcodec_receive_frame(codec, frame)
            if r >= 0 { return frame }
            if r == cff_error_eof() { finished = true; return nil }
            if r != cff_error_again() { throw MediaPrepError.ffmpeg(.corrupt, "decoding failed", r) }
            if draining { finished = true; return nil }
            try feed()
        }
        return nil
    }

    /// Reads packets until one of our stream is accepted by the decoder, or enters draining.
    private func feed() throws {
        while true {
            let rr = av_read_frame(input.context, packet)
            if rr < 0 {
                draining = true
                _ = avcodec_send_packet(codec, nil)
                return
            }
            defer { av_packet_unref(packet) }
            packetsRead += 1
            guard packet.pointee.stream_index == stream.pointee.index else { continue }
            let s = avcodec_send_packet(codec, packet)
            if s >= 0 || s == cff_error_again() { return }
            // A damaged packet: skip it, as players do; decoding errors surface if nothing decodes.
        }
    }

    /// Seeks to the keyframe at or before `seconds` and resets the decoder.
    func seek(toSeconds seconds: Double) {
        let tb = stream.pointee.time_base
        guard tb.num > 0 else { return }
        let ts = Int64(seconds / av_q2d(tb))
        let start = stream.pointee.start_time == cff_nopts() ? 0 : stream.pointee.start_time
        if av_seek_frame(input.context, stream.pointee.index, start + ts, AVSEEK_FLAG_BACKWARD) >= 0 {
            avcodec_flush_buffers(codec)
            draining = false
            finished = false
        }
    }

    /// Presentation time of the current frame in seconds from the stream start.
    func seconds(of f: UnsafeMutablePointer<AVFrame>) -> Double? {
        let pts = f.pointee.best_effort_timestamp
        guard pts != cff_nopts() else { return nil }
        let start = stream.pointee.start_time == cff_nopts() ? 0 : stream.pointee.start_time
        return Double(pts - start) * av_q2d(stream.pointee.time_base)
    }
}

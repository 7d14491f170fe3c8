import CFFmpeg

/// Decodes one stream's frames in order; owns the codec context, packet and frame.
final class FrameDecoder {
    let input: MediaInput
    let stream: UnsafeMutablePointer<AVStream>
    let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    private let api: UnsafePointer<cff_av>
    private var draining = false
    private var finished = false
    /// Packets read so far, to bound how much a damaged file can make us read.
    private(set) var packetsRead = 0

    /// `threads` > 1 decodes with the codec's own threads; `sliceThreadsOnly` keeps the first frame's
    /// latency (frame threading delays every output by a frame per thread).
    init(input: MediaInput, stream: UnsafeMutablePointer<AVStream>, maxPixels: Int = 100_000_000,
         threads: Int = 1, sliceThreadsOnly: Bool = false) throws {
        self.input = input
        self.stream = stream
        let api = input.api
        self.api = api
        guard let dec = cffl_find_decoder(api, stream.pointee.codecpar.pointee.codec_id) else {
            let name = AVLibrary.codecName(stream.pointee.codecpar.pointee.codec_id)
            throw MediaPrepError(.codecUnavailable, "no decoder for codec \(name)")
        }
        guard let ctx = cffl_alloc_context(api, dec) else {
            throw MediaPrepError(.decodeFailed, "cannot allocate a decoder")
        }
        var c: UnsafeMutablePointer<AVCodecContext>? = ctx
        var pkt = cffl_packet_alloc(api)
        var frm = av_frame_alloc()
        guard let packet = pkt, let frame = frm else {
            // Free whichever of the two was allocated, and the codec context.
            cffl_packet_free(api, &pkt)
            av_frame_free(&frm)
            cffl_free_context(api, &c)
            throw MediaPrepError(.decodeFailed, "cannot allocate a packet or frame")
        }
        codec = ctx
        self.packet = packet
        self.frame = frame
        // From here on deinit frees everything.
        var rc = cffl_parameters_to_context(api, ctx, stream.pointee.codecpar)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "bad codec parameters", rc) }
        ctx.pointee.max_pixels = Int64(maxPixels)
        cff_decoder_threads(ctx, Int32(max(1, threads)), sliceThreadsOnly ? 1 : 0)
        rc = cffl_open_codec(api, ctx, dec)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "cannot open the decoder", rc) }
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        cffl_packet_free(api, &p)
        var c: UnsafeMutablePointer<AVCodecContext>? = codec
        cffl_free_context(api, &c)
    }

    /// The next decoded frame (valid until the next call), or nil at the end of the stream.
    func next() throws -> UnsafeMutablePointer<AVFrame>? {
        while !finished {
            let r = cffl_receive_frame(api, codec, frame)
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
            let rr = cffl_read_frame(api, input.context, packet)
            if rr < 0 {
                draining = true
                _ = cffl_send_packet(api, codec, nil)
                return
            }
            defer { cffl_packet_unref(api, packet) }
            packetsRead += 1
            guard packet.pointee.stream_index == stream.pointee.index else { continue }
            let s = cffl_send_packet(api, codec, packet)
            if s >= 0 || s == cff_error_again() { return }
            // A damaged packet: skip it, as players do; decoding errors surface if nothing decodes.
        }
    }

    /// Sends a packet read by the caller (nil: end of stream). False when the decoder refused it as
    /// damaged: players skip such packets, and a stream with nothing decodable fails later.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> Bool {
        if packet == nil { draining = true }
        let s = cffl_send_packet(api, codec, packet)
        return s >= 0 || s == cff_error_again() || s == cff_error_eof()
    }

    /// The next frame the packets sent so far give (valid until the next call), or nil when the
    /// decoder needs more (or, after `send(nil)`, has no more).
    func receive() throws -> UnsafeMutablePointer<AVFrame>? {
        let r = cffl_receive_frame(api, codec, frame)
        if r >= 0 { return frame }
        if r == cff_error_again() || r == cff_error_eof() { return nil }
        throw MediaPrepError.ffmpeg(.corrupt, "decoding failed", r)
    }

    /// Decodes keyframes only (thumbnail candidates: one frame each, nothing before it needed).
    func keyframesOnly(_ on: Bool) { cff_decoder_keyframes_only(codec, on ? 1 : 0) }

    /// Counts the stream's packets not yet read, without decoding them (GIF: one per frame).
    func countRemainingPackets(limit: Int) -> Int {
        var n = 0
        while n < limit, cffl_read_frame(api, input.context, packet) >= 0 {
            if packet.pointee.stream_index == stream.pointee.index { n += 1 }
            cffl_packet_unref(api, packet)
        }
        return n
    }

    /// Seeks to the keyframe at or before `seconds` and resets the decoder.
    func seek(toSeconds seconds: Double) {
        let tb = stream.pointee.time_base
        guard tb.num > 0 else { return }
        let ts = Int64(seconds / av_q2d(tb))
        let start = stream.pointee.start_time == cff_nopts() ? 0 : stream.pointee.start_time
        if cffl_seek_frame(api, input.context, stream.pointee.index, start + ts, AVSEEK_FLAG_BACKWARD) >= 0 {
            cffl_flush_buffers(api, codec)
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

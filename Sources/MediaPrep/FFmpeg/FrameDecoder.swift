import CFFmpeg

/// Decodes one stream's frames in order; owns the codec context, packet and frame.
final class FrameDecoder {
    let input: MediaInput
    let stream: UnsafeMutablePointer<AVStream>
    let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    private let ff: FFmpeg
    private var draining = false
    private var finished = false
    /// Packets read so far, to bound how much a damaged file can make us read.
    private(set) var packetsRead = 0
    /// Packets of this stream the decoder refused as damaged (skipped, as players do).
    private(set) var damagedPackets = 0

    /// `threads` > 1 decodes with the codec's own threads; `sliceThreadsOnly` keeps the first frame's
    /// latency (frame threading delays every output by a frame per thread).
    /// `checkCRC`: frames carrying a checksum are verified, and a mismatch is a damaged packet.
    init(input: MediaInput, stream: UnsafeMutablePointer<AVStream>, maxPixels: Int = 100_000_000,
         threads: Int = 1, sliceThreadsOnly: Bool = false, checkCRC: Bool = false) throws {
        self.input = input
        self.stream = stream
        let ff = input.ff
        self.ff = ff
        guard let dec = Self.decoder(for: stream, ff) else {
            let name = FFmpegLibraries.codecName(stream.pointee.codecpar.pointee.codec_id)
            throw MediaPrepError(.codecUnavailable, "no decoder for codec \(name)")
        }
        guard let ctx = ff.media.avcodec_alloc_context3(dec) else {
            throw MediaPrepError(.decodeFailed, "cannot allocate a decoder")
        }
        var c: UnsafeMutablePointer<AVCodecContext>? = ctx
        var pkt = ff.media.av_packet_alloc()
        var frm = ff.util.av_frame_alloc()
        guard let packet = pkt, let frame = frm else {
            // Free whichever of the two was allocated, and the codec context.
            ff.media.av_packet_free(&pkt)
            ff.util.av_frame_free(&frm)
            ff.media.avcodec_free_context(&c)
            throw MediaPrepError(.decodeFailed, "cannot allocate a packet or frame")
        }
        codec = ctx
        self.packet = packet
        self.frame = frame
        // From here on deinit frees everything.
        var rc = ff.media.avcodec_parameters_to_context(ctx, stream.pointee.codecpar)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "bad codec parameters", rc) }
        ctx.pointee.max_pixels = Int64(maxPixels)
        ctx.pointee.thread_count = Int32(max(1, threads))
        ctx.pointee.thread_type = sliceThreadsOnly ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE
        if checkCRC { ctx.pointee.err_recognition |= AV_EF_CRCCHECK }
        rc = ff.media.avcodec_open2(ctx, dec, nil)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "cannot open the decoder", rc) }
    }

    /// The codec's decoder; for VP8/VP9 with an alpha channel (WebM's `alpha_mode`, Telegram's video
    /// stickers) libvpx's, since FFmpeg's own decodes only the colour planes and shows what hides
    /// under the transparent area.
    static func decoder(for stream: UnsafeMutablePointer<AVStream>, _ ff: FFmpeg) -> UnsafePointer<AVCodec>? {
        let id = stream.pointee.codecpar.pointee.codec_id
        if id == AV_CODEC_ID_VP9 || id == AV_CODEC_ID_VP8,
           let tag = ff.util.av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0), let value = tag.pointee.value,
           String(cString: value) == "1",
           let vpx = ff.media.avcodec_find_decoder_by_name(id == AV_CODEC_ID_VP9 ? "libvpx-vp9" : "libvpx") {
            return vpx
        }
        return ff.media.avcodec_find_decoder(id)
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        ff.util.av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        ff.media.av_packet_free(&p)
        var c: UnsafeMutablePointer<AVCodecContext>? = codec
        ff.media.avcodec_free_context(&c)
    }

    /// The next decoded frame (valid until the next call), or nil at the end of the stream.
    func next() throws -> UnsafeMutablePointer<AVFrame>? {
        while !finished {
            do throws(AVError) {
                try AVError.check(ff.media.avcodec_receive_frame(codec, frame))
                return frame
            } catch .eof {
                if keyDrained {
                    // The keyframe is out; start afresh for the next one.
                    ff.media.avcodec_flush_buffers(codec)
                    keyDrained = false
                    try feed()
                    continue
                }
                finished = true
                return nil
            } catch .again {
                if draining { finished = true; return nil }
            } catch {
                throw error.media(.corrupt, "decoding failed")
            }
            try feed()
        }
        return nil
    }

    /// Reads packets until one of our stream is accepted by the decoder, or enters draining.
    private func feed() throws {
        while true {
            let rr = ff.media.av_read_frame(input.context, packet)
            if rr < 0 {
                draining = true
                _ = ff.media.avcodec_send_packet(codec, nil)
                return
            }
            defer { ff.media.av_packet_unref(packet) }
            packetsRead += 1
            guard packet.pointee.stream_index == stream.pointee.index else { continue }
            let s = ff.media.avcodec_send_packet(codec, packet)
            if s >= 0, keyframeMode, packet.pointee.flags & AV_PKT_FLAG_KEY != 0 {
                // A decoder that reorders (H.264/HEVC with B-frames) holds a frame until later ones
                // push it out; with only keyframes decoded, that is the next keyframe, seconds of video
                // later (60 s 1080p: 94 ms for the first, where one decode takes 45). Drained, it comes out now.
                _ = ff.media.avcodec_send_packet(codec, nil)
                keyDrained = true
                return
            }
            if s >= 0 || s == AVError.again.rc { return }
            // A damaged packet: skip it, as players do; decoding errors surface if nothing decodes.
            damagedPackets += 1
        }
    }

    /// Sends a packet read by the caller (nil: end of stream). False when the decoder refused it as
    /// damaged: players skip such packets, and a stream with nothing decodable fails later.
    func send(_ packet: UnsafeMutablePointer<AVPacket>?) -> Bool {
        if packet == nil { draining = true }
        let s = ff.media.avcodec_send_packet(codec, packet)
        return s >= 0 || s == AVError.again.rc || s == AVError.eof.rc
    }

    /// The next frame the packets sent so far give (valid until the next call), or nil when the
    /// decoder needs more (or, after `send(nil)`, has no more).
    func receive() throws -> UnsafeMutablePointer<AVFrame>? {
        do throws(AVError) {
            try AVError.check(ff.media.avcodec_receive_frame(codec, frame))
            return frame
        } catch .again, .eof {
            return nil
        } catch {
            throw error.media(.corrupt, "decoding failed")
        }
    }

    /// Decodes keyframes only (thumbnail candidates: one frame each, nothing before it needed).
    func keyframesOnly(_ on: Bool) {
        codec.pointee.skip_frame = on ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT
        keyframeMode = on
        if !on, keyDrained {
            ff.media.avcodec_flush_buffers(codec)
            keyDrained = false
        }
    }
    private var keyframeMode = false
    /// A keyframe was sent and the decoder told to drain (`keyframesOnly`).
    private var keyDrained = false

    /// Counts the stream's packets not yet read, without decoding them (GIF: one per frame).
    func countRemainingPackets(limit: Int) -> Int {
        var n = 0
        while n < limit, ff.media.av_read_frame(input.context, packet) >= 0 {
            if packet.pointee.stream_index == stream.pointee.index { n += 1 }
            ff.media.av_packet_unref(packet)
        }
        return n
    }

    /// Seeks to the keyframe at or before `seconds` and resets the decoder.
    func seek(toSeconds seconds: Double) {
        let tb = stream.pointee.time_base
        guard tb.num > 0 else { return }
        let ts = Int64(seconds / av_q2d(tb))
        let start = stream.pointee.start_time == AV_NOPTS ? 0 : stream.pointee.start_time
        if ff.media.av_seek_frame(input.context, stream.pointee.index, start + ts, AVSEEK_FLAG_BACKWARD) >= 0 {
            ff.media.avcodec_flush_buffers(codec)
            draining = false
            finished = false
        }
    }

    /// Presentation time of the current frame in seconds from the stream start.
    func seconds(of f: UnsafeMutablePointer<AVFrame>) -> Double? {
        let pts = f.pointee.best_effort_timestamp
        guard pts != AV_NOPTS else { return nil }
        let start = stream.pointee.start_time == AV_NOPTS ? 0 : stream.pointee.start_time
        return (Double(pts) - Double(start)) * av_q2d(stream.pointee.time_base)  // in Double: a hostile file's may be anywhere in Int64
    }
}

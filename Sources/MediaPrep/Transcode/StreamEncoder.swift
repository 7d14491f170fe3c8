import CFFmpeg

/// One libavcodec encoder (AAC or H.264): frames in, packets out to a sink; frees itself.
final class StreamEncoder {
    let ff: FFmpeg
    let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let name: String

    /// `configure` sets the context's fields before it is opened; it throws to refuse.
    init(ff: FFmpeg, encoder: UnsafePointer<AVCodec>, name: String,
         configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void) throws {
        self.ff = ff
        self.name = name
        guard let c = ff.media.avcodec_alloc_context3(encoder) else { throw MediaPrepError(.encodeFailed, "cannot allocate the \(name) encoder") }
        var cc: UnsafeMutablePointer<AVCodecContext>? = c
        guard let p = ff.media.av_packet_alloc() else {
            ff.media.avcodec_free_context(&cc)
            throw MediaPrepError(.encodeFailed, "cannot allocate a packet")
        }
        codec = c
        packet = p
        // From here on deinit frees both.
        try configure(c)
        let rc = ff.media.avcodec_open2(c, encoder, nil)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot open the \(name) encoder", rc) }
    }

    /// The AAC encoder (FFmpeg's native one, in every build): AAC-LC, float planar, header for MP4.
    static func aac(ff: FFmpeg, sampleRate: Int32, channels: Int32, bitRate: Int32) throws -> StreamEncoder {
        guard let e = ff.media.avcodec_find_encoder(AV_CODEC_ID_AAC) else { throw MediaPrepError(.codecUnavailable, "no AAC encoder") }
        return try StreamEncoder(ff: ff, encoder: e, name: "AAC") { c in
            c.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            c.pointee.sample_rate = sampleRate
            c.pointee.bit_rate = Int64(bitRate)
            ff.util.av_channel_layout_default(&c.pointee.ch_layout, channels)
            c.pointee.time_base = AVRational(num: 1, den: sampleRate)
            // Bit-exact: no "Lavc…" fill element naming the encoder inside the audio.
            c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER | AV_CODEC_FLAG_BITEXACT
        }
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        ff.media.av_packet_free(&p)
        var c: UnsafeMutablePointer<AVCodecContext>? = codec
        ff.media.avcodec_free_context(&c)
    }

    /// Samples per AAC frame (1024); video encoders take any.
    var frameSize: Int32 { max(1024, codec.pointee.frame_size) }

    /// Sends one frame (nil: flush) and hands every packet ready to `sink`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        let sent = ff.media.avcodec_send_frame(codec, frame)
        guard sent >= 0 || sent == AVError.eof.rc else { throw MediaPrepError.ffmpeg(.encodeFailed, "\(name) encoding failed", sent) }
        while true {
            do throws(AVError) {
                try AVError.check(ff.media.avcodec_receive_packet(codec, packet))
            } catch .again, .eof {
                return
            } catch {
                throw error.media(.encodeFailed, "\(name) encoding failed")
            }
            defer { ff.media.av_packet_unref(packet) }
            try sink(packet)
        }
    }
}

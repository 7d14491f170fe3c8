import CFFmpeg

/// One libavcodec encoder (AAC or H.264): frames in, packets out to a sink; frees itself.
final class StreamEncoder {
    let api: UnsafePointer<cff_av>
    let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let name: String

    /// `configure` sets the context's fields before it is opened; it returns a negative AVERROR to refuse.
    init(api: UnsafePointer<cff_av>, encoder: UnsafePointer<AVCodec>, name: String,
         configure: (UnsafeMutablePointer<AVCodecContext>) -> Int32) throws {
        self.api = api
        self.name = name
        guard let c = cffl_alloc_context(api, encoder) else { throw MediaPrepError(.encodeFailed, "cannot allocate the \(name) encoder") }
        var cc: UnsafeMutablePointer<AVCodecContext>? = c
        guard let p = cffl_packet_alloc(api) else {
            cffl_free_context(api, &cc)
            throw MediaPrepError(.encodeFailed, "cannot allocate a packet")
        }
        codec = c
        packet = p
        // From here on deinit frees both.
        var rc = configure(c)
        if rc >= 0 { rc = cffl_open_codec(api, c, encoder) }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot open the \(name) encoder", rc) }
    }

    /// The AAC encoder (FFmpeg's native one, in every build).
    static func aac(api: UnsafePointer<cff_av>, sampleRate: Int32, channels: Int32, bitRate: Int32) throws -> StreamEncoder {
        guard let e = cffl_find_encoder(api, AV_CODEC_ID_AAC) else { throw MediaPrepError(.codecUnavailable, "no AAC encoder") }
        return try StreamEncoder(api: api, encoder: e, name: "AAC") { c in
            cff_aac_configure(c, sampleRate, channels, bitRate)
            return 0
        }
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        cffl_packet_free(api, &p)
        var c: UnsafeMutablePointer<AVCodecContext>? = codec
        cffl_free_context(api, &c)
    }

    /// Samples per AAC frame (1024); video encoders take any.
    var frameSize: Int32 { max(1024, codec.pointee.frame_size) }

    /// Sends one frame (nil: flush) and hands every packet ready to `sink`.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, sink: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
        var rc = cffl_send_frame(api, codec, frame)
        guard rc >= 0 || rc == cff_eof() else { throw MediaPrepError.ffmpeg(.encodeFailed, "\(name) encoding failed", rc) }
        while true {
            rc = cffl_receive_packet(api, codec, packet)
            if rc == cff_eagain() || rc == cff_eof() { return }
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "\(name) encoding failed", rc) }
            defer { cffl_packet_unref(api, packet) }
            try sink(packet)
        }
    }
}

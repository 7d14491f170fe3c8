import CFFmpeg

/// Any audio FFmpeg reads, as the SimpleX iOS app records voice: AAC-LC in `.m4a`, mono, 16 kHz,
/// 32 kbit/s. An Ogg/Opus or WAV note sent as it is would not play on iPhones (AVPlayer).
struct VoiceTranscoder {
    static let sampleRate: Int32 = 16_000
    static let bitRate: Int32 = 32_000

    /// AAC in an MP4-family file plays in every client as it is; anything else is transcoded.
    static func playsAsIs(_ p: ProbeResult) -> Bool {
        p.audioCodec == "aac" && (p.format == .m4a || p.format == .mp4 || p.format == .mov)
    }

    /// Decodes `input`'s audio, resamples it to mono 16 kHz and writes an `.m4a` (faststart) at `path`.
    func transcode(_ input: MediaInput, to path: String, cancellation: CancellationFlag? = nil) throws {
        guard let stream = input.bestStream(AVMEDIA_TYPE_AUDIO) else {
            throw MediaPrepError(.noAudioStream, "no audio stream to make a voice note from")
        }
        let api = input.api
        let decoder = try FrameDecoder(input: input, stream: stream)
        let out = try AACOutput(api: api, path: path)
        guard let fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 1, 4096) else {
            throw MediaPrepError(.encodeFailed, "cannot allocate an audio buffer")
        }
        defer { av_audio_fifo_free(fifo) }
        var swr: OpaquePointer? = nil
        defer { swr_free(&swr) }
        var pts: Int64 = 0
        let frameSize = max(Int32(1024), out.codec.pointee.frame_size)

        func drain(final: Bool) throws {
            while av_audio_fifo_size(fifo) >= frameSize || (final && av_audio_fifo_size(fifo) > 0) {
                let n = min(frameSize, av_audio_fifo_size(fifo))
                var made = cff_fifo_frame(fifo, n, Self.sampleRate, pts)
                defer { av_frame_free(&made) }
                guard let frame = made else { throw MediaPrepError(.encodeFailed, "cannot make an audio frame") }
                pts += Int64(n)
                try out.encode(frame)
            }
        }

        var frames = 0
        while let f = try decoder.next() {
            if frames % 64 == 0 { try cancellation?.check() }
            frames += 1
            if swr == nil {
                swr = cff_swr_for(f, Self.sampleRate)
                guard swr != nil else { throw MediaPrepError(.decodeFailed, "cannot resample this audio") }
            }
            let rc = cff_resample_into_fifo(swr, fifo, f, Self.sampleRate)
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "resampling failed", rc) }
            try drain(final: false)
        }
        guard swr != nil else { throw MediaPrepError(.truncated, "the audio stream holds no decodable sound") }
        let rc = cff_resample_into_fifo(swr, fifo, nil, Self.sampleRate)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "resampling failed", rc) }
        try drain(final: true)
        try out.finish()
    }
}

/// An AAC encoder writing into an MP4 (`ipod`, i.e. .m4a) file; frees everything it opened.
private final class AACOutput {
    let api: UnsafePointer<cff_av>
    let codec: UnsafeMutablePointer<AVCodecContext>
    private let format: UnsafeMutablePointer<AVFormatContext>
    private let stream: UnsafeMutablePointer<AVStream>
    private let packet: UnsafeMutablePointer<AVPacket>
    private var headerWritten = false

    init(api: UnsafePointer<cff_av>, path: String) throws {
        self.api = api
        guard let encoder = cffl_find_encoder(api, AV_CODEC_ID_AAC) else { throw MediaPrepError(.codecUnavailable, "no AAC encoder") }
        guard let c = cffl_alloc_context(api, encoder) else { throw MediaPrepError(.encodeFailed, "cannot allocate an encoder") }
        var cc: UnsafeMutablePointer<AVCodecContext>? = c
        var oc: UnsafeMutablePointer<AVFormatContext>? = nil
        var pkt = cffl_packet_alloc(api)
        func fail(_ e: MediaPrepError) -> MediaPrepError {
            cffl_packet_free(api, &pkt)
            cffl_close_output(api, oc)
            cffl_free_context(api, &cc)
            return e
        }
        cff_aac_configure(c, VoiceTranscoder.sampleRate, VoiceTranscoder.bitRate)
        var rc = cffl_open_codec(api, c, encoder)
        guard rc >= 0 else { throw fail(MediaPrepError.ffmpeg(.encodeFailed, "cannot open the AAC encoder", rc)) }
        rc = cffl_open_output(api, &oc, "ipod", path)
        guard rc >= 0, let o = oc, let p = pkt, let st = cffl_new_stream(api, o) else {
            throw fail(MediaPrepError.ffmpeg(.encodeFailed, "cannot set up the .m4a output", rc))
        }
        rc = cffl_parameters_from_context(api, st.pointee.codecpar, c)
        if rc >= 0 {
            st.pointee.time_base = c.pointee.time_base
            rc = cffl_avio_open_write(api, o, path)
        }
        if rc >= 0 { rc = cffl_write_header(api, o) }
        guard rc >= 0 else { throw fail(MediaPrepError.ffmpeg(.writeFailed, "cannot write the .m4a header", rc)) }
        codec = c
        format = o
        stream = st
        packet = p
        headerWritten = true
    }

    deinit {
        var p: UnsafeMutablePointer<AVPacket>? = packet
        cffl_packet_free(api, &p)
        cffl_close_output(api, format)
        var c: UnsafeMutablePointer<AVCodecContext>? = codec
        cffl_free_context(api, &c)
    }

    /// Sends one frame (nil: flush) and writes every packet the encoder has ready.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        var rc = cffl_send_frame(api, codec, frame)
        guard rc >= 0 || rc == cff_eof() else { throw MediaPrepError.ffmpeg(.encodeFailed, "AAC encoding failed", rc) }
        while true {
            rc = cffl_receive_packet(api, codec, packet)
            if rc == cff_eagain() || rc == cff_eof() { return }
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "AAC encoding failed", rc) }
            packet.pointee.stream_index = stream.pointee.index
            cffl_rescale_ts(api, packet, codec.pointee.time_base, stream.pointee.time_base)
            rc = cffl_write_packet(api, format, packet)  // takes the packet's data
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot write the .m4a", rc) }
        }
    }

    func finish() throws {
        try encode(nil)
        let rc = cffl_write_trailer(api, format)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot finish the .m4a", rc) }
    }
}

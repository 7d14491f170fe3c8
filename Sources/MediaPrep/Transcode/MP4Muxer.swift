import CFFmpeg

/// An MP4-family output file (faststart), or a bare MP3, that frees its context and closes its file
/// on every path.
final class MP4Muxer {
    let ff: FFmpeg
    let context: UnsafeMutablePointer<AVFormatContext>
    private let path: String
    private let format: String
    private var headerWritten = false

    /// `format`: "mp4" for video, "ipod" for an `.m4a`, "mp3" for MP3 frames with no ID3 tag.
    init(ff: FFmpeg, format: String, path: String) throws {
        self.ff = ff
        self.path = path
        self.format = format
        var oc: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = ff.media.avformat_alloc_output_context2(&oc, nil, format, path)
        guard rc >= 0, let o = oc else {
            if let o = oc { ff.media.avformat_free_context(o) }
            throw MediaPrepError.ffmpeg(.encodeFailed, "cannot set up the \(format) output", rc)
        }
        // No "Lavf…" encoder tag in `udta`/`ilst`: nothing is added to what leaves.
        o.pointee.flags |= AVFMT_FLAG_BITEXACT
        context = o
    }

    deinit {
        if context.pointee.pb != nil { _ = ff.media.avio_closep(&context.pointee.pb) }
        ff.media.avformat_free_context(context)
    }

    /// A new stream carrying `encoder`'s parameters; its time base is final only after `start()`.
    func addStream(for encoder: StreamEncoder) throws -> UnsafeMutablePointer<AVStream> {
        guard let st = ff.media.avformat_new_stream(context, nil) else { throw MediaPrepError(.encodeFailed, "cannot add an output stream") }
        let rc = ff.media.avcodec_parameters_from_context(st.pointee.codecpar, encoder.codec)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot describe the output stream", rc) }
        st.pointee.time_base = encoder.codec.pointee.time_base
        return st
    }

    /// A new stream with `source`'s parameters and time base, for its packets as they are; the MP4
    /// muxer picks its own tag (avc1, mp4a), HEVC gets `hvc1` (what AVPlayer plays).
    func addStream(copying source: UnsafeMutablePointer<AVStream>) throws -> UnsafeMutablePointer<AVStream> {
        guard let st = ff.media.avformat_new_stream(context, nil) else { throw MediaPrepError(.encodeFailed, "cannot add a stream") }
        let rc = ff.media.avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot copy codec parameters", rc) }
        st.pointee.codecpar.pointee.codec_tag = source.pointee.codecpar.pointee.codec_id == AV_CODEC_ID_HEVC ? cff_tag_hvc1() : 0
        st.pointee.time_base = source.pointee.time_base
        try copyDisplayMatrix(from: source, to: st)
        return st
    }

    /// Gives `output` the display matrix (rotation) of `source`, so players turn the picture as the source's did.
    func copyDisplayMatrix(from source: UnsafeMutablePointer<AVStream>, to output: UnsafeMutablePointer<AVStream>) throws {
        guard let matrix = cff_display_matrix(source) else { return }
        var util = ff.util, media = ff.media
        let rc = cff_add_display_matrix(&util, &media, output, matrix)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot copy the rotation", rc) }
    }

    /// Opens the file and writes the header (the muxer may change stream time bases here).
    func start() throws {
        var rc = ff.media.avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
        if rc >= 0 {
            var options: OpaquePointer? = nil
            if format == "mp3" {
                _ = ff.util.av_dict_set(&options, "id3v2_version", "0", 0)
            } else {
                _ = ff.util.av_dict_set(&options, "movflags", "+faststart", 0)
            }
            rc = ff.media.avformat_write_header(context, &options)
            ff.util.av_dict_free(&options)
        }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot write the output header", rc) }
        headerWritten = true
    }

    /// Writes one packet of `stream`, its timestamps in `from` (the encoder's or the source's time base).
    func write(_ packet: UnsafeMutablePointer<AVPacket>, stream: UnsafeMutablePointer<AVStream>, from: AVRational) throws {
        packet.pointee.stream_index = stream.pointee.index
        ff.media.av_packet_rescale_ts(packet, from, stream.pointee.time_base)
        let rc = ff.media.av_interleaved_write_frame(context, packet)  // takes the packet's data
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot write to the output", rc) }
    }

    /// Writes the index (moved to the front: faststart).
    func finish() throws {
        guard headerWritten else { throw MediaPrepError(.writeFailed, "the output was never started") }
        let rc = ff.media.av_write_trailer(context)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.writeFailed, "cannot finish the output", rc) }
    }
}

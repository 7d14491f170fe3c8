import CFFmpeg

/// FFmpeg's GIF encoder and muxer writing into memory: palette frames in (centisecond timestamps),
/// GIF bytes out; every context and buffer freed on every path.
final class GIFWriter {
    private let ff: FFmpeg
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    private let packet: UnsafeMutablePointer<AVPacket>
    private var finished = false
    private var started = false
    /// Bytes of encoded frames written so far: the file is at least this large.
    private(set) var frameBytes = 0
    /// Encoded frames written so far, the ones `frameBytes` counts.
    private(set) var framesWritten = 0

    /// `plays`: 0 forever, else how many times it plays; `finalDelay`: the last frame's, in centiseconds.
    init(_ ff: FFmpeg, width: Int, height: Int, plays: Int, finalDelay: Int) throws {
        self.ff = ff
        guard let encoder = ff.media.avcodec_find_encoder(AV_CODEC_ID_GIF) else { throw MediaPrepError(.codecUnavailable, "this FFmpeg has no GIF encoder") }
        var oc: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = ff.media.avformat_alloc_output_context2(&oc, nil, "gif", nil)
        var pkt = ff.media.av_packet_alloc()
        guard rc >= 0, let o = oc, let p = pkt, let c = ff.media.avcodec_alloc_context3(encoder) else {
            ff.media.av_packet_free(&pkt)
            if let o = oc { ff.media.avformat_free_context(o) }
            throw MediaPrepError.ffmpeg(.encodeFailed, "cannot set up the GIF output", rc)
        }
        guard let st = ff.media.avformat_new_stream(o, nil) else {
            var (cc, co): (UnsafeMutablePointer<AVCodecContext>?, UnsafeMutablePointer<AVFormatContext>?) = (c, o)
            Self.free(ff, &cc, &co, p)
            throw MediaPrepError(.encodeFailed, "cannot add the GIF stream")
        }
        (context, packet, codec, stream) = (o, p, c, st)
        // From here on deinit frees everything.
        (c.pointee.width, c.pointee.height, c.pointee.pix_fmt) = (Int32(width), Int32(height), AV_PIX_FMT_PAL8)
        c.pointee.time_base = AVRational(num: 1, den: 100)
        var r = ff.media.avcodec_open2(c, encoder, nil)
        if r >= 0 { r = ff.media.avcodec_parameters_from_context(st.pointee.codecpar, c) }
        st.pointee.time_base = c.pointee.time_base
        if r >= 0 { r = ff.media.avio_open_dyn_buf(&o.pointee.pb) }
        if r >= 0 {
            var options: OpaquePointer? = nil
            // GIF's loop count repeats after the first play; -1 writes no loop block (plays once).
            let loop = plays == 0 ? 0 : plays == 1 ? -1 : min(plays - 1, 65535)
            _ = ff.util.av_dict_set(&options, "loop", String(loop), 0)
            _ = ff.util.av_dict_set(&options, "final_delay", String(max(1, min(finalDelay, 65535))), 0)
            r = ff.media.avformat_write_header(o, &options)
            ff.util.av_dict_free(&options)
            started = r >= 0
        }
        guard r >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot start the GIF", r) }
    }

    deinit {
        // The muxer holds the last frame until the trailer (FFmpeg 5.1's gif muxer has no deinit): an
        // encode stopped or failed before `finish` leaked it, a packet and its data each time.
        if started, !finished, let context { _ = ff.media.av_write_trailer(context) }
        Self.free(ff, &codec, &context, packet)
    }

    private static func free(_ ff: FFmpeg, _ codec: inout UnsafeMutablePointer<AVCodecContext>?,
                             _ context: inout UnsafeMutablePointer<AVFormatContext>?, _ packet: UnsafeMutablePointer<AVPacket>) {
        ff.media.avcodec_free_context(&codec)
        if let c = context {
            if c.pointee.pb != nil {
                var buffer: UnsafeMutablePointer<UInt8>? = nil
                _ = ff.media.avio_close_dyn_buf(c.pointee.pb, &buffer)
                ff.util.av_free(buffer)
                c.pointee.pb = nil
            }
            ff.media.avformat_free_context(c)
            context = nil
        }
        var p: UnsafeMutablePointer<AVPacket>? = packet
        ff.media.av_packet_free(&p)
    }

    /// Encodes one PAL8 frame (its pts in centiseconds) and writes what comes out.
    func write(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
        guard let codec, let context else { throw MediaPrepError(.encodeFailed, "the GIF is already finished") }
        var rc = ff.media.avcodec_send_frame(codec, frame)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "the GIF encoder refused a frame", rc) }
        while true {
            rc = ff.media.avcodec_receive_packet(codec, packet)
            if rc == cff_error_again() || rc == cff_error_eof() { return }
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "GIF encoding failed", rc) }
            frameBytes += Int(packet.pointee.size)
            framesWritten += 1
            packet.pointee.stream_index = stream.pointee.index
            ff.media.av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            rc = ff.media.av_interleaved_write_frame(context, packet)
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot write a GIF frame", rc) }
        }
    }

    /// Flushes the encoder, writes the trailer and returns the file's bytes.
    func finish() throws -> [UInt8] {
        guard !finished, let context else { throw MediaPrepError(.encodeFailed, "the GIF is already finished") }
        finished = true
        try write(nil)
        let rc = ff.media.av_write_trailer(context)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot finish the GIF", rc) }
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        let size = ff.media.avio_close_dyn_buf(context.pointee.pb, &buffer)
        context.pointee.pb = nil
        defer { ff.util.av_free(buffer) }
        guard size > 0, let buffer else { throw MediaPrepError(.encodeFailed, "the GIF came out empty") }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}

import CFFmpeg

/// HDR video frames (BT.2020 with HLG, as iPhones record, or PQ/HDR10) mapped to SDR BT.709, 8-bit
/// 4:2:0 with error-diffusion dither, wherever pixels leave a video: previews, thumbnails, transcodes.
/// libavfilter's zscale (libzimg) and tonemap, opened the first time such a frame arrives.
///
/// Measured on the phone corpus's clips against their SDR scenes (colour.py, ΔE2000 mean): PQ from its
/// reference white (203 cd/m²) with mobius 4.73 (clip 4.20 but no highlight roll-off, plain zscale
/// 13.2); HLG at 100 cd/m² with mobius 4.67 (plain zscale 4.08, which clips the highlights).
final class HDRToSDR {
    enum Transfer { case hlg, pq }

    /// The transfer an HDR frame carries, or nil for SDR.
    static func transfer(of f: UnsafePointer<AVFrame>) -> Transfer? { transfer(f.pointee.color_trc) }

    /// The HDR transfer a stream or frame tags, or nil for SDR: one test for frames and streams alike.
    static func transfer(_ trc: AVColorTransferCharacteristic) -> Transfer? {
        switch trc {
        case AVCOL_TRC_ARIB_STD_B67: return .hlg
        case AVCOL_TRC_SMPTE2084: return .pq
        default: return nil
        }
    }

    private let ff: FFmpeg
    private let lib: cff_filter
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private var key: (Int32, Int32, Int32, Transfer)?
    private let output: UnsafeMutablePointer<AVFrame>

    init(ff: FFmpeg) throws {
        let lib = try FFmpegLibraries.filter()
        guard let out = ff.util.av_frame_alloc() else { throw MediaPrepError(.decodeFailed, "out of memory") }
        (self.ff, self.lib, output) = (ff, lib, out)
    }

    deinit {
        var o: UnsafeMutablePointer<AVFrame>? = output
        ff.util.av_frame_free(&o)
        lib.avfilter_graph_free(&graph)
    }

    /// `frame` as SDR BT.709 yuv420p; valid until the next call.
    func map(_ frame: UnsafeMutablePointer<AVFrame>, _ transfer: Transfer) throws -> UnsafeMutablePointer<AVFrame> {
        let k = (frame.pointee.width, frame.pointee.height, frame.pointee.format, transfer)
        if key.map({ $0 != k }) ?? true { try build(frame, transfer) }
        guard let source, let sink else { throw MediaPrepError(.decodeFailed, "no HDR filter") }
        lib.av_frame_unref(output)
        // Referenced, not moved: the decoder's frame stays the caller's.
        var rc = lib.av_buffersrc_add_frame_flags(source, frame, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        if rc >= 0 { rc = lib.av_buffersink_get_frame(sink, output) }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.decodeFailed, "cannot map this HDR frame to SDR", rc) }
        return output
    }

    private func build(_ f: UnsafeMutablePointer<AVFrame>, _ transfer: Transfer) throws {
        lib.avfilter_graph_free(&graph)
        (source, sink, key) = (nil, nil, nil)
        guard let g = lib.avfilter_graph_alloc(), let bufferSrc = lib.avfilter_get_by_name("buffer"),
              let bufferSink = lib.avfilter_get_by_name("buffersink") else { throw MediaPrepError(.codecUnavailable, "libavfilter has no buffers") }
        graph = g
        var sar = f.pointee.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        let args = "video_size=\(f.pointee.width)x\(f.pointee.height):pix_fmt=\(f.pointee.format):time_base=1/90000:pixel_aspect=\(sar.num)/\(sar.den)"
        var src: UnsafeMutablePointer<AVFilterContext>? = nil, snk: UnsafeMutablePointer<AVFilterContext>? = nil
        var rc = lib.avfilter_graph_create_filter(&src, bufferSrc, "in", args, nil, g)
        if rc >= 0 { rc = lib.avfilter_graph_create_filter(&snk, bufferSink, "out", nil, nil, g) }
        guard rc >= 0, let s = src, let k = snk else { throw MediaPrepError.ffmpeg(.codecUnavailable, "cannot set up the HDR filter", rc) }
        let npl = transfer == .pq ? 203 : 100
        let chain = "zscale=transfer=linear:npl=\(npl),format=gbrpf32le,zscale=primaries=bt709,tonemap=tonemap=mobius:desat=0,"
            + "zscale=transfer=bt709:matrix=bt709:range=tv:dither=error_diffusion,format=yuv420p"
        var outputs = lib.avfilter_inout_alloc(), inputs = lib.avfilter_inout_alloc()
        defer { lib.avfilter_inout_free(&outputs); lib.avfilter_inout_free(&inputs) }
        guard let o = outputs, let i = inputs else { throw MediaPrepError(.decodeFailed, "out of memory") }
        (o.pointee.name, o.pointee.filter_ctx, o.pointee.pad_idx, o.pointee.next) = (lib.av_strdup("in"), s, 0, nil)
        (i.pointee.name, i.pointee.filter_ctx, i.pointee.pad_idx, i.pointee.next) = (lib.av_strdup("out"), k, 0, nil)
        rc = lib.avfilter_graph_parse_ptr(g, chain, &inputs, &outputs, nil)
        if rc >= 0 { rc = lib.avfilter_graph_config(g, nil) }
        guard rc >= 0 else {
            throw MediaPrepError.ffmpeg(.codecUnavailable, "this FFmpeg cannot map HDR to SDR (zscale, tonemap)", rc)
        }
        (source, sink, key) = (s, k, (f.pointee.width, f.pointee.height, f.pointee.format, transfer))
    }
}

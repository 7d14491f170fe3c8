import CFFmpeg

/// A libavfilter graph with named buffer sources and one sink, freed on every path: frames pushed
/// in, frames pulled out.
final class FilterGraph {
    private let lib: cff_filter
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    private var sources: [UnsafeMutablePointer<AVFilterContext>] = []
    private let sink: UnsafeMutablePointer<AVFilterContext>

    /// `inputs`: each source's label in `description` and its buffer arguments; the sink is `[out]`.
    init(_ description: String, inputs: [(label: String, args: String)]) throws {
        let lib = try FFmpegLibraries.filter()
        self.lib = lib
        guard let g = lib.avfilter_graph_alloc(), let bufferSrc = lib.avfilter_get_by_name("buffer"),
              let bufferSink = lib.avfilter_get_by_name("buffersink") else {
            throw MediaPrepError(.codecUnavailable, "libavfilter has no buffers")
        }
        graph = g
        var snk: UnsafeMutablePointer<AVFilterContext>? = nil
        var rc = lib.avfilter_graph_create_filter(&snk, bufferSink, "out", nil, nil, g)
        guard rc >= 0, let k = snk else {
            lib.avfilter_graph_free(&graph)
            throw MediaPrepError.ffmpeg(.codecUnavailable, "cannot set up a filter", rc)
        }
        sink = k
        // From here on deinit frees the graph (and every filter in it).
        for input in inputs {
            var src: UnsafeMutablePointer<AVFilterContext>? = nil
            rc = lib.avfilter_graph_create_filter(&src, bufferSrc, input.label, input.args, nil, g)
            guard rc >= 0, let s = src else { throw MediaPrepError.ffmpeg(.codecUnavailable, "cannot set up a filter input", rc) }
            sources.append(s)
        }
        var outputs: UnsafeMutablePointer<AVFilterInOut>? = nil
        var ins = lib.avfilter_inout_alloc()
        defer { lib.avfilter_inout_free(&outputs); lib.avfilter_inout_free(&ins) }
        for (source, input) in zip(sources, inputs).reversed() {
            guard let o = lib.avfilter_inout_alloc() else { throw MediaPrepError(.decodeFailed, "out of memory") }
            (o.pointee.name, o.pointee.filter_ctx, o.pointee.pad_idx, o.pointee.next) = (lib.av_strdup(input.label), source, 0, outputs)
            outputs = o
        }
        guard let i = ins else { throw MediaPrepError(.decodeFailed, "out of memory") }
        (i.pointee.name, i.pointee.filter_ctx, i.pointee.pad_idx, i.pointee.next) = (lib.av_strdup("out"), k, 0, nil)
        rc = lib.avfilter_graph_parse_ptr(g, description, &ins, &outputs, nil)
        if rc >= 0 { rc = lib.avfilter_graph_config(g, nil) }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.codecUnavailable, "this FFmpeg cannot run \(description)", rc) }
    }

    deinit { lib.avfilter_graph_free(&graph) }

    /// A buffer source's arguments for frames shaped as `f` (its sample aspect ratio, 1:1 when unset),
    /// their timestamps in `timeBase`.
    static func bufferArguments(like f: UnsafePointer<AVFrame>, timeBase: AVRational) -> String {
        var sar = f.pointee.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = AVRational(num: 1, den: 1) }
        return "video_size=\(f.pointee.width)x\(f.pointee.height):pix_fmt=\(f.pointee.format)"
            + ":time_base=\(timeBase.num)/\(timeBase.den):pixel_aspect=\(sar.num)/\(sar.den)"
    }

    /// Hands `frame` (nil: end of input) to source `index`; its references are taken, or with
    /// `keepingReference` added to, leaving the caller's frame as it was. The graph takes the frame
    /// through at once (`AV_BUFFERSRC_FLAG_PUSH`): otherwise the source queues it until a pull, and a
    /// palette pass that pulls only at the end held every frame (a 160-frame 1024² WebP: 734 MB).
    func push(_ frame: UnsafeMutablePointer<AVFrame>?, to index: Int = 0, keepingReference: Bool = false) throws {
        let flags = Int32(AV_BUFFERSRC_FLAG_PUSH) | (keepingReference ? Int32(AV_BUFFERSRC_FLAG_KEEP_REF) : 0)
        let rc = lib.av_buffersrc_add_frame_flags(sources[index], frame, flags)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "the filter refused a frame", rc) }
    }

    /// The next output frame into `frame`, or false when none is ready (or the graph is finished).
    func pull(into frame: UnsafeMutablePointer<AVFrame>) throws -> Bool {
        lib.av_frame_unref(frame)
        let rc = lib.av_buffersink_get_frame(sink, frame)
        if rc == cff_error_again() || rc == cff_error_eof() { return false }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "the filter failed", rc) }
        return true
    }
}

import CFFmpeg

/// An opened container (AVFormatContext) that closes itself; one per file read.
final class MediaInput {
    let context: UnsafeMutablePointer<AVFormatContext>
    let api: UnsafePointer<cff_av>
    /// Probing and reading this input must finish by then (polled by libavformat's loops).
    private let deadline: UnsafeMutablePointer<cff_deadline>
    /// Seconds one input may take to be probed and read, whatever it holds.
    static let timeLimit = 30.0

    init(path: String) throws {
        let api = try Trace.time("load FFmpeg") { try AVLibrary.api() }
        self.api = api
        let deadline = UnsafeMutablePointer<cff_deadline>.allocate(capacity: 1)
        deadline.initialize(to: cff_deadline())
        cff_deadline_set(deadline, Self.timeLimit)
        self.deadline = deadline
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = Trace.time("open input") { cffl_open_input(api, &ctx, path, deadline) }
        guard rc >= 0, let opened = ctx else {
            deadline.deallocate()
            if rc == cff_averror_exit() { throw MediaPrepError(.timeout, "\(path) took longer than \(Int(Self.timeLimit)) s to open") }
            throw MediaPrepError.ffmpeg(rc == -2 ? .unreadableFile : .unsupportedFormat, "cannot open \(path)", rc)
        }
        context = opened
        // MP4/MOV and Matroska/WebM headers carry what we need; probing frames is only for the rest.
        let name = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        let skip = (name.contains("mov") || name.contains("matroska")) && cff_header_is_complete(opened) != 0
        let info = skip ? 0 : Trace.time("find stream info") { cffl_find_stream_info(api, context) }
        if info < 0 {
            var c: UnsafeMutablePointer<AVFormatContext>? = context
            cffl_close_input(api, &c)
            deadline.deallocate()
            throw MediaPrepError.ffmpeg(.corrupt, "cannot read stream information", info)
        }
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        cffl_close_input(api, &c)
        deadline.deallocate()
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
    }

    /// The stream FFmpeg itself would pick, skipping cover art attached to audio files.
    func bestStream(_ type: AVMediaType) -> UnsafeMutablePointer<AVStream>? {
        let idx = cffl_find_best_stream(api, context, type)
        guard idx >= 0, let s = context.pointee.streams[Int(idx)] else { return nil }
        if type == AVMEDIA_TYPE_VIDEO && s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 { return nil }
        return s
    }

    var containerName: String {
        guard let f = context.pointee.iformat, let n = f.pointee.name else { return "unknown" }
        return String(cString: n)
    }

    /// Container duration in seconds, falling back to the stream's, or nil when unknown.
    func durationSeconds(stream: UnsafeMutablePointer<AVStream>?) -> Double? {
        if context.pointee.duration != cff_nopts(), context.pointee.duration > 0 {
            return Double(context.pointee.duration) / Double(cff_time_base())
        }
        if let s = stream, s.pointee.duration != cff_nopts(), s.pointee.duration > 0 {
            return Double(s.pointee.duration) * av_q2d(s.pointee.time_base)
        }
        return nil
    }
}

import CFFmpeg

/// An opened container (AVFormatContext) that closes itself; one per file read.
final class MediaInput {
    let context: UnsafeMutablePointer<AVFormatContext>
    let api: UnsafePointer<cff_av>
    /// Probing and reading this input must finish by then (polled by libavformat's loops).
    let deadline: UnsafeMutablePointer<cff_deadline>
    /// Seconds one input may take to be probed and read, whatever it holds.
    static let timeLimit = 30.0

    /// Bytes being read through a custom AVIOContext, for inputs opened from memory.
    private let memory: UnsafeMutablePointer<cff_memory>?
    private let memoryBytes: UnsafeMutableBufferPointer<UInt8>?

    convenience init(path: String) throws {
        try self.init(name: path, memory: nil) { api, ctx, deadline, _ in cffl_open_input(api, ctx, path, deadline) }
    }

    /// Bytes already in memory, read as a file would be (nothing touches the disk).
    convenience init(data: [UInt8]) throws {
        let bytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, data.count))
        _ = bytes.initialize(from: data)
        let memory = UnsafeMutablePointer<cff_memory>.allocate(capacity: 1)
        memory.initialize(to: cff_memory(data: UnsafePointer(bytes.baseAddress), size: Int64(data.count), pos: 0, avio: nil))
        try self.init(name: "the data", memory: (memory, bytes)) { api, ctx, deadline, m in
            guard let m else { return -22 }
            return cffl_open_memory(api, ctx, m, deadline)
        }
    }

    private init(name: String, memory: (UnsafeMutablePointer<cff_memory>, UnsafeMutableBufferPointer<UInt8>)?,
                 open: (UnsafePointer<cff_av>, UnsafeMutablePointer<UnsafeMutablePointer<AVFormatContext>?>,
                        UnsafeMutablePointer<cff_deadline>, UnsafeMutablePointer<cff_memory>?) -> Int32) throws {
        func release(_ deadline: UnsafeMutablePointer<cff_deadline>?) {
            deadline?.deallocate()
            memory?.0.deallocate()
            memory?.1.deallocate()
        }
        let api: UnsafePointer<cff_av>
        do { api = try Trace.time("load FFmpeg") { try AVLibrary.api() } } catch { release(nil); throw error }
        self.api = api
        self.memory = memory?.0
        self.memoryBytes = memory?.1
        let deadline = UnsafeMutablePointer<cff_deadline>.allocate(capacity: 1)
        deadline.initialize(to: cff_deadline())
        cff_deadline_set(deadline, Self.timeLimit)
        self.deadline = deadline
        var ctx: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = Trace.time("open input") { open(api, &ctx, deadline, memory?.0) }
        guard rc >= 0, let opened = ctx else {
            release(deadline)
            if rc == cff_averror_exit() { throw MediaPrepError(.timeout, "\(name) took longer than \(Int(Self.timeLimit)) s to open") }
            throw MediaPrepError.ffmpeg(rc == -2 ? .unreadableFile : .unsupportedFormat, "cannot open \(name)", rc)
        }
        context = opened
        // MP4/MOV and Matroska/WebM headers carry what we need; probing frames is only for the rest.
        let format = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        let skip = (format.contains("mov") || format.contains("matroska")) && cff_header_is_complete(opened) != 0
        let info = skip ? 0 : Trace.time("find stream info") { cffl_find_stream_info(api, context) }
        if info < 0 {
            // Every property is set: throwing now runs deinit, which frees all of it (closing here
            // too was a double free, found by the container fuzzer).
            throw MediaPrepError.ffmpeg(.corrupt, "cannot read stream information", info)
        }
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        cffl_close_input(api, &c)
        if let m = memory {
            cffl_free_memory_io(api, m)
            m.deallocate()
        }
        memoryBytes?.deallocate()
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

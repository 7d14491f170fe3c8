import CFFmpeg
import Glibc
import UploadPlanner

/// An opened container (AVFormatContext) that closes itself; one per file read.
final class MediaInput {
    let context: UnsafeMutablePointer<AVFormatContext>
    let ff: FFmpeg
    /// Probing and reading this input must finish by then (polled by libavformat's loops).
    let deadline: Deadline
    /// Seconds one input may take to be probed and read, whatever it holds.
    static let timeLimit = 30.0
    /// FFmpeg's cap on one allocation (`av_max_alloc`, left at its INT_MAX).
    static let allocationCap = Int(Int32.max)

    /// Bytes read through a custom AVIOContext, for inputs opened from memory or a part of a file.
    private let memory: ReaderIO?

    convenience init(path: String) throws {
        try self.init(name: path, memory: nil, url: path)
    }

    /// Bytes already in memory, read as a file would be (nothing touches the disk).
    /// - Parameter name: what errors call it (the file the bytes came from).
    convenience init(data: [UInt8], name: String = "the data") throws {
        let ff = try Trace.time("load FFmpeg") { try FFmpegLibraries.all() }
        try self.init(name: name, memory: try ReaderIO(ByteReader(data), ff: ff), url: nil)
    }

    /// The file's first `end` bytes, as if the file ended there (what follows is not the media's).
    convenience init(path: String, end: Int) throws {
        let ff = try Trace.time("load FFmpeg") { try FFmpegLibraries.all() }
        try self.init(name: path, memory: try ReaderIO(try InputFile(path).reader.prefix(end), ff: ff), url: nil)
    }

    private init(name: String, memory: ReaderIO?, url: String?) throws {
        let ff = try Trace.time("load FFmpeg") { try FFmpegLibraries.all() }
        self.ff = ff
        self.memory = memory
        deadline = Deadline(seconds: Self.timeLimit)
        guard let c = ff.media.avformat_alloc_context() else { throw MediaPrepError(.decodeFailed, "out of memory opening \(name)") }
        if let memory {
            c.pointee.pb = memory.avio
            c.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        c.pointee.interrupt_callback = deadline.callback
        var ctx: UnsafeMutablePointer<AVFormatContext>? = c
        // On failure avformat_open_input frees the context and clears it; a custom pb stays ours.
        let rc = Trace.time("open input") {
            url.map { u in FileNameBytes.withCString(u) { ff.media.avformat_open_input(&ctx, $0, nil, nil) } } ?? ff.media.avformat_open_input(&ctx, nil, nil, nil)
        }
        guard rc >= 0, let opened = ctx else {
            let e = AVError(rc: rc)
            if e == .exit { throw MediaPrepError(.timeout, "\(name) took longer than \(Int(Self.timeLimit)) s to open") }
            // Only content sniffed as a format FFmpeg reads is opened here: what it cannot open is damaged.
            let code: MediaPrepError.Code = switch e {
            case .noSuchFile: .unreadableFile
            case .eof: .truncated
            default: .corrupt
            }
            // No memory while reading headers is what the headers ask for (an `stco` claiming 2^31
            // entries is past FFmpeg's allocation cap): the file's fault, not the machine's, or an
            // engine honouring "retry" would retry it for ever.
            if e == .noMemory {
                throw MediaPrepError(.corrupt, "cannot open \(name): its headers ask for more memory than FFmpeg allows a table (\(Self.allocationCap >> 20) MiB)")
            }
            throw e.media(code, "cannot open \(name)")
        }
        context = opened
        // MP4/MOV and Matroska/WebM headers carry what we need; probing frames is only for the rest.
        let format = opened.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        let skip = (format.contains("mov") || format.contains("matroska")) && headerIsComplete
        let info = skip ? 0 : Trace.time("find stream info") { ff.media.avformat_find_stream_info(opened, nil) }
        if info == AVError.noMemory.rc {
            throw MediaPrepError(.corrupt, "cannot read \(name)'s streams: its headers ask for more memory than FFmpeg allows a table (\(Self.allocationCap >> 20) MiB)")
        }
        if info < 0 {
            // Every property is set: throwing now runs deinit, which frees all of it (closing here
            // too was a double free, found by the container fuzzer).
            throw MediaPrepError.ffmpeg(.corrupt, "cannot read stream information", info)
        }
    }

    /// Reading goes on from the keyframe at or before `seconds` (from the stream's start) of `stream`;
    /// where the container cannot seek, from where it was.
    func seek(toKeyframeBefore seconds: Double, stream: UnsafeMutablePointer<AVStream>) {
        let start = stream.pointee.start_time == AV_NOPTS ? 0 : stream.pointee.start_time
        let ticks = seconds / av_q2d(stream.pointee.time_base)
        guard ticks.isFinite, ticks < 1e15 else { return }
        _ = ff.media.av_seek_frame(context, stream.pointee.index, start + Int64(ticks), AVSEEK_FLAG_BACKWARD)
    }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        ff.media.avformat_close_input(&c)
    }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(context.pointee.nb_streams)).compactMap { context.pointee.streams[$0] }
    }

    /// Whether the best video (else audio) stream gives a packet among the first `limit` the container gives:
    /// one whose media data was stripped or whose index points past its end gives none. Reads on from
    /// where the container stands, so only for an input nothing else reads (`check`'s).
    func givesPacket(video: Bool, limit: Int = 1_000) -> Bool {
        guard let stream = bestStream(video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO) else { return false }
        var packet = ff.media.av_packet_alloc()
        defer { ff.media.av_packet_free(&packet) }
        guard let pkt = packet else { return true }  // no memory to look: not a verdict on the file
        for _ in 0..<limit {
            guard ff.media.av_read_frame(context, pkt) >= 0 else { return false }
            defer { ff.media.av_packet_unref(pkt) }
            if pkt.pointee.stream_index == stream.pointee.index, pkt.pointee.size > 0 { return true }
        }
        return true  // past the limit without one of its own: interleaving this sparse is not judged
    }

    /// The stream FFmpeg itself would pick, skipping cover art attached to audio files.
    func bestStream(_ type: AVMediaType) -> UnsafeMutablePointer<AVStream>? {
        let idx = ff.media.av_find_best_stream(context, type, -1, -1, nil, 0)
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
        if context.pointee.duration != AV_NOPTS, context.pointee.duration > 0 {
            return Double(context.pointee.duration) / Double(cff_time_base())
        }
        if let s = stream, s.pointee.duration != AV_NOPTS, s.pointee.duration > 0 {
            return Double(s.pointee.duration) * av_q2d(s.pointee.time_base)
        }
        return nil
    }

    /// A file cut short reads cleanly up to the cut: what was read must reach the duration the
    /// container claims (less a frame's jitter), or the file is not sent as if it were whole.
    /// - Parameter slack: what may be missing at least; 5 % of the claim when more. Video: 0.5 s (a
    ///   GOP's timestamps). Sound alone: `ContainerEnd.soundSlack`.
    func requireClaimedEnd(covered: Double, slack: Double = 0.5) throws {
        if let claimed = durationSeconds(stream: nil), ContainerEnd.isCutShort(claimed: claimed, reached: covered, slack: slack) {
            throw MediaPrepError(.truncated, String(printf: "the file claims %.1f s but its media ends at %.1f s", claimed, covered))
        }
    }

    /// The furthest byte a stream's index (MP4 sample table, Matroska cues) points at; -1 if it has
    /// none. A file shorter than that was cut off, however complete its header looks.
    func indexEnd(_ st: UnsafeMutablePointer<AVStream>) -> Int64 {
        var end: Int64 = -1
        for i in 0..<ff.media.avformat_index_get_entries_count(st) {
            guard let e = ff.media.avformat_index_get_entry(st, i) else { continue }
            let size = Int64(e.pointee.size)  // a 30-bit field of the entry
            if e.pointee.pos >= 0 && e.pointee.pos + size > end { end = e.pointee.pos + size }
        }
        return end
    }

    /// Whether the demuxer's header already gave every parameter we use (ISO BMFF and Matroska
    /// headers carry them), so avformat_find_stream_info, which decodes frames to guess, can be skipped.
    private var headerIsComplete: Bool {
        let c = context.pointee
        guard c.nb_streams > 0, c.duration != AV_NOPTS, c.duration > 0 else { return false }
        return streams.allSatisfy { st in
            let p = st.pointee.codecpar.pointee
            if p.codec_id == AV_CODEC_ID_NONE { return false }
            if p.codec_type == AVMEDIA_TYPE_VIDEO && st.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 {
                if p.width <= 0 || p.height <= 0 { return false }
                let fr = st.pointee.avg_frame_rate
                if fr.num <= 0 || fr.den <= 0 { return false }
            }
            if p.codec_type == AVMEDIA_TYPE_AUDIO && (p.sample_rate <= 0 || p.ch_layout.nb_channels <= 0) { return false }
            return true
        }
    }
}

/// Bytes read as a file through a custom AVIOContext: data that never touched the disk (the bytes
/// API, the container fuzz target) or the part of a file that is the media (a FLAC without the tag
/// after its frames); frees the context and its buffer.
private final class ReaderIO {
    let avio: UnsafeMutablePointer<AVIOContext>
    private let ff: FFmpeg
    private let cursor: Cursor

    /// What the read and seek callbacks see through their opaque pointer.
    private final class Cursor {
        let reader: ByteReader
        var position = 0
        init(_ reader: ByteReader) { self.reader = reader }

        static func from(_ opaque: UnsafeMutableRawPointer?) -> Cursor? {
            opaque.map { Unmanaged<Cursor>.fromOpaque($0).takeUnretainedValue() }
        }

        func read(_ buf: UnsafeMutablePointer<UInt8>?, _ n: Int) -> Int32 {
            guard reader.size - position > 0, let buf else { return cff_error_eof() }
            guard let bytes = try? reader.read(position, n) else { return cff_averror(EIO) }
            guard !bytes.isEmpty else { return cff_error_eof() }
            bytes.withUnsafeBufferPointer { b in
                if let base = b.baseAddress { buf.update(from: base, count: b.count) }
            }
            position += bytes.count
            return Int32(bytes.count)
        }

        func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
            if whence & AVSEEK_SIZE != 0 { return Int64(reader.size) }
            let base: Int64 = switch whence & 3 {
            case SEEK_CUR: Int64(position)
            case SEEK_END: Int64(reader.size)
            default: 0
            }
            let p = base + offset
            guard p >= 0, p <= Int64(reader.size) else { return Int64(cff_averror(EINVAL)) }
            position = Int(p)
            return p
        }
    }

    init(_ reader: ByteReader, ff: FFmpeg) throws {
        self.ff = ff
        let cursor = Cursor(reader)
        self.cursor = cursor
        guard let buffer = ff.util.av_malloc(4096) else { throw MediaPrepError(.decodeFailed, "out of memory") }
        // Unretained: `cursor` lives as long as this object, which frees the AVIOContext in deinit.
        let opaque = Unmanaged.passUnretained(cursor).toOpaque()
        guard let io = ff.media.avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), 4096, 0, opaque,
                                                   { o, buf, n in Cursor.from(o)?.read(buf, Int(n)) ?? cff_error_eof() }, nil,
                                                   { o, offset, whence in Cursor.from(o)?.seek(offset, whence) ?? -1 }) else {
            ff.util.av_free(buffer)
            throw MediaPrepError(.decodeFailed, "out of memory")
        }
        avio = io
    }

    deinit {
        // libavformat leaves custom I/O to its owner: the buffer (possibly reallocated) and the context.
        var buffer: UnsafeMutablePointer<UInt8>? = avio.pointee.buffer
        withUnsafeMutablePointer(to: &buffer) { ff.util.av_freep($0) }
        var io: UnsafeMutablePointer<AVIOContext>? = avio
        ff.media.avio_context_free(&io)
    }
}

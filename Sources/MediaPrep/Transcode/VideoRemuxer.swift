import CFFmpeg

/// Decides what a video needs so that every client plays it: AVPlayer plays MP4/MOV with H.264 or
/// HEVC and AAC (or no) audio; the same codecs in another container only need a new container.
enum VideoCompatibility: Equatable {
    case playable
    /// H.264/HEVC (+ AAC) in Matroska/WebM: the packets move into an MP4 untouched.
    case remux
    /// Other codecs (VP9, AV1, MPEG-4, Opus, Vorbis…), and interlaced video: transcoded to H.264 + AAC.
    case needsTranscode

    static let videoCodecs: Set<String> = ["h264", "hevc"]

    static func of(_ p: ProbeResult) -> VideoCompatibility {
        // Interlaced H.264 plays, but phones show both fields at once: a comb on every moving edge.
        let codecsOK = videoCodecs.contains(p.videoCodec ?? "") && (p.audioCodec == nil || p.audioCodec == "aac") && !p.interlaced
        guard codecsOK else { return .needsTranscode }
        return p.format == .mp4 || p.format == .mov ? .playable : .remux
    }
}

/// Moves a video's packets into an MP4 (faststart) without decoding them.
struct VideoRemuxer {
    /// Copies every audio and video stream of `input` (read from its start) into an MP4 at `path`,
    /// packets untouched; the display matrix (rotation) goes along. `audioOnly`: the best audio
    /// stream alone, into `muxer` ("ipod" for AAC, "mp3").
    /// - Parameter window: seconds of the source kept (`--trim`): from the keyframe at or before its
    ///   start (sound from there too) to its end (video by decode order, so no kept frame loses a
    ///   reference), timestamps from zero; packets copied as they are.
    func remux(_ input: MediaInput, to path: String, muxer format: String = "mp4", audioOnly: Bool = false, window: Range<Double>? = nil) throws {
        let ff = input.ff
        func failed(_ what: String, _ rc: Int32) -> MediaPrepError {
            AVError(rc: rc).media(.corrupt, "cannot remux to \(format == "mp3" ? "MP3" : "MP4"): \(what)")
        }
        let muxer = try MP4Muxer(ff: ff, format: format, path: path)
        var outputs: [Int32: UnsafeMutablePointer<AVStream>] = [:]
        let sound = audioOnly ? input.bestStream(AVMEDIA_TYPE_AUDIO) : nil
        for source in input.streams where !audioOnly || source == sound {
            let type = source.pointee.codecpar.pointee.codec_type
            guard type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO,
                  source.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            outputs[source.pointee.index] = try muxer.addStream(copying: source)
        }
        guard !outputs.isEmpty else { throw failed("no audio or video stream", cff_error_stream_not_found()) }
        try muxer.start()
        var packet = ff.media.av_packet_alloc()
        defer { ff.media.av_packet_free(&packet) }
        guard let pkt = packet else { throw failed("out of memory", AVError.noMemory.rc) }
        // Timestamps start at zero, as ffmpeg's own remux makes them: a transport stream's audio starts
        // at 1.4 s, which an MP4 would keep as an empty edit, played as silence.
        let startTime = input.context.pointee.start_time
        let start = startTime == AV_NOPTS || startTime <= 0 ? 0 : Double(startTime) / 1_000_000
        var shift: [Int32: Int64] = [:]
        for (index, _) in outputs {
            guard start > 0, let st = input.context.pointee.streams[Int(index)] else { continue }
            let ticks = start / av_q2d(st.pointee.time_base)
            if ticks.isFinite, ticks < 1e15 { shift[index] = Int64(ticks.rounded()) }
        }
        var lastDTS: [Int32: Int64] = [:]
        var covered: Double? = nil  // seconds from each stream's start to the end of its last packet
        var rc: Int32 = 0
        // A window: read from the keyframe before its start; the cut is that keyframe's time, known when it comes.
        let video = audioOnly ? nil : input.bestStream(AVMEDIA_TYPE_VIDEO)
        var cut: Double? = window.map { video == nil ? $0.lowerBound : -1 }
        if let window, window.lowerBound > 0, let lead = video ?? sound ?? input.bestStream(AVMEDIA_TYPE_AUDIO) {
            input.seek(toKeyframeBefore: window.lowerBound, stream: lead)
        }
        if let c = cut, c >= 0 { for (index, _) in outputs { shift[index, default: 0] += Self.ticks(c, input.context.pointee.streams[Int(index)]) } }
        while true {
            rc = ff.media.av_read_frame(input.context, pkt)
            if rc < 0 { break }
            defer { ff.media.av_packet_unref(pkt) }
            let si = pkt.pointee.stream_index
            guard let out = outputs[si], let source = input.context.pointee.streams[Int(si)] else { continue }
            // In Double: a hostile file's timestamps may be anywhere in Int64.
            let origin = source.pointee.start_time == AV_NOPTS ? 0 : Double(source.pointee.start_time)
            let seconds = { (ts: Int64) in (Double(ts) - origin) * av_q2d(source.pointee.time_base) }
            if pkt.pointee.pts != AV_NOPTS {
                covered = max(covered ?? 0, seconds(pkt.pointee.pts + max(0, pkt.pointee.duration)))
            }
            if let window, let c = cut {
                let isVideo = source == video
                let at = pkt.pointee.pts != AV_NOPTS ? seconds(pkt.pointee.pts) : pkt.pointee.dts != AV_NOPTS ? seconds(pkt.pointee.dts) : 0
                if c < 0 {
                    // Until the first video keyframe, nothing is kept; its time is the cut.
                    guard isVideo, pkt.pointee.flags & AV_PKT_FLAG_KEY != 0 else { continue }
                    cut = max(0, at)
                    for (index, _) in outputs { shift[index, default: 0] += Self.ticks(max(0, at), input.context.pointee.streams[Int(index)]) }
                } else if at < c - 1e-6 {
                    continue
                }
                let order = isVideo && pkt.pointee.dts != AV_NOPTS ? seconds(pkt.pointee.dts) : at
                if order >= window.upperBound { continue }
            }
            if let by = shift[si] {
                if pkt.pointee.pts != AV_NOPTS { pkt.pointee.pts = pkt.pointee.pts.subtractingReportingOverflow(by).partialValue }
                if pkt.pointee.dts != AV_NOPTS { pkt.pointee.dts = pkt.pointee.dts.subtractingReportingOverflow(by).partialValue }
            }
            Self.mendTimestamps(pkt, videoDelay: Int64(source.pointee.codecpar.pointee.video_delay), last: &lastDTS[si])
            pkt.pointee.pos = -1
            try muxer.write(pkt, stream: out, from: source.pointee.time_base)
            if input.deadline.passed { throw failed("took too long", AVError.exit.rc) }
        }
        guard rc == AVError.eof.rc else { throw failed("the input is damaged", rc) }
        if let c = cut, c < 0 { throw MediaPrepError(.invalidArgument, "no keyframe of the video falls in the part asked for") }
        if let covered { try input.requireClaimedEnd(covered: covered) }  // no timestamps: nothing to hold it against
        try muxer.finish()
    }

    /// `seconds` in `stream`'s time base; 0 where it cannot be said.
    static func ticks(_ seconds: Double, _ stream: UnsafeMutablePointer<AVStream>?) -> Int64 {
        guard let stream else { return 0 }
        let t = seconds / av_q2d(stream.pointee.time_base)
        return t.isFinite && abs(t) < 1e15 ? Int64(t.rounded()) : 0
    }

    /// Matroska leaves the DTS of the first reordered (B-frame) packets unset, which MP4 needs: count
    /// back from the PTS by the reorder depth, then keep DTS strictly increasing.
    static func mendTimestamps(_ pkt: UnsafeMutablePointer<AVPacket>, videoDelay: Int64, last: inout Int64?) {
        let p = pkt.pointee
        let step = p.duration > 0 ? p.duration : 1
        var dts = p.dts, pts = p.pts
        if dts == AV_NOPTS {
            if let l = last { dts = l + step } else if pts != AV_NOPTS { dts = pts - videoDelay * step } else { dts = 0 }
        }
        if let l = last, dts <= l { dts = l + 1 }
        if pts != AV_NOPTS && pts < dts { pts = dts }
        last = dts
        (pkt.pointee.dts, pkt.pointee.pts) = (dts, pts)
    }
}

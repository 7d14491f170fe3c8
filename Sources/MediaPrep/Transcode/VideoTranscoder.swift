import CFFmpeg
import FoundationEssentials
import Glibc

/// Any video FFmpeg reads, re-encoded to what every client plays: H.264 (libx264) + AAC in an MP4
/// with faststart, upright as the source was shown (display matrix kept), square pixels.
struct VideoTranscoder {
    var plan: VideoEncodePlan
    var cancellation: CancellationFlag?
    /// Share of the work done, 0…1 (both passes of a two-pass encode).
    var progress: (@Sendable (Double) -> Void)?
    /// Decoder threads; x264 picks its own.
    var threads = 2
    /// Each encode run, in order, when set: a pass stopped for riding its cap, one repeated for an overshoot.
    var log: PassLog?

    /// Decoder threads for a job given `cores`: one more, as libavcodec counts them itself, since a
    /// frame-threaded decoder waits on its neighbours (ffmpeg decoding and scaling the 60 s 1080p
    /// clip: 5.27 s with 2 threads, 4.70 s with 3, 4.62 s with 4). Past 4K not: each frame thread
    /// holds its own frames (a 1 s 8K HEVC clip peaked at 989 MB with 3 threads, 906 MB with 2).
    package static func decodeThreads(cores: Int, sourcePixels: Int) -> Int {
        sourcePixels > 3840 * 2160 ? max(cores, 2) : max(1, cores) + 1
    }

    /// Encodes `source` into `path`; with `maxBytes`, the file is at most that large or this throws
    /// `overLimit` (nothing is left at `path` then). Returns the file's size.
    ///
    /// Constant quality first when the plan says so; if that rides its cap (`CapWatch`) or ends over the
    /// budget, or the plan has a rate, x264's two passes at the rate; a result still over is encoded
    /// once more (second pass only, the first pass's statistics reused) at the rate scaled by how far
    /// over it was.
    func transcode(source: String, to path: String, maxBytes: Int? = nil, fallback: VideoEncodePlan? = nil) throws -> Int {
        let reached = Locked(0.0)
        var bar = self
        // One bar from 0 to 1: a second pass repeated after an overshoot holds it, not sends it back.
        if let progress { bar.progress = { v in progress(reached.withLock { $0 = max($0, v); return $0 }) } }
        return try bar.run(source: source, to: path, maxBytes: maxBytes, fallback: fallback, reached: reached)
    }

    private func run(source: String, to path: String, maxBytes: Int?, fallback: VideoEncodePlan?, reached: Locked<Double>) throws -> Int {
        guard var rate = plan.videoBitRate else {
            let twoPass = fallback.flatMap { $0.videoBitRate == nil ? nil : $0 }
            var size: Int?
            var again = self
            do {
                try encodePass(source: source, output: path, pass: 0, stats: nil, share: (0, 1), watchCap: twoPass != nil)
                size = try FileBytes.size(path)
            } catch is CapWatch.Ridden {
                Trace.note("pass 0 stopped, riding its cap: two passes instead")
                // The two passes go on from where the stopped pass left the bar.
                let from = reached.withLock { $0 }
                if let progress { again.progress = { progress(from + (1 - from) * $0) } }
            }
            if let size, size <= maxBytes ?? .max { return size }
            unlink(path)
            guard let twoPass else { throw MediaPrepError(.overLimit, "the video is \(size ?? 0) bytes, over the \(maxBytes ?? 0)-byte budget") }
            again.plan = twoPass
            return try again.run(source: source, to: path, maxBytes: maxBytes, fallback: nil, reached: reached)
        }
        let stats = try OutputWriter.scratchDirectory() + "/x264-stats-" + UUID().uuidString
        defer { for suffix in ["", ".temp", ".mbtree", ".mbtree.temp"] { unlink(stats + suffix) } }
        let frames = CacheSlot()
        try encodePass(source: source, output: nil, pass: 1, stats: stats, share: (0, 0.4), rate: rate, frames: frames)
        try encodePass(source: source, output: path, pass: 2, stats: stats, share: (0.4, 1), rate: rate, frames: frames)
        var size = try FileBytes.size(path)
        for _ in 0..<Self.retries {
            guard let maxBytes, size > maxBytes else { return size }
            // The container and audio do not shrink with the video: scale the video's share only.
            let audio = Double(plan.audioBitRate) / Double(plan.audioBitRate + rate)
            let videoBytes = Double(size) * (1 - audio), over = Double(size - maxBytes)
            rate = Int(Double(rate) * max(0.5, (videoBytes - over) / videoBytes) * 0.97)
            try encodePass(source: source, output: path, pass: 2, stats: stats, share: (0.4, 1), rate: rate, frames: frames)
            size = try FileBytes.size(path)
        }
        if let maxBytes, size > maxBytes {
            unlink(path)
            throw MediaPrepError(.overLimit, "the video is still \(size) bytes after \(Self.retries + 1) encodes, over the \(maxBytes)-byte budget")
        }
        return size
    }

    /// Second passes after the first: two-pass x264 lands within ~2 % of its rate, so one is the rule.
    static let retries = 2

    /// One pass over the input: decode, scale, encode; `output` nil discards the packets (first pass).
    private func encodePass(source: String, output: String?, pass: Int32, stats: String?,
                            share: (Double, Double), rate: Int? = nil, frames: CacheSlot? = nil, watchCap: Bool = false) throws {
        // The next pass's peak is then its own, not added to what this one freed.
        defer { MemoryTuning.returnFreedMemory() }
        do {
            try Trace.time("encode pass \(pass)") {
                try runPass(source: source, output: output, pass: pass, stats: stats, share: share, rate: rate, frames: frames, watchCap: watchCap)
            }
            log?.entries.append(.init(pass: pass, rate: rate ?? 0, finished: true))
        } catch let e as CapWatch.Ridden {
            log?.entries.append(.init(pass: pass, rate: rate ?? 0, finished: false))
            throw e
        }
    }

    /// - Parameter frames: a two-pass encode's first pass keeps its scaled frames here (when they fit
    ///   `FrameCacheBudget.limit`), and the passes after it read them instead of decoding the video again.
    /// - Parameter watchCap: a constant-quality pass that has a two-pass fallback throws
    ///   `CapWatch.Ridden` as soon as it rides the plan's rate cap.
    private func runPass(source: String, output: String?, pass: Int32, stats: String?,
                         share: (Double, Double), rate: Int?, frames: CacheSlot?, watchCap: Bool) throws {
        let input = try MediaInput(path: source)
        let ff = input.ff
        guard let vstream = input.bestStream(AVMEDIA_TYPE_VIDEO) else {
            throw MediaPrepError(.noVideoStream, "no video stream to encode")
        }
        let astream = output == nil || plan.audioChannels == 0 ? nil : input.bestStream(AVMEDIA_TYPE_AUDIO)
        let vdec = try FrameDecoder(input: input, stream: vstream, threads: threads)
        let adec = try astream.map { try FrameDecoder(input: input, stream: $0) }
        let video = try VideoLane(plan: plan, stream: vstream, decoder: vdec, ff: ff, pass: pass, stats: stats,
                                  rate: rate ?? 0)
        var audio: AudioLane? = nil
        if let adec { audio = try AudioLane(plan: plan, decoder: adec, ff: ff) }
        audio?.trim = plan.trim

        let muxer = try output.map { try MP4Muxer(ff: ff, format: "mp4", path: $0) }
        let venc = try video.open()
        let duration = max(0.001, input.durationSeconds(stream: vstream) ?? 0)
        if let frames { try attach(frames, to: video, pass: pass, stream: vstream, duration: duration) }
        if watchCap, let cap = plan.maxRate { video.capWatch = CapWatch(bitsPerSecond: cap, seconds: span(duration)) }
        if let muxer { try connect(muxer, video: video, encoder: venc, audio: audio, stream: vstream) }
        if video.replay == nil { video.startPipeline() }
        defer { try? video.closePipeline(cancel: true) }

        if let trim = plan.trim, trim.lowerBound > 0 { input.seek(toKeyframeBefore: trim.lowerBound, stream: vstream) }
        var packet = ff.media.av_packet_alloc()
        defer { ff.media.av_packet_free(&packet) }
        guard let pkt = packet else { throw MediaPrepError(.encodeFailed, "cannot allocate a packet") }
        var count = 0
        var lastReport = -1.0
        while true {
            // The 30 s input limit bounds a stalled read here, not the whole encode.
            input.deadline.reset(seconds: MediaInput.timeLimit)
            let rr = ff.media.av_read_frame(input.context, pkt)
            if rr == AVError.eof.rc { break }
            if rr < 0 {
                if rr == AVError.exit.rc { throw MediaPrepError(.timeout, "reading the input stalled") }
                throw MediaPrepError.ffmpeg(.truncated, "the input ends early or is damaged", rr)
            }
            defer { ff.media.av_packet_unref(pkt) }
            count += 1
            if count % 16 == 0 { try cancellation?.check() }
            let index = pkt.pointee.stream_index
            if video.replay != nil {
                // The video comes from the first pass's frames, in step with the sound read here.
                if let a = audio, let s = astream, index == s.pointee.index {
                    if pkt.pointee.pts != AV_NOPTS {
                        let origin = s.pointee.start_time == AV_NOPTS ? 0 : s.pointee.start_time
                        try video.replayFrames(upTo: Double(pkt.pointee.pts - origin) * av_q2d(s.pointee.time_base))
                    }
                    _ = a.decoder.send(pkt)
                    try a.drain()
                    if let t = video.lastSeconds, let progress, t - lastReport >= 0.5 {
                        lastReport = t
                        progress(share.0 + (share.1 - share.0) * min(1, t / duration))
                    }
                }
                continue
            }
            if index == vstream.pointee.index {
                if !vdec.send(pkt) { video.damaged += 1 }
                try video.drain()
                if let t = video.lastSeconds, let progress, t - lastReport >= 0.5 {
                    lastReport = t
                    progress(share.0 + (share.1 - share.0) * min(1, t / duration))
                }
            } else if let a = audio, let s = astream, index == s.pointee.index {
                _ = a.decoder.send(pkt)
                try a.drain()
            }
        }
        try finish(video, decoder: vdec, audio: audio, input: input, muxer: muxer)
        progress?(share.1)
    }
}

extension VideoTranscoder {
    /// A first pass records its scaled frames in `frames` (sized for the clip's span at the plan's frame
    /// rate); a later pass replays them when the first kept every one.
    fileprivate func attach(_ frames: CacheSlot, to video: VideoLane, pass: Int32, stream: UnsafeMutablePointer<AVStream>, duration: Double) throws {
        if pass == 1 {
            let fps = min(plan.maxFrameRate, stream.pointee.avg_frame_rate.num > 0 ? av_q2d(stream.pointee.avg_frame_rate) : 60)
            frames.cache = try FrameCache(width: video.width, height: video.height, frames: Int((span(duration) * fps * 1.1).rounded(.up)) + 16)
            video.recorder = frames.cache
        } else if let cache = frames.cache, cache.usable, cache.frames > 0 {
            cache.rewind()
            video.replay = cache
        }
    }

    /// Seconds of output from a source of `duration`: the trimmed part, or all of it.
    fileprivate func span(_ duration: Double) -> Double {
        plan.trim.map { min($0.upperBound, duration) - $0.lowerBound } ?? duration
    }

    /// After the last packet: the decoders drained (or the cache replayed to its end), the encoders
    /// flushed, the file closed; a pass with no frame, or a file shorter than it claims, fails.
    fileprivate func finish(_ video: VideoLane, decoder: FrameDecoder, audio: AudioLane?, input: MediaInput, muxer: MP4Muxer?) throws {
        if video.replay != nil {
            try video.replayFrames(upTo: .infinity)
        } else {
            _ = decoder.send(nil)
            try video.drain()
        }
        try video.endOfFrames()
        try video.closePipeline()
        // A cache that missed a frame (the disk refused one) is not read: the next pass decodes.
        if let cache = video.recorder, cache.usable, cache.frames != video.framesEncoded { cache.drop() }
        guard video.framesEncoded > 0 else {
            throw MediaPrepError(video.damaged > 0 ? .corrupt : .truncated, "no frame of the video could be decoded")
        }
        try input.requireClaimedEnd(covered: max(video.lastSeconds ?? 0, audio?.lastSeconds ?? 0))
        try video.finish()
        if let a = audio {
            _ = a.decoder.send(nil)
            try a.drain()
            try a.finish()
        }
        try muxer?.finish()
    }

    /// The output's streams (the display matrix kept), and the lanes' packets sent to it.
    fileprivate func connect(_ muxer: MP4Muxer, video: VideoLane, encoder: StreamEncoder, audio: AudioLane?, stream: UnsafeMutablePointer<AVStream>) throws {
        let st = try muxer.addStream(for: encoder)
        try muxer.copyDisplayMatrix(from: stream, to: st)
        video.output = st
        if let a = audio { a.output = try muxer.addStream(for: a.encoder) }
        try muxer.start()
        // The video's packets come from the encoding thread, the sound's from this one.
        let lock = PosixLock()
        video.sink = { p, st, tb in try lock.withLock { try muxer.write(p, stream: st, from: tb) } }
        audio?.sink = { p, st, tb in try lock.withLock { try muxer.write(p, stream: st, from: tb) } }
    }
}

/// The encodes a transcode ran: what tests read to tell a pass stopped for riding its cap, or one
/// repeated for an overshoot.
final class PassLog {
    struct Entry: Equatable {
        let pass: Int32
        /// The average rate of a two-pass encode; 0 at constant quality.
        let rate: Int
        /// False: stopped early (riding its cap).
        let finished: Bool
    }
    var entries: [Entry] = []
}

/// Where a two-pass encode's first pass leaves its frames for the passes after it.
final class CacheSlot {
    var cache: FrameCache?
}

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
    /// Constant quality first when the plan says so; if that is over the budget, or the plan has a rate,
    /// x264's two passes at the rate; a result still over is encoded once more (second pass only, the
    /// first pass's statistics reused) at the rate scaled by how far over it was.
    func transcode(source: String, to path: String, maxBytes: Int? = nil, fallback: VideoEncodePlan? = nil) throws -> Int {
        guard var rate = plan.videoBitRate else {
            try encodePass(source: source, output: path, pass: 0, stats: nil, share: (0, 1))
            let size = try FileBytes.size(path)
            guard let maxBytes, size > maxBytes else { return size }
            guard let fallback, fallback.videoBitRate != nil else {
                unlink(path)
                throw MediaPrepError(.overLimit, "the video is \(size) bytes, over the \(maxBytes)-byte budget")
            }
            var again = self
            again.plan = fallback
            return try again.transcode(source: source, to: path, maxBytes: maxBytes)
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
                            share: (Double, Double), rate: Int? = nil, frames: CacheSlot? = nil) throws {
        try Trace.time("encode pass \(pass)") {
            try runPass(source: source, output: output, pass: pass, stats: stats, share: share, rate: rate, frames: frames)
        }
    }

    /// - Parameter frames: a two-pass encode's first pass keeps its scaled frames here (when they fit
    ///   `FrameCache.maxBytes`), and the passes after it read them instead of decoding the video again.
    private func runPass(source: String, output: String?, pass: Int32, stats: String?,
                         share: (Double, Double), rate: Int?, frames: CacheSlot?) throws {
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
            let span = plan.trim.map { min($0.upperBound, duration) - $0.lowerBound } ?? duration
            frames.cache = try FrameCache(width: video.width, height: video.height, frames: Int((span * fps * 1.1).rounded(.up)) + 16)
            video.recorder = frames.cache
        } else if let cache = frames.cache, cache.usable, cache.frames > 0 {
            cache.rewind()
            video.replay = cache
        }
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

/// The video half of a pass: frames scaled to the plan's size and encoded with libx264.
private final class VideoLane {
    let plan: VideoEncodePlan
    let stream: UnsafeMutablePointer<AVStream>
    let decoder: FrameDecoder
    let ff: FFmpeg
    let pass: Int32
    let stats: String?
    let rate: Int
    var damaged = 0
    /// Where packets go; nil in a first pass, which keeps only x264's statistics.
    var sink: ((UnsafeMutablePointer<AVPacket>, UnsafeMutablePointer<AVStream>, AVRational) throws -> Void)?
    var output: UnsafeMutablePointer<AVStream>?
    private(set) var encoder: StreamEncoder?
    private(set) var framesEncoded = 0
    private var scaler: Scaler?
    private var scalerKey: (Int32, Int32, Int32) = (0, 0, -1)
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var size = (width: 0, height: 0)
    private var lastKept: Double?
    /// HDR sources: frames mapped to SDR BT.709 before scaling, and the output tagged BT.709.
    private var mapper: HDRToSDR?
    /// Interlaced sources, from their first interlaced frame on.
    private(set) var deinterlacer: Deinterlacer?
    private(set) var lastSeconds: Double?
    /// Source frame durations by output timestamp, until their packet comes out of the encoder.
    private var durations: [Int64: Int64] = [:]
    private var nominalDuration: Int64 = 0
    /// A first pass's frames kept for the passes after it; a later pass's frames read from there.
    var recorder: FrameCache?
    var replay: FrameCache?
    var width: Int { size.width }
    var height: Int { size.height }

    init(plan: VideoEncodePlan, stream: UnsafeMutablePointer<AVStream>, decoder: FrameDecoder,
         ff: FFmpeg, pass: Int32, stats: String?, rate: Int) throws {
        (self.plan, self.stream, self.decoder, self.ff, self.pass, self.stats, self.rate) = (plan, stream, decoder, ff, pass, stats, rate)
        frame = ff.util.av_frame_alloc()
        guard frame != nil else { throw MediaPrepError(.encodeFailed, "cannot allocate a frame") }
    }

    deinit { ff.util.av_frame_free(&frame) }

    func drain() throws {
        while let f = try decoder.receive() {
            if deinterlacer == nil, cff_frame_interlaced(f) != 0 {
                deinterlacer = try Deinterlacer(like: f, timeBase: stream.pointee.time_base, util: ff.util)
            }
            if let d = deinterlacer { try d.add(f, emit: add) } else { try add(f) }
        }
    }

    private func add(_ decoded: UnsafeMutablePointer<AVFrame>) throws {
        let t = decoder.seconds(of: decoded) ?? (lastSeconds.map { $0 + 1 / max(1, plan.maxFrameRate) } ?? 0)
        lastSeconds = t
        if let trim = plan.trim, !trim.contains(t) { return }  // outside the part sent
        // Frame rate cap: keep a frame only a whole interval (less a quarter, for jitter) after the last kept.
        let interval = 1 / plan.maxFrameRate
        if let last = lastKept, t - last < interval * 0.75 { return }
        lastKept = t
        if let scaling {
            // The decoded frame goes to the scaling thread: this one only feeds the decoder.
            var copy = ff.util.av_frame_alloc()
            guard let held = copy, ff.util.av_frame_ref(held, decoded) >= 0 else {
                ff.util.av_frame_free(&copy)
                throw MediaPrepError(.encodeFailed, "cannot allocate a frame")
            }
            try scaling.push(Decoded(frame: held, seconds: t))
            return
        }
        guard let enc = encoder, let out = frame else { return }
        try encode(out, try scale(decoded, seconds: t, into: out), enc)
    }

    /// A decoded frame (a reference to the decoder's) on its way to be scaled.
    struct Decoded {
        let frame: UnsafeMutablePointer<AVFrame>
        let seconds: Double
    }

    /// A scaled frame on its way to the encoder, with what the cache keeps of it.
    struct Scaled {
        let frame: UnsafeMutablePointer<AVFrame>
        let record: FrameCache.Record
    }

    /// One kept frame, mapped to SDR if need be, scaled into `out`; returns what the cache keeps of it.
    private func scale(_ decoded: UnsafeMutablePointer<AVFrame>, seconds t: Double, into out: UnsafeMutablePointer<AVFrame>) throws -> FrameCache.Record {
        var f = decoded
        if let transfer = HDRToSDR.transfer(of: decoded) {
            if mapper == nil { mapper = try HDRToSDR(util: ff.util) }
            if let m = mapper { f = try m.map(decoded, transfer) }
        }
        try ready(out)
        let planes = Scaler.Planes(pointers: Self.pointers(out), strides: Self.strides(out))
        if FrameConverter.hasAlphaChannel(f) {
            // GIF and other frames with transparency: shown on white, as the chat shows a transparent image.
            let rgb = AlphaOps.flattenOnWhite(try FrameConverter.convert(f, layout: .rgba))
            let sws = try scalerFor(width: Int32(rgb.width), height: Int32(rgb.height), format: AV_PIX_FMT_RGB24.rawValue)
            try rgb.bytes.withUnsafeBufferPointer {
                try sws.scale(Scaler.packed(UnsafeMutablePointer(mutating: $0.baseAddress), stride: rgb.width * 3), y: 0, h: rgb.height, into: planes)
            }
        } else {
            let sws = try scalerFor(width: f.pointee.width, height: f.pointee.height, format: f.pointee.format)
            sws.matchColorspace(of: f)
            try sws.scale(Scaler.Planes(pointers: Self.pointers(f), strides: Self.strides(f)), y: 0, h: Int(f.pointee.height), into: planes)
            (out.pointee.color_primaries, out.pointee.color_trc, out.pointee.colorspace) = (f.pointee.color_primaries, f.pointee.color_trc, f.pointee.colorspace)
        }
        out.pointee.color_range = AVCOL_RANGE_MPEG
        let start = stream.pointee.start_time == AV_NOPTS ? 0 : stream.pointee.start_time
        let pts = decoded.pointee.best_effort_timestamp
        out.pointee.pts = pts == AV_NOPTS ? Int64(t / av_q2d(stream.pointee.time_base)) : pts - start
        if let trim = plan.trim { out.pointee.pts -= Int64((trim.lowerBound / av_q2d(stream.pointee.time_base)).rounded()) }
        // Each packet gets its frame's own duration (x264 sets none): a GIF's last frame keeps its delay.
        let duration = cff_frame_duration(decoded) > 0 ? cff_frame_duration(decoded) : nominalDuration
        let record = FrameCache.Record(pts: out.pointee.pts, duration: duration, seconds: t, primaries: Int32(out.pointee.color_primaries.rawValue),
                                       transfer: Int32(out.pointee.color_trc.rawValue), colorspace: Int32(out.pointee.colorspace.rawValue))
        return record
    }

    /// Frames decoded here, scaled on a thread of their own and encoded on a third, in every pass that
    /// decodes (one replaying a first pass's frames encodes them in turn). Nil: all in turn.
    /// 60 s 1080p clip to 1,047,552 bytes, first pass: 6.6 s all in turn (two cores 80 % busy), 6.5 s
    /// scaled here (87 %: the decoder's threads waited while this one scaled), 5.6 s in three (95 %).
    private var scaling: EncodePipeline<Decoded>?
    private var encoding: EncodePipeline<Scaled>?

    func startPipeline() {
        guard let enc = encoder else { return }
        let util = ff.util
        func free(_ f: UnsafeMutablePointer<AVFrame>) {
            var frame: UnsafeMutablePointer<AVFrame>? = f
            util.av_frame_free(&frame)
        }
        guard let encoding = EncodePipeline<Scaled>(capacity: 8, consume: { [unowned self] item in
            defer { free(item.frame) }
            try encode(item.frame, item.record, enc)
        }, discard: { free($0.frame) }) else { return }
        // At most 64 MB of decoded frames in hand: 8 of 1080p, 2 of 4K.
        let par = stream.pointee.codecpar.pointee
        let frameBytes = max(1, Int(par.width) * Int(par.height) * 3)
        guard let scaling = EncodePipeline<Decoded>(capacity: min(8, max(2, (64 << 20) / frameBytes)), consume: { [unowned self] item in
            defer { free(item.frame) }
            guard let out = util.av_frame_alloc() else { throw MediaPrepError(.encodeFailed, "cannot allocate a frame") }
            let record: FrameCache.Record
            do { record = try scale(item.frame, seconds: item.seconds, into: out) } catch {
                free(out)
                throw error
            }
            try encoding.push(Scaled(frame: out, record: record))
        }, discard: { free($0.frame) }) else {
            encoding.cancel()
            return
        }
        (self.scaling, self.encoding) = (scaling, encoding)
    }

    /// Waits for the last frame to be scaled and encoded (`cancel` stops both instead, on a failure).
    func closePipeline(cancel: Bool = false) throws {
        let (s, e) = (scaling, encoding)
        (scaling, encoding) = (nil, nil)
        if cancel {
            s?.cancel()
            e?.cancel()
            return
        }
        do { try s?.close() } catch {
            e?.cancel()
            throw error
        }
        try e?.close()
    }

    /// One scaled frame into the cache (a first pass) and the encoder.
    private func encode(_ out: UnsafeMutablePointer<AVFrame>, _ record: FrameCache.Record, _ enc: StreamEncoder) throws {
        durations[record.pts] = record.duration
        recorder?.append(record, planes: Self.pointers(out), strides: Self.strides(out))
        try enc.encode(out, sink: write(enc.codec.pointee.time_base))
        framesEncoded += 1
    }

    /// The first pass's frames up to `seconds`, encoded as they were made (nothing decoded or scaled).
    func replayFrames(upTo seconds: Double) throws {
        guard let cache = replay, let enc = encoder, let out = frame else { return }
        while let t = cache.peekSeconds(), t <= seconds {
            try ready(out)
            guard let r = try cache.next(into: Self.pointers(out), strides: Self.strides(out)) else { return }
            out.pointee.pts = r.pts
            out.pointee.color_primaries = AVColorPrimaries(rawValue: UInt32(bitPattern: r.primaries))
            out.pointee.color_trc = AVColorTransferCharacteristic(rawValue: UInt32(bitPattern: r.transfer))
            out.pointee.colorspace = AVColorSpace(rawValue: UInt32(bitPattern: r.colorspace))
            out.pointee.color_range = AVCOL_RANGE_MPEG
            durations[r.pts] = r.duration
            lastSeconds = r.seconds
            try enc.encode(out, sink: write(enc.codec.pointee.time_base))
            framesEncoded += 1
        }
    }

    private func write(_ tb: AVRational) -> (UnsafeMutablePointer<AVPacket>) throws -> Void {
        { [self] p in
            if p.pointee.duration <= 0, let d = durations.removeValue(forKey: p.pointee.pts) { p.pointee.duration = d }
            if let sink, let output { try sink(p, output, tb) }
        }
    }

    /// A scaler (bicubic, as ffmpeg's scale filter) from a decoded frame's format to YUV 4:2:0 at the output size.
    private func scalerFor(width: Int32, height: Int32, format: Int32) throws -> Scaler {
        if let s = scaler, scalerKey == (width, height, format) { return s }
        scaler = nil
        let s = try Scaler(plain: ff.util, Int(width), Int(height), AVPixelFormat(rawValue: format), size.width, size.height,
                           AV_PIX_FMT_YUV420P, flags: SWS_BICUBIC)
        (scaler, scalerKey) = (s, (width, height, format))
        return s
    }

    /// A writable YUV 4:2:0 frame at the output size (a new buffer when the encoder still holds the last).
    private func ready(_ f: UnsafeMutablePointer<AVFrame>) throws {
        let rc: Int32
        if f.pointee.buf.0 == nil {
            (f.pointee.format, f.pointee.width, f.pointee.height) = (AV_PIX_FMT_YUV420P.rawValue, Int32(size.width), Int32(size.height))
            rc = ff.util.av_frame_get_buffer(f, 0)
        } else {
            rc = ff.util.av_frame_make_writable(f)
        }
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "cannot allocate a frame", rc) }
    }

    static func pointers(_ f: UnsafeMutablePointer<AVFrame>) -> [UnsafeMutablePointer<UInt8>?] {
        let d = f.pointee.data
        return [d.0, d.1, d.2, d.3]
    }

    static func strides(_ f: UnsafeMutablePointer<AVFrame>) -> [Int32] {
        let l = f.pointee.linesize
        return [l.0, l.1, l.2, l.3]
    }

    /// Opens the encoder at the plan's size for the stream's shape (sample aspect ratio applied);
    /// frames of another size later on are scaled to it.
    func open() throws -> StreamEncoder {
        let par = stream.pointee.codecpar.pointee
        guard par.width > 0, par.height > 0 else { throw MediaPrepError(.invalidDimensions, "the video stream has no size") }
        var sar = par.sample_aspect_ratio
        if sar.num <= 0 || sar.den <= 0 { sar = stream.pointee.sample_aspect_ratio }
        size = Self.outputSize(width: Int(par.width), height: Int(par.height), sar: sar, maxLongSide: plan.maxLongSide)
        Trace.note("video plan \(size.width)x\(size.height) pass \(pass) rate \(rate) crf \(plan.crf) maxrate \(plan.maxRate ?? 0) fps<=\(plan.maxFrameRate) preset \(plan.preset) audio \(plan.audioBitRate) \(plan.audioChannels)ch \(plan.audioSampleRate) Hz")
        guard let x264 = ff.media.avcodec_find_encoder_by_name("libx264") else {
            throw MediaPrepError(.codecUnavailable, "this FFmpeg has no libx264 encoder")
        }
        var fps = stream.pointee.avg_frame_rate
        if fps.num <= 0 || fps.den <= 0 { fps = stream.pointee.r_frame_rate }
        if fps.num <= 0 || fps.den <= 0 || av_q2d(fps) > 1000 { fps = AVRational(num: 25, den: 1) }
        if av_q2d(fps) > plan.maxFrameRate { fps = AVRational(num: Int32(plan.maxFrameRate.rounded()), den: 1) }
        nominalDuration = max(1, Int64((1 / av_q2d(fps) / av_q2d(stream.pointee.time_base)).rounded()))
        let (w, h, tb, plan, pass, stats, rate) = (size.width, size.height, stream.pointee.time_base, plan, pass, stats, rate)
        let util = ff.util
        let hdr = HDRToSDR.transfer(par.color_trc) != nil
        func option(_ c: UnsafeMutablePointer<AVCodecContext>, _ name: String, _ value: String) throws {
            let rc = util.av_opt_set(c.pointee.priv_data, name, value, 0)
            guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "libx264 refused \(name)=\(value)", rc) }
        }
        let enc = try StreamEncoder(ff: ff, encoder: x264, name: "H.264") { c in
            (c.pointee.width, c.pointee.height, c.pointee.pix_fmt) = (Int32(w), Int32(h), AV_PIX_FMT_YUV420P)
            (c.pointee.time_base, c.pointee.framerate, c.pointee.sample_aspect_ratio) = (tb, fps, AVRational(num: 1, den: 1))
            // A first pass's headers go in its first frame, as in `ffmpeg -pass 1 -f null`: its rate control
            // then counts them as ffmpeg's does, and the second pass writes ffmpeg's bytes for the same plan
            // (60 s 1080p clip: 743,939 bytes at SSIM 0.933813; with the headers apart 741,368 at 0.933197).
            if pass != 1 { c.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
            c.pointee.thread_count = 0
            if hdr {  // mapped to SDR: say so, or players would read BT.709 numbers as HLG/PQ
                (c.pointee.color_primaries, c.pointee.color_trc, c.pointee.colorspace) = (AVCOL_PRI_BT709, AVCOL_TRC_BT709, AVCOL_SPC_BT709)
                c.pointee.color_range = AVCOL_RANGE_MPEG
            }
            try option(c, "preset", plan.preset)
            if rate > 0 {
                // Average bit rate, two-pass with x264's statistics in `stats` when pass is 1 or 2.
                c.pointee.bit_rate = Int64(rate)
                if pass == 1 { c.pointee.flags |= AV_CODEC_FLAG_PASS1 }
                if pass == 2 { c.pointee.flags |= AV_CODEC_FLAG_PASS2 }
                if pass != 0, let stats { try option(c, "stats", stats) }
            } else {
                let rc = util.av_opt_set_double(c.pointee.priv_data, "crf", Double(plan.crf), 0)
                guard rc >= 0 else { throw MediaPrepError.ffmpeg(.encodeFailed, "libx264 refused crf \(plan.crf)", rc) }
                if let cap = plan.maxRate {
                    c.pointee.rc_max_rate = Int64(cap)
                    c.pointee.rc_buffer_size = Int32(clamping: Int(Double(cap) * plan.bufferSeconds))
                }
            }
        }
        encoder = enc
        return enc
    }

    /// The displayed shape, capped at `maxLongSide`, each side even (YUV 4:2:0), never upscaled.
    static func outputSize(width: Int, height: Int, sar: AVRational, maxLongSide: Int) -> (width: Int, height: Int) {
        var w = Double(width), h = Double(height)
        if sar.num > 0, sar.den > 0, sar.num != sar.den { w = w * Double(sar.num) / Double(sar.den) }
        let scale = min(1, Double(maxLongSide) / max(w, h))
        func even(_ v: Double) -> Int { max(2, Int((v * scale / 2).rounded()) * 2) }
        return (even(w), even(h))
    }

    /// After the decoder's last frame: the one the deinterlacer holds back.
    func endOfFrames() throws {
        try deinterlacer?.finish(emit: add)
    }

    func finish() throws {
        guard let enc = encoder else { return }
        try enc.encode(nil, sink: write(enc.codec.pointee.time_base))
    }
}

/// The audio half: decoded, resampled to the plan's layout and rate, AAC-encoded.
private final class AudioLane {
    let decoder: FrameDecoder
    let encoder: StreamEncoder
    let resampler: AudioResampler
    var output: UnsafeMutablePointer<AVStream>?
    var sink: ((UnsafeMutablePointer<AVPacket>, UnsafeMutablePointer<AVStream>, AVRational) throws -> Void)?

    init(plan: VideoEncodePlan, decoder: FrameDecoder, ff: FFmpeg) throws {
        self.decoder = decoder
        let channels = Int32(max(1, plan.audioChannels)), rate = Int32(plan.audioSampleRate)
        encoder = try StreamEncoder.aac(ff: ff, sampleRate: rate, channels: channels, bitRate: Int32(plan.audioBitRate))
        resampler = try AudioResampler(ff: ff, sampleRate: rate, channels: channels, frameSize: encoder.frameSize)
    }

    /// Where the decoded sound has reached, in seconds from the stream start.
    private(set) var lastSeconds: Double?
    /// The part sent: a frame of sound that ends before it or starts after it is left out (the cut
    /// within a frame of sound, 21 ms of AAC).
    var trim: Range<Double>?

    func drain() throws {
        while let f = try decoder.receive() {
            let t = decoder.seconds(of: f)
            if let t { lastSeconds = t + Double(f.pointee.nb_samples) / Double(max(1, f.pointee.sample_rate)) }
            if let trim, let t, let end = lastSeconds, end <= trim.lowerBound || t >= trim.upperBound { continue }
            try resampler.add(f, emit: encode)
        }
    }

    private func encode(_ f: UnsafeMutablePointer<AVFrame>?) throws {
        let tb = encoder.codec.pointee.time_base
        try encoder.encode(f) { [sink, output] p in if let sink, let output { try sink(p, output, tb) } }
    }

    func finish() throws {
        try resampler.finish(emit: encode)
        try encode(nil)
    }
}

/// Where a two-pass encode's first pass leaves its frames for the passes after it.
private final class CacheSlot {
    var cache: FrameCache?
}

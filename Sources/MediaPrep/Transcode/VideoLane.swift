import CFFmpeg
import FoundationEssentials
import Glibc

/// The video half of a pass: frames scaled to the plan's size and encoded with libx264.
final class VideoLane {
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
    var encoder: StreamEncoder?
    private(set) var framesEncoded = 0
    private var scalers: VideoFrameScaler
    private var frame: UnsafeMutablePointer<AVFrame>?
    var size = (width: 0, height: 0)
    private var rateCap: FrameRateCap
    /// HDR sources: frames mapped to SDR BT.709 before scaling, and the output tagged BT.709.
    private var mapper: HDRToSDR?
    /// Interlaced sources, from their first interlaced frame on.
    private(set) var deinterlacer: Deinterlacer?
    private(set) var lastSeconds: Double?
    /// Source frame durations by output timestamp, until their packet comes out of the encoder.
    private var durations: [Int64: Int64] = [:]
    var nominalDuration: Int64 = 0
    /// A first pass's frames kept for the passes after it; a later pass's frames read from there.
    var recorder: FrameCache?
    var replay: FrameCache?
    /// A constant-quality pass under a budget's cap: stopped when it rides the cap (two passes instead).
    var capWatch: CapWatch?
    /// Frames decoded here, scaled on a thread of their own and encoded on a third, in every pass that
    /// decodes (one replaying a first pass's frames encodes them in turn). Nil: all in turn.
    /// 60 s 1080p clip to 1,047,552 bytes, first pass: 6.6 s all in turn (two cores 80 % busy), 6.5 s
    /// encoding apart (87 %: the decoder's threads waited while this one scaled), 5.0 s in three (97 %).
    var scaling: EncodePipeline<Decoded>?
    var encoding: EncodePipeline<Scaled>?
    var width: Int { size.width }
    var height: Int { size.height }

    init(plan: VideoEncodePlan, stream: UnsafeMutablePointer<AVStream>, decoder: FrameDecoder,
         ff: FFmpeg, pass: Int32, stats: String?, rate: Int) throws {
        (self.plan, self.stream, self.decoder, self.ff, self.pass, self.stats, self.rate) = (plan, stream, decoder, ff, pass, stats, rate)
        (scalers, rateCap) = (VideoFrameScaler(util: ff.util), FrameRateCap(maxFrameRate: plan.maxFrameRate))
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
        guard rateCap.keeps(t) else { return }
        if let scaling {
            // The decoded frame goes to the scaling thread: this one only feeds the decoder.
            guard let held = FrameReference(decoded, ff) else { throw MediaPrepError(.encodeFailed, "cannot allocate a frame") }
            try scaling.push(Decoded(frame: held, seconds: t))
            return
        }
        if let encoding {
            // Too large to hold another: scaled here, encoded on the encoding thread.
            try encoding.push(try scaled(decoded, seconds: t))
            return
        }
        guard let enc = encoder, let out = frame else { return }
        try encode(out, try scale(decoded, seconds: t, into: out), enc)
    }

    /// A decoded frame (a reference to the decoder's) on its way to be scaled.
    struct Decoded {
        let frame: FrameReference
        let seconds: Double
    }

    /// A scaled frame on its way to the encoder, with what the cache keeps of it.
    struct Scaled {
        let frame: UnsafeMutablePointer<AVFrame>
        let record: FrameCache.Record
    }

    /// One kept frame, mapped to SDR if need be, scaled into `out`; returns what the cache keeps of it.
    func scale(_ decoded: UnsafeMutablePointer<AVFrame>, seconds t: Double, into out: UnsafeMutablePointer<AVFrame>) throws -> FrameCache.Record {
        var f = decoded
        if let transfer = HDRToSDR.transfer(of: decoded) {
            if mapper == nil { mapper = try HDRToSDR(util: ff.util) }
            if let m = mapper { f = try m.map(decoded, transfer, size: size) }
        }
        try ready(out)
        let planes = Scaler.Planes(pointers: Self.pointers(out), strides: Self.strides(out))
        if FrameConverter.hasAlphaChannel(f) {
            // GIF and other frames with transparency: shown on white, as the chat shows a transparent image.
            let rgb = AlphaOps.flattenOnWhite(try FrameConverter.convert(f, layout: .rgba))
            let sws = try scalers.scaler(width: Int32(rgb.width), height: Int32(rgb.height), format: AV_PIX_FMT_RGB24.rawValue, to: size)
            try rgb.bytes.withUnsafeBufferPointer {
                try sws.scale(Scaler.packed(UnsafeMutablePointer(mutating: $0.baseAddress), stride: rgb.width * 3), y: 0, h: rgb.height, into: planes)
            }
        } else {
            let sws = try scalers.scaler(width: f.pointee.width, height: f.pointee.height, format: f.pointee.format, to: size)
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

    /// One scaled frame into the cache (a first pass) and the encoder.
    func encode(_ out: UnsafeMutablePointer<AVFrame>, _ record: FrameCache.Record, _ enc: StreamEncoder) throws {
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
            if capWatch != nil { try capWatch?.add(Int(p.pointee.size), endingAt: Double(p.pointee.pts + p.pointee.duration) * av_q2d(tb)) }
            if let sink, let output { try sink(p, output, tb) }
        }
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

    /// After the decoder's last frame: the one the deinterlacer holds back.
    func endOfFrames() throws {
        try deinterlacer?.finish(emit: add)
    }

    func finish() throws {
        guard let enc = encoder else { return }
        try enc.encode(nil, sink: write(enc.codec.pointee.time_base))
    }
}

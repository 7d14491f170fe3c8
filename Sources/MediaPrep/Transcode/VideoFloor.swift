import CFFmpeg

/// What a transcode of a video cannot go below: its frames decoded and scaled to the output's size,
/// each once, nothing encoded. `bench --video` times it beside the budgeted transcode, as `bench`
/// times the decode floor beside images.
package enum VideoFloor {
    /// Decodes `source`'s video and scales each frame a transcode keeps at `maxFrameRate` to
    /// `width`×`height` (YUV 4:2:0, bicubic, on a thread of its own, as `VideoTranscoder` does); the
    /// frames scaled. 60 s 1080p clip: 4.0–4.6 s in turn, as the ffmpeg CLI does it.
    package static func run(source: String, width: Int, height: Int, maxFrameRate: Double, threads: Int? = nil) throws -> Int {
        let input = try MediaInput(path: source)
        let ff = input.ff
        guard let stream = input.bestStream(AVMEDIA_TYPE_VIDEO) else { throw MediaPrepError(.noVideoStream, "no video stream") }
        let par = stream.pointee.codecpar.pointee
        let threads = threads ?? VideoTranscoder.decodeThreads(cores: 2, sourcePixels: Int(par.width) * Int(par.height))
        let decoder = try FrameDecoder(input: input, stream: stream, threads: threads)
        var out = ff.util.av_frame_alloc()
        defer { ff.util.av_frame_free(&out) }
        guard let frame = out else { throw MediaPrepError(.outOfMemory, "cannot allocate a frame") }
        (frame.pointee.format, frame.pointee.width, frame.pointee.height) = (AV_PIX_FMT_YUV420P.rawValue, Int32(width), Int32(height))
        let rc = ff.util.av_frame_get_buffer(frame, 0)
        guard rc >= 0 else { throw MediaPrepError.ffmpeg(.outOfMemory, "cannot allocate a frame", rc) }
        let into = Scaler.Planes(pointers: [frame.pointee.data.0, frame.pointee.data.1, frame.pointee.data.2, nil],
                                 strides: [frame.pointee.linesize.0, frame.pointee.linesize.1, frame.pointee.linesize.2, 0])
        var scalers = VideoFrameScaler(util: ff.util)
        let scaled = Locked(0)
        var rateCap = FrameRateCap(maxFrameRate: maxFrameRate)
        func scale(_ f: UnsafeMutablePointer<AVFrame>) throws {
            let d = f.pointee.data, l = f.pointee.linesize
            try scalers.scaler(width: f.pointee.width, height: f.pointee.height, format: f.pointee.format, to: (width, height))
                .scale(Scaler.Planes(pointers: [d.0, d.1, d.2, d.3], strides: [l.0, l.1, l.2, l.3]), y: 0, h: Int(f.pointee.height), into: into)
            scaled.withLock { $0 += 1 }
        }
        // Scaled on a thread of its own while the next are decoded, as the transcode does.
        let inHand = VideoLane.framesInHand(width: par.width, height: par.height)
        let scaling = inHand == 0 ? nil : EncodePipeline<FrameReference>(capacity: inHand, consume: { try scale($0.frame) },
                                                                         discard: { _ in })
        defer { scaling?.cancel() }
        func drain() throws {
            while let f = try decoder.receive() {
                if let t = decoder.seconds(of: f), !rateCap.keeps(t) { continue }
                guard let scaling else {
                    try scale(f)
                    continue
                }
                guard let held = FrameReference(f, ff) else { throw MediaPrepError(.outOfMemory, "cannot allocate a frame") }
                try scaling.push(held)
            }
        }
        var packet = ff.media.av_packet_alloc()
        defer { ff.media.av_packet_free(&packet) }
        guard let pkt = packet else { throw MediaPrepError(.outOfMemory, "cannot allocate a packet") }
        while true {
            input.deadline.reset(seconds: MediaInput.timeLimit)
            let r = ff.media.av_read_frame(input.context, pkt)
            if r == AVError.eof.rc { break }
            if r < 0 { throw MediaPrepError.ffmpeg(.truncated, "the input ends early or is damaged", r) }
            defer { ff.media.av_packet_unref(pkt) }
            guard pkt.pointee.stream_index == stream.pointee.index else { continue }
            _ = decoder.send(pkt)
            try drain()
        }
        _ = decoder.send(nil)
        try drain()
        try scaling?.close()
        return scaled.withLock { $0 }
    }
}

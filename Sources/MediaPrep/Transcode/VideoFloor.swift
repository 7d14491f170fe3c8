import CFFmpeg

/// What a transcode of a video cannot go below: its frames decoded and scaled to the output's size,
/// each once, nothing encoded. `bench --video` times it beside the budgeted transcode, as `bench`
/// times the decode floor beside images.
package enum VideoFloor {
    /// Decodes `source`'s video and scales each frame a transcode keeps at `maxFrameRate` to
    /// `width`×`height` (YUV 4:2:0, bicubic, as `VideoTranscoder` does); the frames scaled.
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
        var scaler: Scaler? = nil
        var key: (Int32, Int32, Int32) = (0, 0, -1)
        var scaled = 0
        var lastKept: Double? = nil
        func drain() throws {
            while let f = try decoder.receive() {
                // The transcode's frame rate cap: a frame a whole interval (less a quarter) after the last kept.
                if let t = decoder.seconds(of: f), let last = lastKept, t - last < 0.75 / maxFrameRate { continue }
                lastKept = decoder.seconds(of: f) ?? lastKept
                if scaler == nil || key != (f.pointee.width, f.pointee.height, f.pointee.format) {
                    scaler = try Scaler(plain: ff.util, Int(f.pointee.width), Int(f.pointee.height), AVPixelFormat(rawValue: f.pointee.format),
                                        width, height, AV_PIX_FMT_YUV420P, flags: SWS_BICUBIC)
                    key = (f.pointee.width, f.pointee.height, f.pointee.format)
                }
                let d = f.pointee.data, l = f.pointee.linesize
                try scaler?.scale(Scaler.Planes(pointers: [d.0, d.1, d.2, d.3], strides: [l.0, l.1, l.2, l.3]), y: 0, h: Int(f.pointee.height), into: into)
                scaled += 1
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
        return scaled
    }
}

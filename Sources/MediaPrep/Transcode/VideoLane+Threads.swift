import CFFmpeg

/// A pass's scaling and encoding threads (`EncodePipeline`s), started and stopped.
extension VideoLane {
    /// Decoded frames queued for the scaling thread: at most 64 MB of them (3 bytes a pixel, 10-bit
    /// 4:2:0), so 8 of 1080p, 2 of 4K; none past that, where the frames are scaled on the decoding
    /// thread (a 1 s 8K HEVC clip peaked at 924–956 MB with one in hand, 860–907 MB with none).
    static func framesInHand(width: Int32, height: Int32) -> Int {
        min(8, (64 << 20) / max(1, Int(width) * Int(height) * 3))
    }

    /// `decoded` scaled into a frame of its own, for the encoding thread.
    func scaled(_ decoded: UnsafeMutablePointer<AVFrame>, seconds: Double) throws -> Scaled {
        var fresh = ff.util.av_frame_alloc()
        guard let out = fresh else { throw MediaPrepError(.encodeFailed, "cannot allocate a frame") }
        do { return Scaled(frame: out, record: try scale(decoded, seconds: seconds, into: out)) } catch {
            ff.util.av_frame_free(&fresh)
            throw error
        }
    }

    /// Starts both (the encoding thread alone when the frames are too large to hold another);
    /// when a thread cannot start, the pass runs in turn.
    func startPipeline() {
        guard encoder != nil else { return }
        let util = ff.util
        func free(_ f: UnsafeMutablePointer<AVFrame>) {
            var frame: UnsafeMutablePointer<AVFrame>? = f
            util.av_frame_free(&frame)
        }
        // The encoder is not captured: it closes (and x264 writes its statistics) when this lane goes.
        guard let encoding = EncodePipeline<Scaled>(capacity: 8, consume: { [unowned self] item in
            defer { free(item.frame) }
            guard let enc = encoder else { return }
            try encode(item.frame, item.record, enc)
        }, discard: { free($0.frame) }) else { return }
        let par = stream.pointee.codecpar.pointee
        let inHand = Self.framesInHand(width: par.width, height: par.height)
        guard inHand > 0 else {
            self.encoding = encoding
            return
        }
        guard let scaling = EncodePipeline<Decoded>(capacity: inHand, consume: { [unowned self] item in
            try encoding.push(try scaled(item.frame.frame, seconds: item.seconds))
        }, discard: { _ in }) else {
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
}

import CFFmpeg

/// A pass's scaling and encoding threads (`EncodePipeline`s), started and stopped.
extension VideoLane {
    /// Starts both; when a thread cannot start, the pass runs in turn.
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
}

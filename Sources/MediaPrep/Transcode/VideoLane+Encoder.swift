import CFFmpeg

/// libx264 opened with the plan's settings, and the output size they scale to.
extension VideoLane {
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
}

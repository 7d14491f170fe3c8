import CFFmpeg

/// A video's representative frame, upright, as pixels and as the time it was taken from.
package struct VideoThumbnail: Sendable {
    package let pixels: PixelBuffer
    package let seconds: Double
    /// Clockwise degrees applied from the display matrix.
    package let rotation: Int
    package let framesDecoded: Int
    /// The frame was HDR, mapped to SDR BT.709 (its preview keeps full chroma, as converted stills do).
    package var mappedFromHDR = false
}

/// Picks and decodes a thumbnail frame in-process (no ffmpeg CLI).
///
/// The rule: SimpleX takes the frame at t = 0, but many videos open on black. The first frame
/// that is neither near-black nor flat within the first 5 s (Element X's 5 s rule as the horizon)
/// wins: keyframes first (one decode each, nothing before them needed: a cut from black is a
/// keyframe in every encoder's scene detection), then, if none passes, a frame every half second
/// decoded in order. Failing that, we seek to 10 %, 25 % and 50 % of the duration
/// (ffmpegthumbnailer seeks to 10 %). At most `maxDecodedFrames` frames are decoded in all; if
/// nothing passes, the most detailed frame seen is used.
package struct VideoThumbnailer: Sendable {
    package var maxSide: Int
    package var maxDecodedFrames = 400
    package var scanSeconds = 5.0
    package var checkEvery = 0.5

    package init(maxSide: Int = 1280) { self.maxSide = maxSide }

    package func thumbnail(path: String) throws -> VideoThumbnail {
        try thumbnail(input: try MediaInput(path: path), path: path)
    }

    /// From a container the probe already opened (it is read on from where the probe left it).
    func thumbnail(input: MediaInput, path: String) throws -> VideoThumbnail {
        guard let stream = input.bestStream(AVMEDIA_TYPE_VIDEO) else {
            throw MediaPrepError(.noVideoStream, "\(path) has no video stream")
        }
        // Slice threads for HD and larger (4K HEVC: 131 -> 75 ms a frame); frame threads would
        // delay the first frame, and small frames decode faster than threads start.
        let par = stream.pointee.codecpar.pointee
        let decoder = try FrameDecoder(input: input, stream: stream, threads: Int(par.width) * Int(par.height) >= 1280 * 720 ? 2 : 1,
                                       sliceThreadsOnly: true)
        let rotation = VideoRotation.clockwiseDegrees(stream: stream)
        let upright = VideoRotation.orientation(clockwise: rotation)
        let duration = input.durationSeconds(stream: stream) ?? 0
        var decoded = 0
        // The most detailed frame so far, kept as a reference (not converted: most are passed over).
        var best: (stats: FrameStats, frame: FrameReference, t: Double)? = nil
        var mapper: HDRToSDR? = nil

        func take(_ decodedFrame: UnsafeMutablePointer<AVFrame>, at t: Double) throws -> VideoThumbnail? {
            // An HDR frame is judged and shown as SDR BT.709, as every viewer of the preview sees it.
            var f = decodedFrame
            if let transfer = HDRToSDR.transfer(of: decodedFrame) {
                if mapper == nil { mapper = try HDRToSDR(util: input.ff.util) }
                // At the thumbnail's size (zscale shrinks first, as for a still shrunk on load); an
                // interlaced frame at its own, so that one field can still be taken from it.
                let size = cff_frame_interlaced(decodedFrame) != 0 ? nil : shown(decodedFrame)
                if let m = mapper { f = try Trace.time("HDR to SDR") { try m.map(decodedFrame, transfer, size: size) } }
            }
            let stats = try Trace.time("frame stats") { try FrameStats.measure(f) }
            if stats.isRepresentative {
                let pixels = try Trace.time("convert frame") { try convert(f, upright, input.ff) }
                return VideoThumbnail(pixels: pixels, seconds: t, rotation: rotation, framesDecoded: decoded, mappedFromHDR: mapper != nil)
            }
            if stats.interest > (best?.stats.interest ?? -.infinity), let ref = FrameReference(f, input.ff) { best = (stats, ref, t) }
            return nil
        }

        // Phase 1: keyframes of the opening seconds.
        decoder.keyframesOnly(true)
        var keyframes = 0
        while decoded < maxDecodedFrames, let f = try Trace.time("decode keyframe", { try decoder.next() }) {
            decoded += 1
            keyframes += 1
            let t = decoder.seconds(of: f) ?? 0
            if t > scanSeconds && keyframes > 1 { break }
            if let found = try take(f, at: t) { return found }
        }
        decoder.keyframesOnly(false)
        // Phase 2: the opening seconds in order, a frame every half second (long GOPs).
        decoder.seek(toSeconds: 0)
        var nextCheck = 0.0
        while decoded < maxDecodedFrames, let f = try Trace.time("decode frame", { try decoder.next() }) {
            decoded += 1
            let t = decoder.seconds(of: f) ?? Double(decoded - 1) / 25
            if t + 1e-6 < nextCheck { continue }
            if let found = try take(f, at: t) { return found }
            nextCheck = t + checkEvery
            if t >= scanSeconds { break }
        }
        // Phase 3: further in, by seeking.
        if duration > scanSeconds {
            for fraction in [0.1, 0.25, 0.5] where duration * fraction > scanSeconds {
                let target = duration * fraction
                decoder.seek(toSeconds: target)
                while decoded < maxDecodedFrames, let f = try decoder.next() {
                    decoded += 1
                    let t = decoder.seconds(of: f) ?? target
                    if t + 1e-6 < target { continue }  // decode up to the target, not just its keyframe
                    if let found = try take(f, at: t) { return found }
                    break
                }
            }
        }
        guard let b = best else { throw MediaPrepError(.corrupt, "no frame of \(path) could be decoded") }
        let pixels = try Trace.time("convert frame") { try convert(b.frame.frame, upright, input.ff) }
        return VideoThumbnail(pixels: pixels, seconds: b.t, rotation: rotation, framesDecoded: decoded, mappedFromHDR: mapper != nil)
    }

    /// The thumbnail's size for `f` (sample aspect ratio honoured), or nil when it is the frame's own.
    private func shown(_ f: UnsafeMutablePointer<AVFrame>) -> (width: Int, height: Int)? {
        let target = thumbnailSize(f)
        return target == (Int(f.pointee.width), Int(f.pointee.height)) ? nil : target
    }

    /// The frame's displayed shape (sample aspect ratio honoured), fitted within `maxSide`.
    private func thumbnailSize(_ f: UnsafeMutablePointer<AVFrame>) -> (width: Int, height: Int) {
        var w = Int(f.pointee.width)
        let sar = f.pointee.sample_aspect_ratio
        if sar.num > 0, sar.den > 0, sar.num != sar.den { w = max(1, w * Int(sar.num) / Int(sar.den)) }
        return Resizer.fit(width: w, height: Int(f.pointee.height), maxSide: maxSide)
    }

    /// Scales with swscale (sample aspect ratio honoured) and turns the frame upright.
    private func convert(_ f: UnsafeMutablePointer<AVFrame>, _ orientation: ExifOrientation, _ ff: FFmpeg) throws -> PixelBuffer {
        let (w, h) = thumbnailSize(f)
        // An interlaced frame's two fields were taken 1/50 s apart: one field alone (every other row,
        // chroma too), scaled to the frame's shape, shows no comb where anything moves.
        var field: FrameReference? = nil
        if cff_frame_interlaced(f) != 0, f.pointee.height >= 4, let r = FrameReference(f, ff) {
            let v = r.frame
            v.pointee.height /= 2
            (v.pointee.linesize.0, v.pointee.linesize.1, v.pointee.linesize.2, v.pointee.linesize.3) =
                (v.pointee.linesize.0 * 2, v.pointee.linesize.1 * 2, v.pointee.linesize.2 * 2, v.pointee.linesize.3 * 2)
            field = r
        }
        let v = field?.frame ?? f
        // Transparent video (WebM with alpha): shown on white, as the chat shows a transparent image.
        let rgb = FrameConverter.hasAlphaChannel(v)
            ? AlphaOps.flattenOnWhite(try FrameConverter.convert(v, layout: .rgba, width: w, height: h))
            : try FrameConverter.convert(v, layout: .rgb, width: w, height: h)
        return Orienter.apply(orientation, to: rgb)
    }
}

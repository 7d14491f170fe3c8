import CFFmpeg

/// A video's representative frame, upright, as pixels and as the time it was taken from.
public struct VideoThumbnail: Sendable {
    public let pixels: PixelBuffer
    public let seconds: Double
    /// Clockwise degrees applied from the display matrix.
    public let rotation: Int
    public let framesDecoded: Int
}

/// Picks and decodes a thumbnail frame in-process (no ffmpeg CLI).
///
/// The rule: SimpleX takes the frame at t = 0, but many videos open on black. We decode from
/// the start and check a frame every half second for the first 5 s (Element X's 5 s rule as the
/// horizon); the first that is neither near-black nor flat wins. Failing that, we seek to 10 %,
/// 25 % and 50 % of the duration (ffmpegthumbnailer seeks to 10 %). At most `maxDecodedFrames`
/// frames are decoded in all; if nothing passes, the most detailed frame seen is used.
public struct VideoThumbnailer: Sendable {
    public var maxSide: Int
    public var maxDecodedFrames = 400
    public var scanSeconds = 5.0
    public var checkEvery = 0.5

    public init(maxSide: Int = 1280) { self.maxSide = maxSide }

    public func thumbnail(path: String) throws -> VideoThumbnail {
        try thumbnail(input: try MediaInput(path: path), path: path)
    }

    /// From a container the probe already opened (it is read on from where the probe left it).
    func thumbnail(input: MediaInput, path: String) throws -> VideoThumbnail {
        guard let stream = input.bestStream(AVMEDIA_TYPE_VIDEO) else {
            throw MediaPrepError(.noVideoStream, "\(path) has no video stream")
        }
        let decoder = try FrameDecoder(input: input, stream: stream)
        let rotation = VideoRotation.clockwiseDegrees(stream: stream)
        let upright = VideoRotation.orientation(clockwise: rotation)
        let duration = input.durationSeconds(stream: stream) ?? 0
        var decoded = 0
        var best: (stats: FrameStats, pixels: PixelBuffer, t: Double)? = nil

        func take(_ f: UnsafeMutablePointer<AVFrame>, at t: Double) throws -> VideoThumbnail? {
            let stats = try Trace.time("frame stats") { try FrameStats.measure(f) }
            if stats.isRepresentative || stats.interest > (best?.stats.interest ?? -.infinity) {
                best = (stats, try Trace.time("convert frame") { try convert(f, upright) }, t)
            }
            if stats.isRepresentative, let b = best {
                return VideoThumbnail(pixels: b.pixels, seconds: t, rotation: rotation, framesDecoded: decoded)
            }
            return nil
        }

        // Phase 1: the opening seconds, sequentially.
        var nextCheck = 0.0
        while decoded < maxDecodedFrames, let f = try Trace.time("decode frame", { try decoder.next() }) {
            decoded += 1
            let t = decoder.seconds(of: f) ?? Double(decoded - 1) / 25
            if t + 1e-6 < nextCheck { continue }
            if let found = try take(f, at: t) { return found }
            nextCheck = t + checkEvery
            if t >= scanSeconds { break }
        }
        // Phase 2: further in, by seeking.
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
        return VideoThumbnail(pixels: b.pixels, seconds: b.t, rotation: rotation, framesDecoded: decoded)
    }

    /// Scales with swscale (sample aspect ratio honoured) and turns the frame upright.
    private func convert(_ f: UnsafeMutablePointer<AVFrame>, _ orientation: ExifOrientation) throws -> PixelBuffer {
        var w = Int(f.pointee.width), h = Int(f.pointee.height)
        let sar = f.pointee.sample_aspect_ratio
        if sar.num > 0, sar.den > 0, sar.num != sar.den { w = max(1, w * Int(sar.num) / Int(sar.den)) }
        let target = Resizer.fit(width: w, height: h, maxSide: maxSide)
        (w, h) = target
        let rgb = try FrameConverter.convert(f, layout: .rgb, width: w, height: h)
        return Orienter.apply(orientation, to: rgb)
    }
}

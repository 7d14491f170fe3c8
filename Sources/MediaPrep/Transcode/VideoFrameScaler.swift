import CFFmpeg

/// A video's frames to YUV 4:2:0 at the output's size, bicubic as ffmpeg's scale filter: one scaler,
/// made again only when the decoded frames' size or format changes mid-stream. The transcode and its
/// floor both scale through it, so `bench --video` times the same work.
struct VideoFrameScaler {
    let util: cff_util
    private var scaler: Scaler?
    private var key: [Int32] = []

    init(util: cff_util) { self.util = util }

    /// The scaler from frames of `width`×`height` in `format` to `output`.
    mutating func scaler(width: Int32, height: Int32, format: Int32, to output: (width: Int, height: Int)) throws -> Scaler {
        let k = [width, height, format, Int32(output.width), Int32(output.height)]
        if let s = scaler, key == k { return s }
        scaler = nil
        let s = try Scaler(plain: util, Int(width), Int(height), AVPixelFormat(rawValue: format), output.width, output.height,
                           AV_PIX_FMT_YUV420P, flags: SWS_BICUBIC)
        (scaler, key) = (s, k)
        return s
    }
}

/// Frames faster than the plan's rate dropped: a frame is kept a whole interval, less a quarter for
/// jitter, after the last one kept; in the transcode and its floor alike.
struct FrameRateCap {
    let maxFrameRate: Double
    private var lastKept: Double?

    init(maxFrameRate: Double) { self.maxFrameRate = maxFrameRate }

    /// Whether the frame at `seconds` is kept (and so the one the next is measured from).
    mutating func keeps(_ seconds: Double) -> Bool {
        let interval = 1 / maxFrameRate
        if let last = lastKept, seconds - last < interval * 0.75 { return false }
        lastKept = seconds
        return true
    }
}

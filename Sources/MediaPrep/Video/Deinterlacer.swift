import CFFmpeg

/// Interlaced video (a camcorder's 1080i AVCHD, a DVD's 480i) made progressive before it is
/// scaled and encoded: libavfilter's bwdif, one frame out per frame in (`send_frame`), only frames
/// flagged interlaced touched. Without it, every moving edge of a transcode shows the fields' comb.
/// bwdif reads the next frame too, so a frame comes out one frame late, and the last at `finish`.
final class Deinterlacer {
    private let graph: FilterGraph
    private let util: cff_util
    private let output: UnsafeMutablePointer<AVFrame>

    /// Set up for frames shaped as `first`, their timestamps in `timeBase` (kept as they are).
    init(like first: UnsafeMutablePointer<AVFrame>, timeBase: AVRational, util: cff_util) throws {
        let tb = timeBase.num > 0 && timeBase.den > 0 ? timeBase : AVRational(num: 1, den: 90_000)
        let args = FilterGraph.bufferArguments(like: first, timeBase: tb)
        do {
            graph = try FilterGraph("[in]bwdif=mode=send_frame:parity=auto:deint=interlaced[out]", inputs: [("in", args)])
        } catch let e as MediaPrepError where e.code == .codecUnavailable {
            throw MediaPrepError(.codecUnavailable, "this FFmpeg cannot deinterlace (bwdif): \(e.message)")
        }
        guard let out = util.av_frame_alloc() else { throw MediaPrepError(.encodeFailed, "out of memory") }
        (self.util, output) = (util, out)
    }

    deinit {
        var o: UnsafeMutablePointer<AVFrame>? = output
        util.av_frame_free(&o)
    }

    /// Hands in `frame` (referenced: it stays the caller's) and gives `emit` each progressive frame
    /// now ready, valid only during the call.
    func add(_ frame: UnsafeMutablePointer<AVFrame>, emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        try graph.push(frame, keepingReference: true)
        while try graph.pull(into: output) { try emit(output) }
    }

    /// The frame held back for its successor.
    func finish(emit: (UnsafeMutablePointer<AVFrame>) throws -> Void) throws {
        try graph.push(nil)
        while try graph.pull(into: output) { try emit(output) }
    }
}

import CFFmpeg

/// A decoded frame kept past the decoder's next call (a new reference to its buffers, no copy).
final class FrameReference {
    let frame: UnsafeMutablePointer<AVFrame>
    private let ff: FFmpeg

    init?(_ f: UnsafeMutablePointer<AVFrame>, _ ff: FFmpeg) {
        guard let copy = ff.util.av_frame_alloc() else { return nil }
        guard ff.util.av_frame_ref(copy, f) >= 0 else {
            var c: UnsafeMutablePointer<AVFrame>? = copy
            ff.util.av_frame_free(&c)
            return nil
        }
        (frame, self.ff) = (copy, ff)
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        ff.util.av_frame_free(&f)
    }
}

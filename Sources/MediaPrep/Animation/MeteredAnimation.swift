/// An animation whose every pass is metered as its frames are decoded: the canvas pixels of each
/// frame (at least `AnimationCost.minimumFrameCost`) against the most an animation may take, and the
/// input's time limit and cancellation between frames. The header's estimate admitted it; this is
/// the backstop when the header was wrong (more frames than it said) or the work is slower than
/// its pixels (a stall in a decoder), so no pass runs on unbounded.
final class MeteredAnimation: AnimationSource {
    private let inner: AnimationSource
    private let cancellation: CancellationFlag?
    private let maxPixels: Int

    init(_ inner: AnimationSource, cancellation: CancellationFlag?, maxPixels: Int = AnimationCost.maxDecodedFramePixels) {
        (self.inner, self.cancellation, self.maxPixels) = (inner, cancellation, maxPixels)
    }

    var width: Int { inner.width }
    var height: Int { inner.height }
    var plays: Int { inner.plays }

    func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
        var pixels = 0, frames = 0
        try inner.forEachFrame { frame, ms in
            frames += 1
            pixels += max(frame.width * frame.height, AnimationCost.minimumFrameCost)
            if pixels > maxPixels {
                throw MediaPrepError(.tooManyPixels, "the animation's \(frames) frames of \(inner.width)×\(inner.height) are past the \(maxPixels.formatted) frame pixels an animation may take to decode, more than its header said")
            }
            try cancellation?.check()
            try body(frame, ms)
        }
    }

    func firstFrame() throws -> PixelBuffer {
        try cancellation?.check()
        return try inner.firstFrame()
    }
}

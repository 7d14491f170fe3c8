/// An animation read frame by frame as whole canvases (disposal and blending done by its decoder),
/// so a long one is never held in memory at once; each pass reads it again from the start.
protocol AnimationSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// How many times it plays: 0 forever (WebP's and APNG's convention).
    var plays: Int { get }
    /// Calls `body` with each frame as an RGBA canvas and how long it shows, in milliseconds.
    func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws
    /// The first canvas, for the preview.
    func firstFrame() throws -> PixelBuffer
}

extension AnimationSource {
    /// The first canvas, from a pass stopped after it.
    func firstFrame() throws -> PixelBuffer {
        var first: PixelBuffer?
        do {
            try forEachFrame { frame, _ in first = frame; throw FirstFrameFound() }
        } catch is FirstFrameFound {}
        guard let first else { throw MediaPrepError(.truncated, "the animation holds no complete frame") }
        return first
    }
}

/// Ends a pass over the frames once the first has been seen.
private struct FirstFrameFound: Error {}

/// What the probe learns of an animation without decoding it: frame count and plays.
package struct AnimationInfo: Sendable, Equatable {
    package var frames: Int
    package var plays: Int
}

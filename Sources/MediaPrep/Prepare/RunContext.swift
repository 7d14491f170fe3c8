/// What a run shares with every input it prepares, in one value: when to stop, how long one input
/// may take, how many decoded pixels may be in flight, and where progress goes.
package struct RunContext: Sendable {
    /// Checked between stages and before an output is linked into place.
    package var cancellation: CancellationFlag?
    /// Seconds one picture or animation may take once its turn comes (decoding, the budget search,
    /// a GIF's tries), checked between stages and frames; nil: none. Videos and sound are bounded by
    /// FFmpeg's own read time limit and their duration.
    package var timeLimit: Double? = RunContext.defaultTimeLimit
    /// Measured: the slowest good animation tried (a 20 s 480×270 GIF of 500 frames) took 12 s.
    package static let defaultTimeLimit = 120.0
    /// Decoded pixels in flight across a batch; each input waits for its share before decoding.
    package var pixelBudget: PixelBudget?
    /// How far a long job (a transcode) is, 0…1, with the input's path.
    package var onProgress: (@Sendable (_ path: String, _ fraction: Double) -> Void)?

    package init(cancellation: CancellationFlag? = nil, pixelBudget: PixelBudget? = nil) {
        (self.cancellation, self.pixelBudget) = (cancellation, pixelBudget)
    }

    /// One input's share: its own clock, stopped with the run.
    func forInput() -> RunContext {
        var one = self
        one.cancellation = CancellationFlag(input: cancellation, timeLimit: timeLimit)
        return one
    }
}

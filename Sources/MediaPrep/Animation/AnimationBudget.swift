/// An animation made a GIF within a byte budget, giving up first what a chat shows least.
///
/// Measured on a 640×480 60-frame test pattern and a 480×360 50-frame Mandelbrot zoom (every pixel
/// changing, the worst case): GIF bytes follow the pixel count a little less than linearly (640→320 px:
/// ÷2.95 for ÷4 pixels) and the frame count almost linearly (every other frame: ×0.55, every third:
/// ×0.41). So: smaller, down to 320 px on the long side (a chat bubble's width on a phone); then fewer
/// frames, each kept one shown for the dropped ones' time, while at least 4 a second remain; then smaller
/// again, down to 160 px. When nothing fits, the best try within the auto-receive size goes (still
/// downloaded without asking), else the whole-size GIF (accepted by the recipient, as a large GIF is).
enum AnimationBudget {
    struct Result {
        var gif: GIFEncoder.Output
        /// False when no try fit the budget (see above for what goes then).
        var fits: Bool
        /// Tries stopped early (`stopAbove`), which change nothing of what is chosen.
        var stopped = 0
    }

    static let chatSide = 320
    static let floorSide = 160
    /// The longest a kept frame may show after dropping others: below 4 frames a second motion breaks up.
    static let maxDelayMs = 250
    static let maxTries = 8

    /// - Parameter stopping: tries stop once they are past what can matter (`stopAbove`); false runs
    ///   each whole (tests compare the two).
    /// - Parameter keeping: tries keep the frames they scale for their second pass and the tries after
    ///   at their size (`ScaledFrames`); false scales them in every pass (tests compare the two).
    /// - Parameter cancellation: checked between frames the tries read from what they kept (the
    ///   source checks its own, `MeteredAnimation`).
    static func fit(_ source: AnimationSource, maxBytes: Int, autoReceiveBytes: Int, maxPixels: Int = 4096 * 4096,
                    stopping: Bool = true, keeping: Bool = true, cancellation: CancellationFlag? = nil) throws -> Result {
        let keeper = keeping ? ScaledFrames.Keeper(cancellation: cancellation) : nil
        let (w, h) = (source.width, source.height)
        // The first try at the source's size, or at the most pixels a recipient is asked to decode.
        let over = Double(w * h) / Double(maxPixels)
        let long = over > 1 ? Int(Double(max(w, h)) / over.squareRoot()) : max(w, h)
        func attempt(_ side: Int, _ step: Int, stopAbove: Int? = nil) throws -> GIFEncoder.Output {
            let stopAbove = stopping ? stopAbove : nil
            let s = Double(side) / Double(max(w, h))
            let (tw, th) = (max(1, Int((Double(w) * s).rounded())), max(1, Int((Double(h) * s).rounded())))
            let made = try Trace.time("GIF \(tw)×\(th) every \(step)") {
                try GIFEncoder.encode(source, width: tw, height: th, step: step, stopAbove: stopAbove, kept: keeper)
            }
            Trace.note(made.complete ? "  \(made.size) bytes" : "  stopped past \(made.size) bytes")
            return made
        }
        var tries = [try attempt(long, 1, stopAbove: stopAbove(long, 1, maxStep: nil, maxBytes: maxBytes, autoReceiveBytes: autoReceiveBytes))]
        let frames = tries[0].sourceFrames
        let maxStep = max(1, min(frames / 2, maxDelayMs / max(1, tries[0].durationMs / max(1, frames))))
        var (side, step) = (long, 1)
        while let last = tries.last, last.size > maxBytes, tries.count < maxTries {
            let shrink = (Double(maxBytes) / Double(last.size)).squareRoot() * 0.92
            if side > chatSide {
                side = max(chatSide, Int(Double(side) * shrink))
            } else if step < maxStep {
                step += 1
            } else if side > floorSide {
                side = max(floorSide, Int(Double(side) * shrink))
            } else {
                break
            }
            tries.append(try attempt(side, step, stopAbove: stopAbove(side, step, maxStep: maxStep, maxBytes: maxBytes, autoReceiveBytes: autoReceiveBytes)))
        }
        let stopped = tries.filter { !$0.complete }.count
        if let fit = tries.last, fit.complete, fit.size <= maxBytes { return Result(gif: fit, fits: true, stopped: stopped) }
        // Tries only get smaller, so the first within the auto-receive size is the best of them.
        if let fallback = tries.first(where: { $0.complete && $0.size <= autoReceiveBytes }) {
            return Result(gif: fallback, fits: false, stopped: stopped)
        }
        return Result(gif: tries[0].complete ? tries[0] : try attempt(long, 1), fits: false, stopped: stopped)
    }

    /// Past how many bytes a try at `side` and `step` can stop: beyond it, the try neither fits nor is
    /// within the auto-receive size, and the ladder's next move is the same whatever its size (from
    /// above the chat side, straight to it; at or below, the next step). nil where the next size is
    /// taken from this one's. A 160-frame 1024² WebP (a 15.8 MB GIF whole) stops past 2.3 MB.
    static func stopAbove(_ side: Int, _ step: Int, maxStep: Int?, maxBytes: Int, autoReceiveBytes: Int) -> Int? {
        let neither = max(maxBytes, autoReceiveBytes)
        if side > chatSide {
            let straightToChat = Double(maxBytes) * (0.92 * Double(side) / Double(chatSide)) * (0.92 * Double(side) / Double(chatSide))
            return max(neither, Int(min(straightToChat.rounded(.up), Double(Int.max / 2))))
        }
        if let maxStep, step < maxStep { return neither }
        return nil
    }
}

/// An animation made a GIF within a byte budget, giving up first what a chat shows least.
///
/// Measured on a 640×480 60-frame test pattern and a 480×360 50-frame Mandelbrot zoom (every pixel
/// changing, the worst case): GIF bytes follow the pixel count a little less than linearly (640→320 px:
/// ÷2.95 for ÷4 pixels) and the frame count almost linearly (every other frame: ×0.55, every third:
/// ×0.41). So: smaller, down to 320 px on the long side (a chat bubble's width on a phone); then fewer
/// frames, each kept one shown for the dropped ones' time, while at least 4 a second remain (as many
/// dropped at once as the last try's bytes say: one at a time, a 30 fps sticker spent its 8 tries
/// there); then smaller again, down to 160 px. When nothing fits, the best try within the auto-receive size goes (still
/// downloaded without asking), else the whole-size GIF (accepted by the recipient, as a large GIF is).
enum AnimationBudget {
    struct Result {
        var gif: GIFEncoder.Output
        /// False when no try fit the budget (see above for what goes then).
        var fits: Bool
        /// Tries stopped early (`stopAbove`), which change nothing of what is chosen.
        var stopped = 0
        /// GIFs made, stopped or whole.
        var tries = 0
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
            let s = Double(side) / Double(max(w, h))
            let (tw, th) = (max(1, Int((Double(w) * s).rounded())), max(1, Int((Double(h) * s).rounded())))
            let made = try Trace.time("GIF \(tw)×\(th) every \(step)") {
                try GIFEncoder.encode(source, width: tw, height: th, step: step, stopAbove: stopAbove, stops: stopping, kept: keeper)
            }
            let projected = made.passed == nil ? "" : ", \(made.projectedSize) whole by its frames so far"
            Trace.note((made.complete ? "  \(made.size) bytes" : "  stopped past \(made.size) bytes") + projected)
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
                step = min(maxStep, max(step + 1, stepToFit(step, projected: last.projectedSize, maxBytes: maxBytes)))
            } else if side > floorSide {
                side = max(floorSide, Int(Double(side) * shrink))
            } else {
                break
            }
            tries.append(try attempt(side, step, stopAbove: stopAbove(side, step, maxStep: maxStep, maxBytes: maxBytes, autoReceiveBytes: autoReceiveBytes)))
        }
        func result(_ gif: GIFEncoder.Output, fits: Bool) -> Result {
            Result(gif: gif, fits: fits, stopped: tries.filter { !$0.complete }.count, tries: tries.count)
        }
        if let fit = tries.last, fit.complete, fit.size <= maxBytes { return result(fit, fits: true) }
        // Nothing fits. Tries only get smaller, so the first within the auto-receive size is the best of
        // them; frame steps jumped over just before it are tried towards that size, as stepping one at
        // a time would have found them.
        while tries.count < maxTries, let i = tries.firstIndex(where: { $0.complete && $0.size <= autoReceiveBytes }), i > 0 {
            let (above, within) = (tries[i - 1], tries[i])
            guard (above.width, above.height) == (within.width, within.height), within.step - above.step > 1 else { break }
            let between = min(within.step - 1, max(above.step + 1, stepToFit(above.step, projected: above.projectedSize, maxBytes: autoReceiveBytes)))
            tries.insert(try attempt(max(above.width, above.height), between, stopAbove: autoReceiveBytes), at: i)
        }
        if let fallback = tries.first(where: { $0.complete && $0.size <= autoReceiveBytes }) { return result(fallback, fits: false) }
        if tries[0].complete { return result(tries[0], fits: false) }
        let whole = try attempt(long, 1)
        tries.append(whole)
        return result(whole, fits: false)
    }

    /// The frame step at which a try projected at `projected` bytes with every `step`th frame should
    /// fit, bytes taken as falling with the frames kept. Seven animations: bytes went as the step to
    /// the power −0.80 to −1.15 (mostly above −1), and a stopped try's projection was 0.78–1.01 of its
    /// whole GIF, so the jump mostly lands short, on frames kept, and the next try steps on.
    static func stepToFit(_ step: Int, projected: Int, maxBytes: Int) -> Int {
        Int(min(Double(Int.max / 2), (Double(step) * Double(projected) / Double(max(1, maxBytes))).rounded(.up)))
    }

    /// Past how many bytes a try at `side` and `step` can stop: beyond it, the try neither fits nor is
    /// within the auto-receive size, and the ladder's next move does not need the rest of it (from
    /// above the chat side, straight to it; at or below, the step its frames so far project). nil where
    /// the next size is taken from this one's. A 160-frame 1024² WebP (a 15.8 MB GIF whole) stops past
    /// 2.3 MB.
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

/// The animation limits applied to what a probed header claims.
extension AnimationCost {
    /// One loop's frame pixels, as the file claims them: what is held to `maxSentFramePixels`.
    static func loopPixels(_ p: ProbeResult) -> Int { (p.width ?? 0) * (p.height ?? 0) * max(1, p.frameCount ?? 1) }

    /// Refuses an animation that is to be decoded (remade a GIF or a video) whose frames ask for
    /// more than `maxDecodedFramePixels`: what `probe`, `check` and `prepare` all answer.
    static func checkDecodeCost(_ p: ProbeResult) throws {
        let (w, h, n) = (p.width ?? 0, p.height ?? 0, p.frameCount ?? 1)
        let cost = decodeCost(frames: n, width: w, height: h), limit = maxDecodedFramePixels(bytes: p.bytes)
        guard cost > limit else { return }
        throw MediaPrepError(.tooManyPixels, "\(n) frames of \(w)×\(h) ask for \(cost == Int.max ? "more than Int.max" : cost.grouped) frame pixels to decode (at least \(minimumFrameCost.grouped) a frame), over the \(limit.grouped) an animation of \(p.bytes.grouped) bytes may take")
    }
}

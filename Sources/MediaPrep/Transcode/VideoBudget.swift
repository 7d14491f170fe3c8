/// Chooses resolution and rates together so a video fits a byte budget: a long clip at a tiny
/// budget looks better at 480p than blocky at 1080p.
package enum VideoBudget {
    /// Long sides tried, largest first (1080p, 720p, 540p, 480p, 360p, 240p for 16:9).
    static let longSides = [1920, 1280, 960, 854, 640, 426]
    /// Bits per pixel per frame below which a smaller picture scores higher once both are shown at
    /// 1280×720. `scripts/video-budget-grid.sh` on the 60 s 1080p clip at 98 + 32 kbit/s (two-pass,
    /// medium): 240p 0.9675 (0.038 b/px), 360p 0.9702 (0.017), 480p 0.9697 (0.0096), 720p 0.9672.
    static let minBitsPerPixel = 0.014
    /// The floor: 240p, 15 fps, 40 kbit/s video and 24 kbit/s mono AAC. Below that nothing fits.
    static let floorVideoRate = 40_000
    static let floorAudioRate = 24_000
    /// Budgets this generous at the full size are encoded at constant quality (CRF 23), the rate
    /// capped (VBV), instead of spending the whole budget: a 10 s clip need not become 50 MB.
    static let generousBitsPerPixel = 0.25

    /// The plan for `source` within `maxBytes`, and a two-pass fallback when the plan is constant
    /// quality; throws `overLimit` with what would fit when even the floor does not.
    package static func plan(_ source: VideoSource, maxBytes: Int,
                            maxLongSide: Int = VideoEncodePlan.defaultLongSide) throws -> (plan: VideoEncodePlan, fallback: VideoEncodePlan?) {
        let seconds = max(0.1, source.seconds)
        let fps = min(30, source.frameRate > 0 ? source.frameRate : 30)
        let usable = Double(maxBytes - overhead(seconds: seconds, fps: fps, audio: source.hasAudio))
        let totalRate = usable * 8 * 0.97 / seconds  // two-pass x264 lands within ~2 % of its target
        let audio = audioPlan(totalRate: totalRate, source: source)
        let videoRate = Int(totalRate) - audio.rate
        guard usable > 0, videoRate >= floorVideoRate else {
            let floorRate = Double(floorVideoRate + (source.hasAudio ? floorAudioRate : 0))
            let needs = overhead(seconds: seconds, fps: 15, audio: source.hasAudio) + Int(floorRate * seconds / 8 / 0.97)
            let fits = longestFitting(source, maxBytes: maxBytes)
            throw MediaPrepError(.overLimit, String(printf: "%.1f s of video cannot fit %d bytes even at 240p (needs at least %d bytes; its first %.1f s would fit: --trim-to-fit sends them)",
                                                    seconds, maxBytes, needs, fits))
        }
        let long = max(source.width, source.height), short = max(1, min(source.width, source.height))
        let cap = min(maxLongSide, long)
        func pixels(_ side: Int) -> Double { Double(side) * Double(side) * Double(short) / Double(long) }
        let sides = [cap] + longSides.filter { $0 < cap }
        let side = sides.first { Double(videoRate) / (pixels($0) * fps) >= minBitsPerPixel } ?? sides.last ?? cap
        let frameRate = Double(videoRate) / (pixels(side) * fps) >= minBitsPerPixel / 2 ? fps : min(fps, 15)
        var twoPass = VideoEncodePlan(maxLongSide: side, maxFrameRate: frameRate, videoBitRate: videoRate, audioBitRate: audio.rate,
                                      audioChannels: audio.channels, audioSampleRate: audio.sampleRate)
        twoPass.preset = "medium"
        guard side == cap, Double(videoRate) / (pixels(side) * fps) >= generousBitsPerPixel else { return (twoPass, nil) }
        var capped = VideoEncodePlan.compatible(source)
        capped.maxLongSide = cap
        capped.maxFrameRate = min(60, source.frameRate > 0 ? source.frameRate : 60)
        // The buffer as `compatible`'s: x264's VBV lets a capped encode run a buffer over its cap, and a
        // 2 s buffer on a 6 s clip is 30 % over the budget; one riding the cap is stopped (`CapWatch`).
        capped.bufferSeconds = min(2, max(0.5, seconds / 10))
        capped.maxRate = videoRate
        return (capped, twoPass)
    }

    /// AAC's share: mono 24 kbit/s near the floor, 32 kbit/s mono for small budgets (what the app's
    /// voice notes use), 64 kbit/s, then 128 kbit/s stereo when the budget is large.
    static func audioPlan(totalRate: Double, source: VideoSource) -> (rate: Int, channels: Int, sampleRate: Int) {
        guard source.hasAudio else { return (0, 0, 0) }
        let stereo = min(2, source.audioChannels)
        if totalRate < 160_000 { return (totalRate < 100_000 ? floorAudioRate : 32_000, 1, totalRate < 100_000 ? 16_000 : 24_000) }
        if totalRate < 1_000_000 { return (64_000, stereo, min(44_100, AACRates.nearest(source.audioSampleRate))) }
        return (128_000, stereo, AACRates.nearest(source.audioSampleRate))
    }

    /// MP4 index and headers: ~12 bytes per video sample (size, time, composition offset, sync),
    /// ~8 per AAC frame, plus the boxes themselves.
    /// The longest part of `source` (in seconds) that fits `maxBytes` at the floor rates, less 5 % so the
    /// plan for it has room above the floor: what `--trim-to-fit` cuts a clip to.
    package static func longestFitting(_ source: VideoSource, maxBytes: Int) -> Double {
        let floorRate = Double(floorVideoRate + (source.hasAudio ? floorAudioRate : 0))
        var seconds = Double(maxBytes) * 8 * 0.97 / floorRate
        // The container's own bytes grow with the duration: shorten until the floor fits with them.
        for _ in 0..<20 {
            let needs = Double(overhead(seconds: seconds, fps: 15, audio: source.hasAudio)) + floorRate * seconds / 8 / 0.97
            guard needs > Double(maxBytes) else { break }
            seconds *= Double(maxBytes) / needs
        }
        return max(0, seconds * 0.95)
    }

    static func overhead(seconds: Double, fps: Double, audio: Bool) -> Int {
        4_096 + Int(seconds * fps * 12) + (audio ? Int(seconds * 48_000 / 1024 * 8) : 0)
    }
}

/// A constant-quality pass under a generous budget's rate cap, watched: one that has spent most of its
/// cap by a quarter of the clip rides it to the end, where x264's two passes place the same bytes
/// better and sooner (6 s noisy 1080p clip, cap 18.1 Mbit/s, ffmpeg CLI: the capped encode 12.68 MB at
/// SSIM 0.8939 in 14.7 s, two passes 12.69 MB at 0.8982 in 14.1 s). Decided once, at `decideAt`.
struct CapWatch {
    /// Thrown from the encoder's packets: the caller stops the pass and encodes in two passes.
    struct Ridden: Error {}

    /// The cap in bytes a second, and the output time at which the pass is judged.
    let bytesPerSecond: Double
    let decideAt: Double
    /// Of the cap a pass must have spent by `decideAt` to count as riding it. 6 s noisy 1080p clip
    /// spending 84–90 %: capped 13,262,576 bytes at SSIM 0.8947, two passes 12,689,949 at 0.8982; clips
    /// the cap does not bind spend 4–18 % (testdata's vp9.webm, rotated-mpeg4.mov), noisy.webm 73–75 %.
    static let share = 0.8
    private var bytes = 0
    private var decided = false

    /// Watches a pass of `seconds` under a cap of `bitsPerSecond`; nil when the clip is too short to
    /// judge before its end (then only the finished file's size says).
    init?(bitsPerSecond: Int, seconds: Double) {
        let at = max(1, seconds / 4)
        guard bitsPerSecond > 0, at < seconds * 0.75 else { return nil }
        (bytesPerSecond, decideAt) = (Double(bitsPerSecond) / 8, at)
    }

    /// Counts one packet ending at `seconds` of output; throws `Ridden` when the pass rides its cap.
    mutating func add(_ packetBytes: Int, endingAt t: Double) throws {
        guard !decided else { return }
        bytes += packetBytes
        guard t >= decideAt else { return }
        decided = true
        Trace.note(String(printf: "pass 0 spent %.0f %% of its cap by %.1f s", 100 * Double(bytes) / (bytesPerSecond * t), t))
        if Double(bytes) >= Self.share * bytesPerSecond * t { throw Ridden() }
    }
}

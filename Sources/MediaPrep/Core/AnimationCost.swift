/// What an animation's header claims it costs to decode, checked before any frame is: how many frame
/// pixels a loop may show, and how many a remake may decode for a file of its size.
enum AnimationCost {
    /// Pixels of one loop of an animation that leaves as it is: 500 frames of 1080p, 64 of 4096×4096.
    static let maxSentFramePixels = 1 << 30
    /// Pixels of all frames mediaprep decodes to remake one, each frame its whole canvas, however
    /// large the file: the meter's backstop (`MeteredAnimation`).
    static let maxDecodedFramePixels = 1 << 32
    /// What any animation may ask for, and what each byte of it adds. A remake decodes every frame
    /// once a try (up to `AnimationBudget.maxTries`): a 1024² WebP of 100 frames (105 M) took 9.8 s, a
    /// 512² sticker of 200 frames (52 M) 11 s; 255 frames of a 4096² canvas (4.3 G) in a 12 KB WebP
    /// ran for minutes at 15 GB. A 600-frame 1080p GIF (1.24 G) takes a file of 4 MB or more.
    static let decodedFramePixelsBase = 1 << 28
    static let decodedFramePixelsPerByte = 256

    /// The frame pixels an animation of `bytes` may ask to decode.
    static func maxDecodedFramePixels(bytes: Int) -> Int {
        min(maxDecodedFramePixels, decodedFramePixelsBase + min(bytes, 1 << 40) * decodedFramePixelsPerByte)
    }
    /// What a frame costs however small its canvas: the per-frame work of decoding, scaling and
    /// encoding it (a sticker's frames took 50 ms each a remake); 100,000 frames of 1×1 ran past 60 s.
    static let minimumFrameCost = 65_536

    /// Frame pixels decoding an animation once asks for: frames × canvas, each frame at least
    /// `minimumFrameCost`, without overflowing.
    static func decodeCost(frames: Int, width: Int, height: Int) -> Int {
        let (canvas, o1) = max(0, width).multipliedReportingOverflow(by: max(0, height))
        let (total, o2) = max(canvas, minimumFrameCost).multipliedReportingOverflow(by: max(1, frames))
        return o1 || o2 ? Int.max : total
    }
}

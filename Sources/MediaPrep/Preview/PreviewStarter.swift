/// The preview made on the other core from the first pixels that suit it, once: the search hands
/// over the view-size image as soon as it exists, or its source when it searches at that size
/// (garden-noisy: a preview cut from 2820 px took 10 ms of the core the view's resize wanted, from
/// 1600 px 5.3–6.6). Used by the one thread that runs the search.
final class PreviewStarter: @unchecked Sendable {
    private let maxLength: Int
    private let fullChroma: Bool
    private(set) var job: Pending<String>?

    init(maxLength: Int, fullChroma: Bool) {
        (self.maxLength, self.fullChroma) = (maxLength, fullChroma)
    }

    /// Starts the preview from `pixels`, unless it was started already.
    func start(_ pixels: PixelBuffer) {
        guard job == nil else { return }
        let (maxLength, fullChroma) = (maxLength, fullChroma)
        job = Pending { try PreviewMaker.make(from: pixels, maxLength: maxLength, fullChroma: fullChroma) }
    }
}

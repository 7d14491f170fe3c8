import UploadPlanner

/// Where a prepared image goes: its byte budget, side cap and how it will be viewed.
public struct ImageProfile: Sendable, Equatable {
    public var name: String
    /// Hard limit on the prepared file; never exceeded.
    public var maxBytes: Int
    /// Hard limit on the long side, if the destination has one (Bluesky: 2000).
    public var maxSide: Int?
    /// Long side a phone shows full screen (SPEC §6 scores at 1600); the search starts here.
    public var displaySide: Int
    /// Data-URI length cap for the inline preview.
    public var previewMaxLength: Int
    /// The destination's own cap on a video file (Bluesky: 50,000,000), used when no budget is given.
    public var maxVideoBytes: Int?
    /// The destination does not animate GIFs (Bluesky): they go as a short H.264 video instead.
    public var animatedAsVideo = false
    /// Most pixels one sent image (or animation frame) may have: every recipient's phone decodes what
    /// it shows, and 4096×4096 is 64 MiB of RGBA there. Larger images are resized, split or sent as a
    /// file, however few bytes they take (a 10000×10000 1-bit PNG is 29 KB and 400 MB decoded).
    public var maxSentPixels = 4096 * 4096
    /// What transparent pixels become when an image must leave as JPEG (0xRRGGBB; white, as the
    /// chat shows a transparent image). A PNG keeps its transparency whenever one fits the budget.
    public var background: UInt32 = 0xFFFFFF

    public init(name: String, maxBytes: Int, maxSide: Int? = nil, displaySide: Int = 1600,
                previewMaxLength: Int = SimplexLimits.simplex.maxPreviewLength) {
        self.name = name
        self.maxBytes = maxBytes
        self.maxSide = maxSide
        self.displaySide = displaySide
        self.previewMaxLength = previewMaxLength
    }

    /// SimpleX: MAX_IMAGE_SIZE = 261,120 bytes, no side limit.
    public static let simplex = ImageProfile(name: "simplex", maxBytes: SimplexLimits.simplex.maxImageSize)
    /// Bluesky (app.bsky.embed.images): ≤ 1,000,000 bytes and ≤ 2000×2000.
    /// Videos (app.bsky.embed.video) ≤ 50,000,000 bytes; GIFs are not animated, so composers send video.
    public static let bluesky: ImageProfile = {
        var p = ImageProfile(name: "bluesky", maxBytes: 1_000_000, maxSide: 2000)
        p.maxVideoBytes = 50_000_000
        p.animatedAsVideo = true
        return p
    }()

    public static func named(_ n: String) -> ImageProfile? {
        switch n {
        case "simplex": return .simplex
        case "bluesky": return .bluesky
        default: return nil
        }
    }

    /// The size the viewer will see for a source of this display size (SPEC §6), never upscaled: a
    /// picture up to 2.5 times longer than wide is looked at whole (long side ≤ `displaySide`); a longer
    /// one, a long screenshot or a panorama, is scrolled and zoomed at a phone's width (short side ≤
    /// 1080). Rounds half to even, as the scoring script's Python `round` does, so sizes line up exactly.
    public func viewSize(width: Int, height: Int) -> (width: Int, height: Int) {
        var view = Self.displaySize(width: width, height: height, displaySide: displaySide)
        if let cap = maxSide, max(view.width, view.height) > cap { view = Self.scaled(width: width, height: height, longSide: cap) }
        return view
    }

    /// A phone's width: the short side a long picture is viewed at.
    static let phoneWidth = 1080

    /// SPEC §6's display size for a source, whatever the destination's own caps.
    static func displaySize(width: Int, height: Int, displaySide: Int) -> (width: Int, height: Int) {
        let long = max(width, height), short = max(1, min(width, height))
        guard Double(long) > 2.5 * Double(short) else { return scaled(width: width, height: height, longSide: min(displaySide, long)) }
        let s = Double(min(phoneWidth, short)) / Double(short)
        func r(_ v: Int) -> Int { max(1, Int((Double(v) * s).rounded(.toNearestOrEven))) }
        return s == 1 ? (width, height) : (r(width), r(height))
    }

    static func scaled(width: Int, height: Int, longSide: Int) -> (width: Int, height: Int) {
        let long = max(width, height)
        if long == longSide { return (width, height) }
        let s = Double(longSide) / Double(long)
        func r(_ v: Int) -> Int { max(1, Int((Double(v) * s).rounded(.toNearestOrEven))) }
        return (r(width), r(height))
    }
}

/// How far a batch is, for a progress bar: inputs started and done, the one in hand and how far
/// a long one (a video transcode) has got.
public struct BatchProgress: Sendable {
    public var started: Int
    public var done: Int
    /// Known for a list of paths; nil for a stream.
    public var total: Int?
    public var current: String?
    /// How far `current` is, 0…1, for inputs that take long (video transcodes); nil otherwise.
    public var fraction: Double?

    public init(started: Int = 0, done: Int = 0, total: Int? = nil, current: String? = nil, fraction: Double? = nil) {
        (self.started, self.done, self.total, self.current, self.fraction) = (started, done, total, current, fraction)
    }
}

/// How much of the original survived preparation; lets a caller tell a re-encode from a copy.
public enum PrepareRoute: String, Sendable, Codable {
    /// Already within budget, upright and without metadata: the original bytes.
    case untouched
    /// Within budget and upright: metadata segments cut out, pixels bit-identical.
    case stripped
    /// Within budget but turned by Exif: rotated/flipped in the DCT domain, no re-encoding.
    case rotated
    /// Decoded, resized and encoded by the budget search.
    case encoded
    /// The same audio and video packets in a new container (MKV/WebM → MP4).
    case remuxed
    /// Sent as the original file (video, voice, animated GIF, plain files).
    case original
}

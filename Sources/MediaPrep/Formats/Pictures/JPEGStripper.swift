/// Removes metadata segments (Exif, GPS, XMP, ICC, comments) from a JPEG without touching its
/// entropy-coded data: the pixels stay bit-identical, like `jpegtran -copy none`.
enum JPEGStripper {
    static func strip(_ data: [UInt8]) -> [UInt8]? { strip(data, markers: JPEGMarkers(data)) }

    /// - Parameter tail: when given, its metadata segments go too, and the file ends at EOI.
    /// - Parameter keepingProfile: an ICC profile stays (a photo sent in its original quality).
    static func strip(_ data: [UInt8], markers: JPEGMarkers, tail: JPEGMarkers.Tail? = nil, keepingProfile: Bool = false) -> [UInt8]? {
        guard let sos = markers.segments.last, sos.marker == 0xDA else { return nil }
        let drop = Set(markers.metadataSegments(in: data).filter { !(keepingProfile && JPEGMarkers.isICCProfile($0, in: data)) }.map { $0.payload.lowerBound })
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(data.count)
        for s in markers.segments where s.marker != 0xDA && !drop.contains(s.payload.lowerBound) {
            out += data[(s.payload.lowerBound - 4)..<s.payload.upperBound]
        }
        var at = sos.payload.lowerBound - 4
        for s in tail?.metadataSegments(in: data) ?? [] {
            out += data[at..<(s.payload.lowerBound - 4)]
            at = s.payload.upperBound
        }
        out += data[at..<(tail?.end ?? data.count)]
        return out
    }
}

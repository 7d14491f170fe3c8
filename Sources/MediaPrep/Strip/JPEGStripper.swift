/// Removes metadata segments (Exif, GPS, XMP, ICC, comments) from a JPEG without touching its
/// entropy-coded data: the pixels stay bit-identical, like `jpegtran -copy none`.
enum JPEGStripper {
    static func strip(_ data: [UInt8]) -> [UInt8]? { strip(data, markers: JPEGMarkers(data)) }

    static func strip(_ data: [UInt8], markers: JPEGMarkers) -> [UInt8]? {
        guard let sos = markers.segments.last, sos.marker == 0xDA else { return nil }
        let drop = Set(markers.metadataSegments(in: data).map { $0.payload.lowerBound })
        var out: [UInt8] = [0xFF, 0xD8]
        out.reserveCapacity(data.count)
        for s in markers.segments where s.marker != 0xDA && !drop.contains(s.payload.lowerBound) {
            out += data[(s.payload.lowerBound - 4)..<s.payload.upperBound]
        }
        out += data[(sos.payload.lowerBound - 4)...]
        return out
    }
}

/// The header segments of a JPEG (everything before the first SOS), read without decoding.
struct JPEGMarkers: Sendable {
    struct Segment: Sendable {
        let marker: UInt8
        /// Range of the payload, after the two length bytes.
        let payload: Range<Int>
    }

    let segments: [Segment]
    /// Bytes between segments that belong to none (a malformed segment's leftovers). libjpeg skips
    /// them with a benign warning, and so do we; an output keeps none of them.
    let extraneousBytes: Int

    /// Walks the marker chain; stops quietly at anything malformed, since the decoder reports that.
    init(_ data: [UInt8]) {
        var result: [Segment] = []
        var i = 2
        var stray = 0
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else {
            segments = []
            extraneousBytes = 0
            return
        }
        while i + 4 <= data.count {
            if data[i] != 0xFF {
                // Resynchronise on the next marker, as libjpeg's next_marker does.
                guard let next = data[i...].firstIndex(of: 0xFF) else { break }
                stray += next - i
                i = next
                continue
            }
            let marker = data[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { i += 2; continue }
            let length = Int(data[i + 2]) << 8 | Int(data[i + 3])
            guard length >= 2, i + 2 + length <= data.count else { break }
            result.append(Segment(marker: marker, payload: (i + 4)..<(i + 2 + length)))
            if marker == 0xDA { break }  // SOS: entropy-coded data follows
            i += 2 + length
        }
        segments = result
        extraneousBytes = stray
    }

    /// APPn (except a bare JFIF APP0) and COM segments: anything that is metadata, not image.
    func metadataSegments(in data: [UInt8]) -> [Segment] {
        segments.filter { s in
            if s.marker == 0xFE { return true }
            guard (0xE0...0xEF).contains(s.marker) else { return false }
            if s.marker == 0xE0 {
                let jfif: [UInt8] = Array("JFIF\0".utf8)
                return !(s.payload.count >= 5 && Array(data[s.payload.lowerBound..<s.payload.lowerBound + 5]) == jfif)
            }
            // Adobe APP14 carries the color transform, which decoding needs; it is not metadata.
            if s.marker == 0xEE { return false }
            return true
        }
    }

    var isProgressive: Bool { segments.contains { $0.marker == 0xC2 } }
}

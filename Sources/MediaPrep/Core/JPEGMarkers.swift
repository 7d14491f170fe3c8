import Glibc

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
    func metadataSegments(in data: [UInt8]) -> [Segment] { segments.filter { Self.isMetadata($0, in: data) } }

    static func isMetadata(_ s: Segment, in data: [UInt8]) -> Bool {
        if s.marker == 0xFE { return true }
        guard (0xE0...0xEF).contains(s.marker) else { return false }
        if s.marker == 0xE0 {
            let jfif: [UInt8] = Array("JFIF\0".utf8)
            return !(s.payload.count >= 5 && Array(data[s.payload.lowerBound..<s.payload.lowerBound + 5]) == jfif)
        }
        // Adobe APP14 carries the color transform, which decoding needs; it is not metadata.
        return s.marker != 0xEE
    }

    /// An APP2 `ICC_PROFILE\0` segment: a part of the colour profile the pixels are in.
    static func isICCProfile(_ s: Segment, in data: [UInt8]) -> Bool {
        s.marker == 0xE2 && s.payload.count >= 12 && data[s.payload.lowerBound..<s.payload.lowerBound + 12].elementsEqual("ICC_PROFILE\0".utf8)
    }

    var isProgressive: Bool { segments.contains { $0.marker == 0xC2 } }

    /// What the file holds after its first scan's header: the segments between later scans (a
    /// progressive file's tables, and any APPn or COM an editor put there) and where EOI ends the
    /// image. Bytes after EOI are no part of it: decoders stop there, and a phone may append a
    /// whole file (Samsung's SEFT trailer with the capture time, a motion photo's video).
    struct Tail: Sendable {
        /// Just after EOI; nil when the data ends first (a cut file, or only its head was read).
        let end: Int?
        let segments: [Segment]

        /// Its APPn and COM segments, as `JPEGMarkers.metadataSegments` picks the header's.
        func metadataSegments(in data: [UInt8]) -> [Segment] { segments.filter { JPEGMarkers.isMetadata($0, in: data) } }
    }

    /// Walks the entropy-coded data for markers: 0xFF then 0x00 (a stuffed byte), a fill 0xFF or
    /// RST0–7 are data; any other marker is a segment with a length, or EOI.
    func tail(in data: [UInt8]) -> Tail {
        guard let sos = segments.last, sos.marker == 0xDA else { return Tail(end: nil, segments: []) }
        var later: [Segment] = []
        var i = sos.payload.upperBound
        let end: Int? = data.withUnsafeBufferPointer { b -> Int? in
            guard let base = b.baseAddress else { return nil }
            while i + 1 < b.count {
                guard let hit = memchr(base + i, 0xFF, b.count - i) else { return nil }
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                guard at + 1 < b.count else { return nil }
                let marker = b[at + 1]
                switch marker {
                case 0x00, 0xFF, 0xD0...0xD7, 0x01: i = at + 1 + (marker == 0xFF ? 0 : 1)
                case 0xD9: return at + 2
                default:
                    guard at + 4 <= b.count else { return nil }
                    let length = Int(b[at + 2]) << 8 | Int(b[at + 3])
                    guard length >= 2, at + 2 + length <= b.count else { return nil }
                    later.append(Segment(marker: marker, payload: (at + 4)..<(at + 2 + length)))
                    i = at + 2 + length
                }
            }
            return nil
        }
        return Tail(end: end, segments: later)
    }
}

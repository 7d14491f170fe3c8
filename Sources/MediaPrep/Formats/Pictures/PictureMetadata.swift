import UploadPlanner

/// Which kinds of metadata a picture's own bytes carry (a JPEG's segments, a WebP's chunks, a GIF's
/// extensions, a HEIF's items, a PNG's trailing bytes), read from the walk its stripper cuts by: what
/// `check` says preparation removes.
package struct PictureMetadata: Sendable, Equatable {
    package var exif = false
    /// A GPSInfo IFD in the Exif block: where the photo was taken.
    package var gps = false
    package var xmp = false
    package var iccProfile = false
    package var comment = false
    /// A PNG's text chunks (an author, a title, a description, the software).
    package var text = false
    /// A PNG's tIME: when it was last changed.
    package var timestamp = false
    package var other = false
    /// What the format calls the blocks `other` counts, in `check`'s words.
    var blocks = "APP segments"
    /// Blocks cut that say nothing of the sender (a PNG's cHRM when its colours are sRGB's): the file
    /// changes, and nothing is reported.
    var unreported = false
    /// Bytes after the image's own end (a JPEG's EOI, a PNG's IEND, a GIF's trailer), which decoders
    /// never read and a phone may fill: a Samsung trailer's capture time, a motion photo's video.
    package var trailingBytes = 0

    package var isEmpty: Bool { !(exif || gps || xmp || iccProfile || comment || text || timestamp || other) && trailingBytes == 0 }

    /// Whether cutting it changes the file at all.
    var changesFile: Bool { !isEmpty || unreported }

    /// The same in the words of every other format's rewrite (`MetadataRewrite.found`).
    var fields: PrivateFields {
        var f: PrivateFields = []
        if gps { f.insert(.location) }
        if comment || text { f.insert(.comment) }
        if timestamp { f.insert(.dates) }
        if xmp { f.insert(.xmp) }
        if exif || iccProfile || other || trailingBytes > 0 { f.insert(.other) }
        return f
    }

    /// Nothing found yet in a format whose blocks are called `blocks`.
    package init(blocks: String = "APP segments") { self.blocks = blocks }

    /// Reads the header segments only; malformed blocks count as present, never as an error.
    package init(jpeg data: [UInt8]) { self.init(jpeg: data, markers: JPEGMarkers(data)) }

    init(jpeg data: [UInt8], markers: JPEGMarkers) { self.init(jpeg: data, segments: markers.metadataSegments(in: data)) }

    /// What a whole JPEG carries: its header's segments, and the tail's segments and trailing bytes.
    init(jpeg data: [UInt8], markers: JPEGMarkers, tail: JPEGMarkers.Tail) {
        self.init(jpeg: data, segments: markers.metadataSegments(in: data) + tail.metadataSegments(in: data))
        trailingBytes = tail.end.map { data.count - $0 } ?? 0
    }

    private init(jpeg data: [UInt8], segments: [JPEGMarkers.Segment]) {
        func starts(_ s: JPEGMarkers.Segment, _ prefix: String) -> Bool {
            let p = Array(prefix.utf8)
            return s.payload.count >= p.count && Array(data[s.payload.lowerBound..<s.payload.lowerBound + p.count]) == p
        }
        for s in segments {
            switch s.marker {
            case 0xFE: comment = true
            case 0xE1 where starts(s, "Exif\0\0"):
                exif = true
                if Self.hasGPS(data[(s.payload.lowerBound + 6)..<s.payload.upperBound]) { gps = true }
            case 0xE1 where starts(s, "http://ns.adobe.com/xap/"): xmp = true
            case 0xE2 where starts(s, "ICC_PROFILE\0"): iccProfile = true
            default: other = true
            }
        }
    }

    /// True when IFD0 of a TIFF-structured Exif block has tag 0x8825 (GPSInfo).
    static func hasGPS(_ tiff: ArraySlice<UInt8>) -> Bool {
        guard let r = TIFFReader(tiff), let entries = r.ifd0Entries else { return false }
        return entries.contains { r.u16($0) == 0x8825 }
    }

    private var trailingRemoval: String? {
        trailingBytes > 0 ? "\(trailingBytes.formatted) byte\(trailingBytes == 1 ? "" : "s") after the image's end removed" : nil
    }

    /// "GPS metadata removed", "Exif metadata removed", … as `check` reports them.
    package var removals: [String] {
        var r: [String] = []
        if gps { r.append("GPS location removed") }
        var kinds: [String] = []
        if exif { kinds.append("Exif") }
        if xmp { kinds.append("XMP") }
        if iccProfile { kinds.append("ICC profile") }
        if comment { kinds.append("comment") }
        if text { kinds.append("text") }
        if timestamp { kinds.append("timestamp") }
        if other { kinds.append("other " + blocks) }
        if !kinds.isEmpty { r.append(kinds.joined(by: ", ") + " metadata removed") }
        if let t = trailingRemoval { r.append(t) }
        return r
    }
}

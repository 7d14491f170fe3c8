/// A TIFF or BigTIFF sent as a file (a long scan) loses what names the sender in place: the values
/// of its text tags (make, model, software, dates, artist, copyright, description), its GeoTIFF
/// tags, XMP, IPTC and Photoshop blocks become zeros, and its Exif and GPS IFDs become empty IFDs
/// with their values zeroed. No offset moves, so strips, tiles and the orientation tag stay as they are.
extension MetadataRewrite {
    /// Nil when there is nothing to take out, or the file is not a TIFF whose IFDs can be walked.
    static func tiff(_ d: [UInt8]) -> MetadataRewrite? {
        guard let t = TIFFReader(d[...]), var ifd = t.firstIFD else { return nil }
        var zeroed: [Range<Int>] = []
        var xmp: [Range<Int>] = []
        var found: PrivateFields = []
        var seen: Set<Int> = []
        // Every page's IFD, each once (a loop in the chain ends the walk, as does an IFD past the
        // end: no reader finds anything there either).
        while ifd > 0, seen.insert(ifd).inserted, seen.count <= 1000 {
            guard let entries = t.entries(at: ifd) else {
                if seen.count == 1 { return nil }
                break
            }
            for e in entries {
                guard let tag = t.tag(e), let field = tiffTags[tag] ?? geoTIFFTags[tag] else { continue }
                found.insert(field)
                if tag == 34665 || tag == 34853 {
                    guard let sub = t.number(e), let subEntries = t.entries(at: sub) else { continue }
                    // Each value, then the IFD itself (and its next-IFD field, if there): an IFD of no entries.
                    zeroed += subEntries.compactMap { t.valueRange($0) } + [sub..<min(t.size, sub + t.ifdBytes(subEntries.count))]
                } else if let r = t.valueRange(e) {
                    // XMP stays a packet (of nothing), which readers parse; text and blocks become zeros.
                    if tag == 700, r.count > 4 { xmp.append(r) } else { zeroed.append(r) }
                }
            }
            guard let next = t.nextIFD(ifd, count: entries.count) else { break }
            ifd = next
        }
        // Values may share bytes (a hostile file): merged, so the edits never overlap; an XMP
        // packet sharing bytes with anything else is zeros too.
        var merged: [(range: Range<Int>, xmp: Bool)] = []
        for (r, isXMP) in (zeroed.map { ($0, false) } + xmp.map { ($0, true) }).sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            if let last = merged.last, r.lowerBound <= last.range.upperBound {
                merged[merged.count - 1] = (last.range.lowerBound..<max(last.range.upperBound, r.upperBound), false)
            } else {
                merged.append((r, isXMP))
            }
        }
        let edits = merged.map { m in (m.range, [m.xmp ? Piece.bytes(emptyXMP(m.range.count)) : .zeros(m.range.count)]) }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: d.count, edits: edits, found: found)
    }

    /// GeoTIFF's tags (OGC GeoTIFF 1.1, and Intergraph's matrix before it): where on Earth the
    /// picture is, to the metre for a drone's or a phone scanner's map.
    static let geoTIFFTags: [Int: PrivateFields] = [
        33550: .location, 33920: .location, 33922: .location, 34264: .location, 34735: .location, 34736: .location, 34737: .location,
    ]
}

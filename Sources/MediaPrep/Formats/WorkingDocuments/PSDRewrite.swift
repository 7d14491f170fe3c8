/// A Photoshop document (PSD, or PSB past 30,000 px) goes as a file, the working file its sender
/// means to share, and loses in place what names the sender: the image resources that hold a
/// camera's Exif, IPTC (by-line, place, dates) and XMP keep their place and length, emptied, so no
/// offset moves and the layers and pixels stay byte for byte. Before, exiftool's sample went with
/// its by-line and copyright; a photo saved from Photoshop keeps its camera's GPS there. Smart
/// objects' files and layers' times go as `PSDLayerSection` says.
extension MetadataRewrite {
    /// Image resources by ID (Photoshop File Formats Specification, "Image resource IDs").
    private enum Resource {
        static let iptc = 0x0404, url = 0x040B, urlList = 0x041E, exif1 = 0x0422, exif3 = 0x0423, xmp = 0x0424, captionDigest = 0x0425
    }

    /// A hostile file's block count cannot make the walk long.
    static let maxPSDResources = 10_000
    /// Bytes of a resource read to tell what it names (a JPEG's whole Exif is 64 KiB): a resource that
    /// claims a gigabyte costs no more memory than this.
    static let classifiedBytes = 1 << 20

    /// The rewrite of a PSD's private image resources, nil when it holds none; a resources section
    /// that runs past its own length or the file's end is damaged.
    /// - Parameter depth: how deep inside other documents' smart objects this one is embedded.
    static func psd(_ r: ByteReader, depth: Int = 0) throws -> MetadataRewrite? {
        let head = try r.exactly(0, 30, "the PSD header")
        guard Bytes.ascii(head, 0, 4) == "8BPS", [1, 2].contains(Bytes.be(head, 4, 2)) else { return nil }
        let modeData = Bytes.be(head, 26, 4)
        let sectionAt = 30 + modeData
        let section = try r.exactly(sectionAt, 4, "the PSD's image resources length")
        let start = sectionAt + 4, end = start + Bytes.be(section, 0, 4)
        guard end <= r.size else {
            throw MediaPrepError(.truncated, "the PSD is cut off: its image resources end at byte \(end), the file has \(r.size)")
        }
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var at = start, count = 0
        while at + 12 <= end {
            count += 1
            let h = try r.exactly(at, min(end - at, 4 + 2 + 256), "a PSD image resource at byte \(at)")
            guard ["8BIM", "MeSa", "AgHg", "PHUT", "DCSR"].contains(Bytes.ascii(h, 0, 4)), count <= maxPSDResources else {
                throw MediaPrepError(.corrupt, "the PSD's image resource at byte \(at) is damaged")
            }
            let id = Bytes.be(h, 4, 2)
            let nameLength = (1 + Int(h[6]) + 1) & ~1  // a Pascal string padded to even
            let sizeAt = at + 6 + nameLength
            let size = Bytes.be(try r.exactly(sizeAt, 4, "a PSD image resource's size"), 0, 4)
            let data = (sizeAt + 4)..<(sizeAt + 4 + size)
            guard data.upperBound <= end else {
                throw MediaPrepError(.corrupt, "the PSD's image resource \(id) at byte \(at) runs past its section")
            }
            switch id {
            case Resource.exif1, Resource.exif3:
                let tiff = try r.read(data.lowerBound, min(data.count, Self.classifiedBytes))
                found.formUnion(exifFields(tiff[...]))
                let empty = Array("MM".utf8) + [0, 42] + Bytes.be32(8) + [0, 0] + Bytes.be32(0)  // a TIFF of one empty IFD
                edits.append((data, data.count >= empty.count ? [.bytes(empty), .zeros(data.count - empty.count)] : [.zeros(data.count)]))
            case Resource.xmp:
                found.insert(.xmp)
                edits.append((data, data.count <= Self.classifiedBytes ? [.bytes(emptyXMP(data.count))] : [.zeros(data.count)]))
            case Resource.iptc:
                found.formUnion(iptcFields(try r.read(data.lowerBound, min(data.count, Self.classifiedBytes))))
                edits.append((data, [.zeros(data.count)]))
            case Resource.url, Resource.urlList, Resource.captionDigest:
                if id != Resource.captionDigest { found.insert(.other) }
                edits.append((data, [.zeros(data.count)]))
            default: break
            }
            at = data.upperBound + (size & 1)
        }
        let linked = try psdLayerSection(r, sectionAt: end, psb: Bytes.be(head, 4, 2) == 2, depth: depth)
        edits += linked.edits
        found.formUnion(linked.found)
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    /// What an IPTC-IIM block's application records name (by-line, places, dates, caption, title).
    static func iptcFields(_ b: [UInt8]) -> PrivateFields {
        var found: PrivateFields = []
        var at = 0
        while at + 5 <= b.count, b[at] == 0x1C {
            let (record, dataset) = (Int(b[at + 1]), Int(b[at + 2]))
            let length = Bytes.be(b, at + 3, 2)
            if length & 0x8000 != 0 { found.insert(.other); break }  // an extended length: not what phones write
            if record == 2 {
                switch dataset {
                case 80, 85, 110, 115, 116, 118, 122: found.insert(.author)
                case 55, 60, 62, 63: found.insert(.dates)
                case 90, 92, 95, 100, 101: found.insert(.location)
                case 5, 105: found.insert(.title)
                case 120: found.insert(.comment)
                default: found.insert(.other)
                }
            }
            at += 5 + length
        }
        return found.isEmpty ? .other : found
    }
}

extension WorkingDocuments {
    /// Photoshop: "8BPS", version 1 (PSD) or 2 (PSB), six reserved zero bytes.
    static let psd = FormatEntry(formats: [.psd], recognise: { h in
        h.at(0, "8BPS") && h.b.count >= 12 && [1, 2].contains(Bytes.be(h.b, 4, 2)) && h.b[6..<12].allSatisfy({ $0 == 0 }) ? .psd : nil
    }, rewrite: { r, _ in try MetadataRewrite.psd(r) })
}

/// A GIMP document (XCF) goes as a file, as a PSD does, and loses in place the image parasites that
/// name the sender: Exif (a camera's, GPS with it), GIMP's XMP and metadata, IPTC and the comment. Each
/// keeps its place and length, renamed to `x…` (a parasite GIMP does not know and keeps as it is) with
/// its data zeroed, so no offset moves and layers stay byte for byte. exiftool's sample went with its
/// XMP creator, Exif artist and copyright.
extension MetadataRewrite {
    /// Image parasites (GIMP's `parasites.txt`) that name the sender.
    private static let privateParasites: Set<String> = [
        "exif-data", "jpeg-exif-data", "gimp-metadata", "gimp-image-metadata", "gimp-comment", "iptc-data",
    ]

    /// The rewrite of an XCF's private image parasites, nil when it holds none; a property list that
    /// runs past the file's end is damaged.
    static func xcf(_ r: ByteReader) throws -> MetadataRewrite? {
        let head = try r.exactly(0, 26, "the XCF header")
        guard Bytes.ascii(head, 0, 9) == "gimp xcf ", head[13] == 0 else { return nil }
        let version = Bytes.ascii(head, 9, 4) == "file" ? 0 : Int(Bytes.ascii(head, 10, 3)) ?? 0
        var at = 14 + 12 + (version >= 4 ? 4 : 0)  // width, height, base type, precision
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        for _ in 0..<10_000 {  // a hostile file's property count cannot make the walk long
            let prop = try r.exactly(at, 8, "an XCF image property at byte \(at)")
            let (type, length) = (Bytes.be(prop, 0, 4), Bytes.be(prop, 4, 4))
            if type == 0 { break }  // PROP_END
            let body = (at + 8)..<(at + 8 + length)
            guard body.upperBound <= r.size else {
                throw MediaPrepError(.truncated, "the XCF is cut off inside its image property \(type) at byte \(at)")
            }
            if type == 21 {  // PROP_PARASITES
                var p = body.lowerBound
                while p + 4 <= body.upperBound {
                    let n = Bytes.be(try r.exactly(p, 4, "an XCF parasite's name"), 0, 4)
                    let nameBytes = (p + 4)..<(p + 4 + n)
                    let sizeAt = nameBytes.upperBound + 4
                    guard n > 0, n <= 256, sizeAt + 4 <= body.upperBound else {
                        throw MediaPrepError(.corrupt, "the XCF's parasite at byte \(p) is damaged")
                    }
                    let name = String(decoding: try r.read(nameBytes.lowerBound, n - 1), as: UTF8.self)
                    let data = (sizeAt + 4)..<(sizeAt + 4 + Bytes.be(try r.exactly(sizeAt, 4, "an XCF parasite's size"), 0, 4))
                    guard data.upperBound <= body.upperBound else {
                        throw MediaPrepError(.corrupt, "the XCF's parasite \"\(name)\" runs past its property")
                    }
                    if privateParasites.contains(name) {
                        let sample = try r.read(data.lowerBound, min(data.count, classifiedBytes))
                        switch name {
                        case "exif-data", "jpeg-exif-data":
                            found.formUnion(exifFields(sample.starts(with: Array("Exif\0\0".utf8)) ? sample[6...] : sample[...]))
                        case "iptc-data": found.formUnion(iptcFields(sample))
                        case "gimp-comment": found.insert(.comment)
                        default: found.insert(.xmp)  // GIMP's metadata: XMP, or its own XML of Exif, XMP and IPTC tags
                        }
                        edits.append(((nameBytes.lowerBound..<(nameBytes.upperBound - 1)), [.bytes([UInt8](repeating: 0x78, count: n - 1))]))
                        edits.append((data, [.zeros(data.count)]))
                    }
                    p = data.upperBound
                }
            }
            at = body.upperBound
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }
}

extension WorkingDocuments {
    /// GIMP: "gimp xcf ", a version ("file", "v001"…) and its terminating zero.
    static let xcf = FormatEntry(formats: [.xcf], recognise: { h in h.at(0, "gimp xcf ") && h.b.count >= 14 && h.b[13] == 0 ? .xcf : nil },
                                 rewrite: { r, _ in try MetadataRewrite.xcf(r) })
}

import CPng

/// A picture sent as a file (a long screenshot with `--long-images file`, or one too long for an
/// album) keeps its own bytes and loses what names the sender, as an audio or video file does: a
/// JPEG's Exif (but its orientation), XMP, comments, other APPn segments and whatever follows EOI; a
/// PNG's text, eXIf and tIME chunks and whatever follows IEND; a WebP's EXIF and XMP chunks and
/// whatever follows its RIFF; a GIF's comments and application blocks; HEIC, AVIF, JPEG XL and TIFF
/// as `BoxPictureRewrite` and `TIFFRewrite` say. Colour profiles stay: the picture is shown with them.
extension MetadataRewrite {
    /// Nil when nothing is to go, or the data is not a whole picture of a format rewritten here.
    static func picture(_ data: [UInt8], jpeg: JPEGSource?, orientation: ExifOrientation) -> MetadataRewrite? {
        FormatRegistry.picture(jpeg == nil ? FormatSniffer.sniff(data) : .jpeg)?.rewrite?(data, jpeg, orientation)
    }

    /// A GIF's comments and application blocks but the loop count, and what follows its trailer
    /// (`GIFStripper`); frames byte for byte.
    static func gif(_ data: [UInt8]) -> MetadataRewrite? {
        guard let s = GIFStripper.strip(data), !s.isUnchanged else { return nil }
        return MetadataRewrite(sourceSize: data.count, edits: [(0..<data.count, [.bytes(s.data)])], found: s.found.fields)
    }

    static func jpegOrPNG(_ data: [UInt8], jpeg: JPEGSource?, orientation: ExifOrientation) -> MetadataRewrite? {
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var orientationKept = orientation == .up
        func starts(_ at: Int, _ prefix: String) -> Bool {
            let p = Array(prefix.utf8)
            return at + p.count <= data.count && Array(data[at..<at + p.count]) == p
        }
        if let j = jpeg {
            guard let tail = j.tail else { return nil }
            for s in j.markers.metadataSegments(in: data) + tail.metadataSegments(in: data) {
                let at = s.payload.lowerBound
                if s.marker == 0xE2 && starts(at, "ICC_PROFILE\0") { continue }
                var replacement: [Piece] = []
                if s.marker == 0xE1 && starts(at, "Exif\0\0") {
                    found.formUnion(exifFields(data[(at + 6)..<s.payload.upperBound]))
                    if !orientationKept {
                        let exif = Array("Exif\0\0".utf8) + orientationTIFF(orientation)
                        replacement = [.bytes([0xFF, 0xE1] + Bytes.be32(2 + exif.count).suffix(2) + exif)]
                        orientationKept = true
                    }
                } else {
                    found.insert(s.marker == 0xFE ? .comment : s.marker == 0xE1 && starts(at, "http://ns.adobe.com/xap/") ? .xmp : .other)
                }
                edits.append(((at - 4)..<s.payload.upperBound, replacement))
            }
            if let end = tail.end, end < data.count { edits.append((end..<data.count, [])); found.insert(.other) }
        } else {
            let chunks = PNGChunks.chunks(data)
            guard chunks.first?.type == "IHDR", let last = chunks.last, last.type == "IEND" else { return nil }
            for c in chunks where PNGStripper.metadata.contains(c.type) {
                var replacement: [Piece] = []
                switch c.type {
                case "tIME": found.insert(.dates)
                case "eXIf":
                    found.formUnion(exifFields(data[c.body]))
                    if !orientationKept {
                        let body = Array("eXIf".utf8) + orientationTIFF(orientation)
                        let crc = body.withUnsafeBufferPointer { b in PNGLibrary.zlib.crc32(0, b.baseAddress, UInt32(b.count)) }
                        replacement = [.bytes(Bytes.be32(body.count - 4) + body + Bytes.be32(Int(crc)))]
                        orientationKept = true
                    }
                default:
                    let keyword = String(decoding: data[c.body].prefix { $0 != 0 }.prefix(80), as: UTF8.self)
                    found.insert(textFields[keyword] ?? .other)
                }
                edits.append(((c.body.lowerBound - 8)..<(c.body.upperBound + 4), replacement))
            }
            let end = last.body.upperBound + 4
            if end < data.count { edits.append((end..<data.count, [])); found.insert(.other) }
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: data.count, edits: edits, found: found)
    }

    /// EXIF, XMP and C2PA (Content Credentials) chunks cut, the RIFF size and the VP8X flags saying
    /// so; a WebP shows no Exif orientation (libwebp and browsers ignore it), so none is kept.
    static func webp(_ data: [UInt8]) -> MetadataRewrite? {
        let riffEnd = 8 + Bytes.le(data, 4, 4)
        guard riffEnd <= data.count else { return nil }
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var removed = 0
        for c in WebPChunks.chunks(Array(data[0..<riffEnd])) where ["EXIF", "XMP ", "C2PA"].contains(c.tag) {
            let chunk = (c.body.lowerBound - 8)..<min(riffEnd, c.body.upperBound + (c.body.count & 1))
            let body = data[c.body]
            found.formUnion(c.tag == "XMP " ? .xmp : c.tag == "C2PA" ? .other : exifFields(body.starts(with: Array("Exif\0\0".utf8)) ? body.dropFirst(6) : body))
            edits.append((chunk, []))
            removed += chunk.count
        }
        if removed > 0 {
            edits.append((4..<8, [.bytes(Bytes.le32(riffEnd - 8 - removed))]))
            if Bytes.ascii(data, 12, 4) == "VP8X", data.count > 20 { edits.append((20..<21, [.bytes([data[20] & ~0x0C])])) }
        }
        if riffEnd < data.count { edits.append((riffEnd..<data.count, [])); found.insert(.other) }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: data.count, edits: edits, found: found)
    }

    /// PNG text keywords (PNG specification, 11.3.4.2) and what they say.
    private static let textFields: [String: PrivateFields] = [
        "Title": .title, "Author": .author, "Description": .comment, "Comment": .comment, "Copyright": .author,
        "Creation Time": .dates, "Software": .device, "Source": .device, "XML:com.adobe.xmp": .xmp,
    ]

    /// The IFD0 tags that name the sender, in an Exif block or a TIFF file: GPS, camera and its
    /// software, dates (and the Exif IFD holding them), author, title, and XMP, IPTC and Photoshop
    /// blocks; the title, comment, author, keywords and subject Windows writes when a file's
    /// properties are edited (`XP…`); DNG's camera serial number; a C2PA manifest (Content
    /// Credentials: its claims may carry the signer's name, the camera and the place).
    static let tiffTags: [Int: PrivateFields] = [
        0x010D: .title, 0x010E: .title, 0x011D: .title, 0x010F: .device, 0x0110: .device, 0x0131: .device, 0x013C: .device,
        0x0132: .dates, 0x013B: .author, 0x8298: .author, 0x02BC: .xmp, 0x83BB: .other, 0x8649: .other,
        0x8769: .dates, 0x8825: .location,
        0x9C9B: .title, 0x9C9C: .comment, 0x9C9D: .author, 0x9C9E: .title, 0x9C9F: .title, 0xC62F: .device, 0xCD41: .other,
    ]

    /// What an Exif block's first IFD names (`tiffTags`); anything else is `.other`.
    static func exifFields(_ tiff: ArraySlice<UInt8>) -> PrivateFields {
        guard let r = TIFFReader(tiff), let entries = r.ifd0Entries else { return .other }
        var found: PrivateFields = []
        for e in entries { if let tag = r.u16(e), let field = tiffTags[tag] { found.insert(field) } }
        return found.isEmpty ? .other : found
    }

    /// A big-endian TIFF with one IFD holding one tag, Orientation: what a turned picture needs.
    static func orientationTIFF(_ o: ExifOrientation) -> [UInt8] {
        Array("MM".utf8) + [0, 42] + Bytes.be32(8) + [0, 1] + [0x01, 0x12, 0, 3] + Bytes.be32(1) + [0, UInt8(o.rawValue), 0, 0] + Bytes.be32(0)
    }
}

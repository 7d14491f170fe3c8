/// A PaintShop Pro image (.pspimage) goes as a file, as a PSD does. Its creator block names the
/// artist, the copyright holder, a title and description and the creation and modification dates,
/// and its extended-data block keeps a photo's Exif, GPS with it. exiftool's sample went with
/// "Phil Harvey" and its dates. Those fields' data is zeroed in place (an empty string, a time of
/// zero); every block and field keeps its place and length, so layers stay byte for byte.
extension MetadataRewrite {
    static let pspSignature = Array("Paint Shop Pro Image File\n\u{1A}\0\0\0\0\0".utf8)

    /// Creator fields (PSP's `PSPCreatorFieldID`) that name the sender: title, creation and
    /// modification dates, artist, copyright, description.
    private static let pspCreatorFields: [Int: PrivateFields] = [0: .title, 1: .dates, 2: .dates, 3: .author, 4: .author, 5: .comment]

    /// The rewrite of a PSP file's creator fields and Exif; nil when it holds none. A block or field
    /// that runs past the file's end is a cut file.
    static func psp(_ r: ByteReader) throws -> MetadataRewrite? {
        let head = try r.exactly(0, 36, "the PaintShop Pro header")
        guard Array(head.prefix(32)) == pspSignature else { return nil }
        // Versions after 3 write a 10-byte block header (magic, ID, length); version 3 also an initial length.
        let headerLength = Bytes.le(head, 32, 2) > 3 ? 10 : 14
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var at = 36
        for _ in 0..<100_000 where at + headerLength <= r.size {
            let h = try r.read(at, headerLength)
            guard Bytes.ascii(h, 0, 4) == "~BK\0" else { break }  // what follows the last block is not judged
            let id = Bytes.le(h, 4, 2), length = Bytes.le(h, headerLength - 4, 4)
            let body = (at + headerLength)..<(at + headerLength + length)
            guard body.upperBound <= r.size else {
                throw MediaPrepError(.truncated, "the PaintShop Pro image is cut off inside its block \(id) at byte \(at)")
            }
            if id == 1 || id == 10 {  // creator, extended data
                var p = body.lowerBound
                while p + 10 <= body.upperBound {
                    let f = try r.read(p, 10)
                    guard Bytes.ascii(f, 0, 4) == "~FL\0" else { break }
                    let tag = Bytes.le(f, 4, 2), size = Bytes.le(f, 6, 4)
                    let data = (p + 10)..<(p + 10 + size)
                    guard data.upperBound <= body.upperBound else {
                        throw MediaPrepError(.corrupt, "the PaintShop Pro image's field \(tag) runs past its block")
                    }
                    let field: PrivateFields? = id == 1 ? pspCreatorFields[tag] : tag == 3 ? .other : nil
                    if var field, !data.isEmpty {
                        let sample = try r.read(data.lowerBound, min(data.count, classifiedBytes))
                        if id == 10, sample.starts(with: Array("Exif\0\0".utf8)) { field = exifFields(sample[6...]).union(.other) }
                        if sample.contains(where: { $0 != 0 }) {
                            found.formUnion(field)
                            edits.append((data, [.zeros(data.count)]))
                        }
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
    static let psp = FormatEntry(formats: [.psp], recognise: { h in h.b.count >= 32 && Array(h.b.prefix(32)) == MetadataRewrite.pspSignature ? .psp : nil },
                                 rewrite: { r, _ in try MetadataRewrite.psp(r) })
}

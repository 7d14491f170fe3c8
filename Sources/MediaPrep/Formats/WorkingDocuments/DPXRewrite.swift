/// A DPX frame (a film scanner's or a grading suite's) goes as a file: its 10-bit printing-density
/// pixels are the point. Its fixed header names the file, its creator, project, copyright, the scan's
/// dates and the scanner's model and serial number, and a user-defined block follows; exiftool's sample
/// went with "SPIRIT-4K DATACINE", serial 01018. Those fields are zeroed in place (an empty string to
/// every reader), every other byte as it was.
extension MetadataRewrite {
    /// SMPTE 268M's private text fields: offset, length, what it says.
    private static let dpxFields: [(at: Int, length: Int, field: PrivateFields)] = [
        (36, 100, .title),     // image file name
        (136, 24, .dates),     // creation date and time
        (160, 100, .author),   // creator
        (260, 200, .title),    // project
        (460, 200, .author),   // copyright
        (1432, 100, .title),   // source image file name
        (1532, 24, .dates),    // source date and time
        (1556, 32, .device),   // input device name
        (1588, 32, .device),   // input device serial number
        (1732, 32, .title),    // film: frame identification
        (1764, 100, .title),   // film: slate information
    ]

    /// The rewrite of a DPX file's private header fields and user-defined data; nil when all are
    /// empty. A file shorter than its header, or than where it says its pixels start, is cut off.
    static func dpx(_ r: ByteReader) throws -> MetadataRewrite? {
        let head = try r.exactly(0, 768, "the DPX file header")
        let bigEndian: Bool
        switch Bytes.ascii(head, 0, 4) {
        case "SDPX": bigEndian = true
        case "XPDS": bigEndian = false
        default: return nil
        }
        func u32(_ at: Int) -> Int { bigEndian ? Bytes.be(head, at, 4) : Bytes.le(head, at, 4) }
        let dataOffset = u32(4)
        guard dataOffset <= r.size else {
            throw MediaPrepError(.truncated, "the DPX is cut off: its pixels start at byte \(dataOffset), the file has \(r.size)")
        }
        // The headers end where the pixels start, or where the file ends before them (0: not given).
        let headersEnd = min(r.size, dataOffset >= 768 ? dataOffset : r.size)
        let generic = u32(24), industry = u32(28), userLength = u32(32)
        // The image source and film fields sit where SMPTE 268M puts them only in its own layout.
        let standard = generic == 1664 || generic == 0xFFFF_FFFF
        let industryEnd = standard && industry != 0xFFFF_FFFF ? 1664 + industry : 1664
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        for f in dpxFields {
            let range = f.at..<(f.at + f.length)
            guard range.upperBound <= headersEnd, f.at < 768 || (standard && (f.at < 1664 || range.upperBound <= industryEnd)) else { continue }
            let bytes = try r.read(f.at, f.length)
            if bytes.allSatisfy({ $0 == 0 || $0 == 0xFF }) { continue }  // empty, or "not given"
            found.insert(f.field)
            edits.append((range, [.zeros(f.length)]))
        }
        if standard, userLength > 0, userLength != 0xFFFF_FFFF, industryEnd < headersEnd {
            let user = industryEnd..<min(industryEnd + userLength, headersEnd)
            if !user.isEmpty, try r.read(user.lowerBound, user.count).contains(where: { $0 != 0 }) {
                found.insert(.other)
                edits.append((user, [.zeros(user.count)]))
            }
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }
}

extension WorkingDocuments {
    /// DPX's magic in either byte order, then its version ("V1.0", "V2.0").
    static let dpx = FormatEntry(formats: [.dpx], recognise: { h in (h.at(0, "SDPX") || h.at(0, "XPDS")) && (h.at(8, "V") || h.at(8, "v")) ? .dpx : nil },
                                 rewrite: { r, _ in try MetadataRewrite.dpx(r) })
}

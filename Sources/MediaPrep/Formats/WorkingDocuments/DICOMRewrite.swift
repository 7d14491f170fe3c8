import FoundationEssentials
import Glibc

/// A DICOM file (a scan a patient was handed on a CD, shared with family or a second doctor) goes as a
/// file: no chat client shows it, its viewer needs it whole. Its header names the patient (name, ID,
/// birth date, age, sex, address), the hospital and the doctors, the scan's dates and times and the
/// scanner's station and serial number; exiftool's sample went with patient ID 123456, a 28-year-old
/// woman, the study's date and its operator's initials. Those elements' values become spaces (an
/// empty value to every reader: DICOM pads strings with spaces) wherever they are, in sequences too;
/// their tags, lengths and every other byte, pixels and UIDs, stay.
extension MetadataRewrite {
    /// Elements (group << 16 | element) PS3.15's basic confidentiality profile removes that name the
    /// patient, the staff, the place, the device and the time, and what each says.
    private static let dicomPrivate: [Int: PrivateFields] = [
        0x0010_0010: .author, 0x0010_0020: .author, 0x0010_1000: .author, 0x0010_1001: .author, 0x0010_1060: .author,
        0x0010_1040: .location, 0x0010_2154: .author, 0x0010_0030: .dates, 0x0010_0032: .dates, 0x0010_0040: .other,
        0x0010_1010: .other, 0x0010_1020: .other, 0x0010_1030: .other, 0x0010_2160: .other, 0x0010_21B0: .comment,
        0x0010_4000: .comment, 0x0032_4000: .comment,
        0x0008_0090: .author, 0x0008_0092: .location, 0x0008_0094: .author, 0x0008_1048: .author, 0x0008_1050: .author,
        0x0008_1060: .author, 0x0008_1070: .author, 0x0032_1032: .author, 0x0008_0050: .other, 0x0020_0010: .other,
        0x0008_0080: .location, 0x0008_0081: .location, 0x0008_1040: .location,
        0x0008_1010: .device, 0x0018_1000: .device,
        0x0008_0012: .dates, 0x0008_0013: .dates, 0x0008_0020: .dates, 0x0008_0021: .dates, 0x0008_0022: .dates,
        0x0008_0023: .dates, 0x0008_002A: .dates, 0x0008_0030: .dates, 0x0008_0031: .dates, 0x0008_0032: .dates,
        0x0008_0033: .dates, 0x0018_1012: .dates, 0x0018_1014: .dates,
    ]
    /// Explicit VRs whose length takes 4 bytes after 2 reserved ones.
    private static let longVRs: Set<String> = ["OB", "OW", "OF", "OD", "OL", "OV", "SQ", "UT", "UN", "UC", "UR", "SV", "UV"]

    /// The rewrite of a DICOM file's patient, staff, place, device and time elements; nil when all
    /// are empty. An element past the file's end is a cut file.
    static func dicom(_ r: ByteReader) throws -> MetadataRewrite? {
        guard r.size >= 132, Bytes.ascii(try r.read(128, 4), 0, 4) == "DICM" else { return nil }
        var walk = DICOMWalk(reader: r)
        try walk.elements(132..<r.size, explicit: true, meta: true)
        return walk.edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: walk.edits, found: walk.found)
    }

    private struct DICOMWalk {
        let reader: ByteReader
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var explicitAfterMeta = true
        /// The retired explicit big-endian syntax: tags and lengths of the data set read big-endian.
        var bigEndian = false
        var count = 0

        /// Elements from `range` on, to its end or a delimiter; returns where it stopped.
        @discardableResult
        mutating func elements(_ range: Range<Int>, explicit startExplicit: Bool, meta startMeta: Bool = false, depth: Int = 0) throws -> Int {
            var at = range.lowerBound
            var explicit = startExplicit, meta = startMeta
            while at + 8 <= range.upperBound {
                count += 1
                guard count <= 1_000_000, depth < 16 else { throw MediaPrepError(.corrupt, "the DICOM has too many elements, or nested too deep") }
                let h = try reader.exactly(at, min(12, range.upperBound - at), "a DICOM element at byte \(at)")
                let big = bigEndian && !meta
                func int(_ at: Int, _ n: Int) -> Int { big ? Bytes.be(h, at, n) : Bytes.le(h, at, n) }
                let group = int(0, 2), element = int(2, 2)
                if meta && group != 2 {
                    // The file meta group is explicit little endian; the data set is as its transfer syntax says.
                    (explicit, meta) = (explicitAfterMeta, false)
                    continue
                }
                let tag = group << 16 | element
                if group == 0xFFFE {  // items and delimiters carry no VR
                    let length = int(4, 4)
                    if element == 0xE00D || element == 0xE0DD { return at + 8 }
                    at = try item(at + 8, length: length, explicit: explicit, upTo: range.upperBound, depth: depth)
                    continue
                }
                var vr = "", header = 8, length = int(4, 4)
                if explicit {
                    vr = Bytes.ascii(h, 4, 2)
                    if Self.isLongVR(vr) {
                        guard h.count >= 12 else { throw MediaPrepError(.truncated, "the DICOM is cut off inside an element at byte \(at)") }
                        (header, length) = (12, int(8, 4))
                    } else {
                        length = int(6, 2)
                    }
                }
                let body = at + header
                if length == 0xFFFF_FFFF {
                    // Undefined length: a sequence to its delimiter (UN's is in implicit VR), or encapsulated
                    // pixel data, whose fragments are compressed pictures, stepped over unread.
                    if vr == "SQ" || vr == "UN" || (!explicit && tag != 0x7FE0_0010) {
                        at = try elements(body..<range.upperBound, explicit: explicit && vr != "UN", depth: depth + 1)
                    } else {
                        at = try fragments(body, upTo: range.upperBound, big: big)
                    }
                    continue
                }
                guard body + length <= range.upperBound else {
                    throw MediaPrepError(.truncated, "the DICOM is cut off: element (\(hex(group)),\(hex(element))) at byte \(at) runs past the end")
                }
                if meta && tag == 0x0002_0010 {
                    let syntax = Bytes.ascii(try reader.read(body, min(length, 64)), 0, min(length, 64)).trimming { $0 == "\0" || $0 == " " }
                    if syntax == "1.2.840.10008.1.2.1.99" {
                        throw MediaPrepError(.unsupportedFormat, "a DICOM whose data set is deflated cannot be read for the patient's name")
                    }
                    explicitAfterMeta = syntax != "1.2.840.10008.1.2"
                    bigEndian = syntax == "1.2.840.10008.1.2.2"
                }
                // Implicit VR names no sequence: one is told by its first item's tag.
                let itemTag: [UInt8] = big ? [0xFF, 0xFE, 0xE0, 0x00] : [0xFE, 0xFF, 0x00, 0xE0]
                let sequence = try vr == "SQ" || (!explicit && length >= 8 && reader.read(body, 4) == itemTag)
                if sequence {
                    try elements(body..<(body + length), explicit: explicit, depth: depth + 1)
                } else if let field = MetadataRewrite.dicomPrivate[tag], length > 0 {
                    let value = try reader.read(body, length)
                    if value.contains(where: { $0 != 0x20 && $0 != 0 }) {
                        found.insert(field)
                        edits.append((body..<(body + length), [.bytes([UInt8](repeating: 0x20, count: length))]))
                    }
                }
                at = body + length
            }
            return range.upperBound
        }

        /// One item of a sequence: its elements, walked to its end or delimiter; returns where the next
        /// item starts.
        mutating func item(_ body: Int, length: Int, explicit: Bool, upTo end: Int, depth: Int) throws -> Int {
            if length == 0xFFFF_FFFF { return try elements(body..<end, explicit: explicit, depth: depth + 1) }
            guard body + length <= end else { throw MediaPrepError(.truncated, "the DICOM is cut off inside an item at byte \(body - 8)") }
            try elements(body..<(body + length), explicit: explicit, depth: depth + 1)
            return body + length
        }

        /// Encapsulated pixel data's items (an offset table, then the compressed fragments) to the
        /// sequence delimiter; returns where it ends.
        mutating func fragments(_ from: Int, upTo end: Int, big: Bool) throws -> Int {
            var at = from
            while at + 8 <= end {
                count += 1
                guard count <= 1_000_000 else { throw MediaPrepError(.corrupt, "the DICOM has too many pixel fragments") }
                let h = try reader.exactly(at, 8, "a pixel data item at byte \(at)")
                func int(_ i: Int, _ n: Int) -> Int { big ? Bytes.be(h, i, n) : Bytes.le(h, i, n) }
                guard int(0, 2) == 0xFFFE else { throw MediaPrepError(.corrupt, "the DICOM's encapsulated pixel data has no item at byte \(at)") }
                if int(2, 2) == 0xE0DD { return at + 8 }
                let length = int(4, 4)
                guard length != 0xFFFF_FFFF, at + 8 + length <= end else {
                    throw MediaPrepError(.truncated, "the DICOM is cut off inside its pixel data at byte \(at)")
                }
                at += 8 + length
            }
            throw MediaPrepError(.truncated, "the DICOM is cut off inside its pixel data")
        }

        private func hex(_ v: Int) -> String { String(v, radix: 16, uppercase: true).leftPadded(4) }

        private static func isLongVR(_ vr: String) -> Bool { MetadataRewrite.longVRs.contains(vr) }
    }
}

extension WorkingDocuments {
    /// DICOM: a 128-byte preamble, then "DICM" (past the 64 bytes the magics above look at).
    static let dicom = FormatEntry(formats: [.dicom], recognise: { h in h.data.count >= 132 && h.data[128..<132].elementsEqual("DICM".utf8) ? .dicom : nil },
                                   rewrite: { r, _ in try MetadataRewrite.dicom(r) })
}

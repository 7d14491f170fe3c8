/// An OpenEXR image (a renderer's, a VFX plate, an HDR photo merged on a desktop) goes as a file, as a
/// PSD does: its value is its floating-point pixels. Its header carries standard attributes that name
/// the sender (owner, comments, capDate, utcOffset, latitude, longitude, altitude, the camera and lens
/// attributes of OpenEXR 3.2) and whatever a program adds: Blender's render writes the `.blend`
/// file's path, Nuke its script's. Every attribute that does not shape the picture is renamed in place
/// (a name of the same length, its type renamed too, so every reader keeps it as opaque bytes) and its
/// value zeroed: no offset moves, pixels stay byte for byte.
extension MetadataRewrite {
    /// The attributes a reader needs to lay out and show the pixels (OpenEXR's "required" and
    /// "standard" image attributes that are about the image, multi-part's, deep's, and colour's).
    private static let exrImageAttributes: Set<String> = [
        "channels", "compression", "dataWindow", "displayWindow", "lineOrder", "pixelAspectRatio",
        "screenWindowCenter", "screenWindowWidth", "tiles", "name", "type", "version", "chunkCount",
        "maxSamplesPerPixel", "view", "multiView", "chromaticities", "whiteLuminance", "adoptedNeutral",
        "xDensity", "envmap", "wrapmodes", "dwaCompressionLevel", "deepImageState", "originalDataWindow",
        "renderingTransform", "lookModTransform",
    ]

    /// What each private standard attribute says, for `check`; any other unknown attribute is "other".
    private static func exrField(_ name: String) -> PrivateFields {
        switch name {
        case "owner": return .author
        case "comments": return .comment
        case "capDate", "utcOffset": return .dates
        case "latitude", "longitude", "altitude": return .location
        case _ where name.hasPrefix("camera") || name.hasPrefix("lens"): return .device
        default: return .other
        }
    }

    /// The rewrite of an OpenEXR file's header attributes that are not about the image; nil when it
    /// holds none. A header that runs past the file's end is damaged.
    static func exr(_ r: ByteReader) throws -> MetadataRewrite? {
        let head = try r.exactly(0, 8, "the OpenEXR header")
        guard head[0] == 0x76, head[1] == 0x2F, head[2] == 0x31, head[3] == 0x01 else { return nil }
        let multipart = head[5] & 0x10 != 0
        let nameLimit = 255  // 31 unless the long-names flag is set; a longer one is not refused here
        var at = 8
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var renamed: [Int: Int] = [:]  // names given, by length
        var count = 0
        var rows: Int? = nil, linesPerChunk: Int? = nil  // the first part's, for its offset table
        headers: for _ in 0..<(multipart ? 10_000 : 1) {
            if multipart, try r.exactly(at, 1, "an OpenEXR part's header")[0] == 0 { break }  // the empty header ends the list
            while true {
                count += 1
                guard count <= 100_000 else { throw MediaPrepError(.corrupt, "the OpenEXR header has too many attributes") }
                let name = try cString(r, at: at, limit: nameLimit, what: "an OpenEXR attribute's name")
                if name.isEmpty { at += 1; continue headers }  // this header's end
                let typeAt = at + name.count + 1
                let type = try cString(r, at: typeAt, limit: nameLimit, what: "the type of OpenEXR attribute \"\(String(decoding: name, as: UTF8.self))\"")
                let sizeAt = typeAt + type.count + 1
                let size = Bytes.le(try r.exactly(sizeAt, 4, "an OpenEXR attribute's size"), 0, 4)
                let value = (sizeAt + 4)..<(sizeAt + 4 + size)
                guard !type.isEmpty, size < 1 << 31, value.upperBound <= r.size else {
                    throw MediaPrepError(.truncated, "the OpenEXR header is cut off inside its attribute at byte \(at)")
                }
                let text = String(decoding: name, as: UTF8.self)
                if text == "dataWindow", size == 16, rows == nil {
                    let box = try r.read(value.lowerBound, 16)
                    rows = Int(Int32(truncatingIfNeeded: Bytes.le(box, 12, 4))) - Int(Int32(truncatingIfNeeded: Bytes.le(box, 4, 4))) + 1
                } else if text == "compression", size == 1, linesPerChunk == nil {
                    linesPerChunk = [0: 1, 1: 1, 2: 1, 3: 16, 4: 32, 5: 16, 6: 32, 7: 32, 8: 32, 9: 256][Int(try r.read(value.lowerBound, 1)[0])]
                }
                if !exrImageAttributes.contains(text) {
                    found.insert(exrField(text))
                    let n = renamed[name.count, default: 0]
                    renamed[name.count] = n + 1
                    edits.append((at..<(at + name.count), [.bytes(placeholder(n, length: name.count))]))
                    edits.append((typeAt..<(typeAt + type.count), [.bytes([UInt8](repeating: 0x78, count: type.count))]))
                    if size > 0 { edits.append((value, [.zeros(size)])) }
                }
                at = value.upperBound
            }
        }
        try exrChunksWithin(r, tableAt: at, chunks: !multipart && head[5] & 0x0A == 0 ? rows.flatMap { n in linesPerChunk.map { (n + $0 - 1) / $0 } } : nil)
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    /// A file cut inside its pixels: the offset table after the header points past the file's end.
    /// A single-part scan-line file's table is read whole (its length follows from the data window and
    /// the compression's lines a chunk); any other's first entry only.
    private static func exrChunksWithin(_ r: ByteReader, tableAt: Int, chunks: Int?) throws {
        let n = max(1, min(chunks ?? 1, 1 << 20))
        let table = try r.exactly(tableAt, 8 * n, "the OpenEXR offset table")
        for i in 0..<n {
            let offset = Bytes.le(table, 8 * i, 8)
            guard offset >= tableAt + 8 * n, offset < r.size else {
                throw MediaPrepError(.truncated, "the OpenEXR is cut off: its chunk \(i) starts at byte \(offset), the file has \(r.size)")
            }
        }
    }

    /// A NUL-terminated name of at most `limit` bytes starting at `at` (without its NUL).
    private static func cString(_ r: ByteReader, at: Int, limit: Int, what: @autoclosure () -> String) throws -> [UInt8] {
        let window = try r.read(at, min(limit + 1, max(0, r.size - at)))
        guard let end = window.firstIndex(of: 0) else {
            throw window.count <= limit ? MediaPrepError(.truncated, "the file is cut off inside \(what())")
                : MediaPrepError(.corrupt, "\(what()) is longer than \(limit) bytes")
        }
        return Array(window[..<end])
    }

    /// The `n`-th name of `length` bytes given to a renamed attribute: `x…x` then its number, so two
    /// renamed ones never share a name (a reader would take the second for the first).
    static func placeholder(_ n: Int, length: Int) -> [UInt8] {
        let digits = n == 0 ? [] : Array(String(n, radix: 36).utf8)
        guard digits.count < length else { return Array(Array(String(n % 36, radix: 36).utf8).suffix(length)) }
        return [UInt8](repeating: 0x78, count: length - digits.count) + digits
    }
}

extension WorkingDocuments {
    /// OpenEXR's magic and version 2.
    static let exr = FormatEntry(formats: [.exr], recognise: { h in h.starts([0x76, 0x2F, 0x31, 0x01]) && h.b.count >= 8 && h.b[4] == 2 ? .exr : nil },
                                 rewrite: { r, _ in try MetadataRewrite.exr(r) })
}

/// A smart object's file in a Photoshop document: embedded (`liFD`, the placed photo itself, its
/// camera's Exif and GPS with it) or linked (`liFE`, whose descriptor names where it lay on the
/// sender's disk: `file:///Macintosh HD/Users/jane/…`). psd-tools' placedLayer.psd went out with
/// `/Users/Joey/…` after its XMP was emptied. Both now lose that in place: an embedded picture is
/// stripped as a picture sent as a file is and padded back to its length, an embedded PSD is
/// rewritten as this one is, a link keeps its file name with every folder before it turned into
/// separators, and a macOS alias or path record is zeroed (the link would not resolve on the
/// recipient's disk anyway). Each layer's last-changed time (`layerTime`) becomes zero. Every length
/// stays, so Photoshop reads the file as before.
extension MetadataRewrite {
    /// Global layer blocks that hold linked files (Photoshop File Formats Specification, "Linked
    /// Layer"; `lnkE` the links to files on disk).
    private static let linkedKeys: Set<String> = ["lnk2", "lnkD", "lnk3", "lnkE"]
    /// Blocks a PSB gives an 8-byte length (psd-tools' `_BIG_KEYS`).
    private static let psbLongKeys: Set<String> = [
        "LMsk", "Lr16", "Lr32", "Layr", "Mt16", "Mt32", "Mtrn", "Alph", "FMsk", "lnk2", "lnk3", "lnkE", "FXid", "FEid", "FELS",
        "PxSD", "pths", "extd", "extn", "cinf", "artd",
    ]
    /// Descriptor strings that hold a linked file's path.
    static let linkPathKeys: Set<String> = ["fullPath", "originalPath", "relPath"]
    /// An embedded file up to this size is read to be stripped; a larger one stays as it is.
    static let maxEmbeddedBytes = 256 << 20
    /// A record's header and descriptors (before its data) are read whole up to this.
    private static let maxRecordHeader = 16 << 20

    /// The edits that clear the layer and mask section starting at `at`: its linked files, and each
    /// layer's time; `psb` for the large document format's 8-byte lengths. A record past its block,
    /// or a descriptor that cannot be read, is damage: what it names could not be found to go.
    static func psdLayerSection(_ r: ByteReader, sectionAt at: Int, psb: Bool, depth: Int = 0) throws -> (edits: [(Range<Int>, [Piece])], found: PrivateFields) {
        func damaged(_ what: String) -> MediaPrepError { MediaPrepError(.corrupt, "the PSD's \(what) is damaged") }
        let width = psb ? 8 : 4
        guard at + width <= r.size else { return ([], []) }  // no layer section: nothing linked
        let section = (at + width)..<(at + width + Bytes.be(try r.exactly(at, width, "the PSD's layer section length"), 0, width))
        guard section.upperBound <= r.size else { throw MediaPrepError(.truncated, "the PSD is cut off inside its layers") }
        guard section.count >= width + 4 else { return ([], []) }
        let layers = Bytes.be(try r.exactly(section.lowerBound, width, "the PSD's layer info length"), 0, width)
        let maskAt = section.lowerBound + width + layers
        guard maskAt + 4 <= section.upperBound else { return ([], []) }
        var times = try layerTimes(r, (section.lowerBound + width)..<maskAt, psb: psb)
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        var block = maskAt + 4 + Bytes.be(try r.exactly(maskAt, 4, "the PSD's layer mask length"), 0, 4)
        var count = 0
        while let (key, body) = try layerBlock(r, at: block, end: section.upperBound, psb: psb) {
            count += 1
            guard count <= maxPSDResources else { throw damaged("layer section") }
            if ["Lr16", "Lr32", "Layr"].contains(key) {
                // A 16- or 32-bit document's layers: its layer info, in a block of its own.
                times += try layerTimes(r, body, psb: psb)
            } else if linkedKeys.contains(key) {
                var record = body.lowerBound
                while record + 8 <= body.upperBound {
                    let length = Bytes.be(try r.exactly(record, 8, "a linked file's length"), 0, 8)
                    guard length >= 0, length <= body.upperBound - record - 8 else { throw damaged("linked file at byte \(record)") }
                    let (e, f) = try linkedFile(r, (record + 8)..<(record + 8 + length), depth: depth)
                    edits += e
                    found.formUnion(f)
                    record += 8 + (length + 3) & ~3
                }
            }
            block = body.lowerBound + (body.count + 3) & ~3  // the document's blocks are padded to 4
        }
        if !times.isEmpty { found.insert(.dates) }
        return (times + edits, found)
    }

    /// The layer block (`8BIM` or `8B64`, a key, a length) at `at`, its key and body; nil where none
    /// starts (the end, or padding after the last). One past `end` is damage.
    private static func layerBlock(_ r: ByteReader, at: Int, end: Int, psb: Bool) throws -> (key: String, body: Range<Int>)? {
        guard at + 12 <= end else { return nil }
        let h = try r.exactly(at, 12, "a PSD layer block")
        guard ["8BIM", "8B64"].contains(Bytes.ascii(h, 0, 4)) else { return nil }
        let key = Bytes.ascii(h, 4, 4), long = psb && psbLongKeys.contains(key)
        let lengthBytes = try r.exactly(at + 8, long ? 8 : 4, "a PSD layer block's length")
        let body = (at + 8 + lengthBytes.count)..<(at + 8 + lengthBytes.count + Bytes.be(lengthBytes, 0, lengthBytes.count))
        guard body.upperBound <= end else { throw MediaPrepError(.corrupt, "the PSD's layer block '\(key)' is damaged") }
        return (key, body)
    }

    /// Each layer record's own blocks (psd-tools' `LayerRecord`: bounds, channels, blend mode, then
    /// mask data, blending ranges, a name padded to 4 and the blocks): a metadata setting (`shmd`)'s
    /// `cust` descriptor holds when the layer was last changed (`layerTime`), which becomes zero.
    /// 236 of psd-tools' 273 test documents carry one.
    private static func layerTimes(_ r: ByteReader, _ info: Range<Int>, psb: Bool) throws -> [(Range<Int>, [Piece])] {
        func damaged() -> MediaPrepError { MediaPrepError(.corrupt, "the PSD's layer records are damaged") }
        guard info.count >= 2 else { return [] }
        let count = abs(Int(Int16(truncatingIfNeeded: Bytes.be(try r.exactly(info.lowerBound, 2, "the PSD's layer count"), 0, 2))))
        var edits: [(Range<Int>, [Piece])] = []
        var at = info.lowerBound + 2
        for _ in 0..<count {
            let channels = Bytes.be(try r.exactly(at + 16, 2, "a PSD layer record"), 0, 2)
            at += 18 + channels * (psb ? 10 : 6) + 12  // bounds, channels; signature, blend mode, opacity, clipping, flags, filler
            let extra = (at + 4)..<(at + 4 + Bytes.be(try r.exactly(at, 4, "a PSD layer record"), 0, 4))
            guard extra.upperBound <= info.upperBound else { throw damaged() }
            var p = extra.lowerBound
            for _ in 0..<2 { p += 4 + Bytes.be(try r.exactly(p, 4, "a PSD layer record"), 0, 4) }  // mask data, blending ranges
            guard p < extra.upperBound else { throw damaged() }
            p += (1 + Int(try r.exactly(p, 1, "a PSD layer's name")[0]) + 3) & ~3
            while let (key, body) = try layerBlock(r, at: p, end: extra.upperBound, psb: psb) {
                if key == "shmd" { edits += try layerMetadata(r, body) }
                p = body.upperBound  // a layer's blocks are not padded
            }
            at = extra.upperBound
        }
        return edits
    }

    /// A metadata setting's items (signature, key, copy flag and 3 bytes, length, data): the `cust`
    /// item's descriptor, read for its `layerTime`.
    private static func layerMetadata(_ r: ByteReader, _ body: Range<Int>) throws -> [(Range<Int>, [Piece])] {
        guard body.count >= 4 else { return [] }
        let count = Bytes.be(try r.exactly(body.lowerBound, 4, "a PSD layer's metadata"), 0, 4)
        var edits: [(Range<Int>, [Piece])] = []
        var p = body.lowerBound + 4
        for _ in 0..<min(count, maxPSDResources) {
            guard p + 16 <= body.upperBound else { break }
            let h = try r.exactly(p, 16, "a PSD layer's metadata item")
            let data = (p + 16)..<(p + 16 + Bytes.be(h, 12, 4))
            guard data.upperBound <= body.upperBound else { throw MediaPrepError(.corrupt, "the PSD's layer metadata is damaged") }
            if Bytes.ascii(h, 4, 4) == "cust", data.count >= 4, data.count <= classifiedBytes {
                var c = DescriptorCursor(try r.read(data.lowerBound, data.count))
                try c.skip(4)  // its version
                edits += try c.descriptor().map { ((data.lowerBound + $0.0.lowerBound)..<(data.lowerBound + $0.0.upperBound), $0.1) }
            }
            p = data.upperBound
        }
        return edits
    }

    /// One linked file's record (psd-tools' `LinkedLayer`): kind, version, ID, file name, type,
    /// creator, data size, an optional descriptor; a link's descriptor, times and size; the data;
    /// from version 5 a child ID, 6 a time, 7 a lock.
    private static func linkedFile(_ r: ByteReader, _ record: Range<Int>, depth: Int) throws -> (edits: [(Range<Int>, [Piece])], found: PrivateFields) {
        func damaged() -> MediaPrepError { MediaPrepError(.corrupt, "the PSD's linked file at byte \(record.lowerBound) is damaged") }
        let head = try r.read(record.lowerBound, min(record.count, maxRecordHeader))
        var c = DescriptorCursor(head)
        let kind = try c.ascii(4), version = try c.int(4)
        guard ["liFD", "liFE", "liFA"].contains(kind), (1...8).contains(version) else { throw damaged() }
        try c.skip(try c.int(1))  // the ID, a Pascal string
        try c.skip(2 * (try c.int(4)))  // the file name, kept: a layer's own name
        try c.skip(8)  // type and creator
        let dataSize = try c.int(8)
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        func descriptorBlock() throws {
            try c.skip(4)  // its version
            for (range, what) in try c.descriptor() {
                edits.append(((record.lowerBound + range.lowerBound)..<(record.lowerBound + range.upperBound), what))
                found.insert(.other)
            }
        }
        if try c.int(1) != 0 { try descriptorBlock() }  // the open file's descriptor
        if kind == "liFE" { try descriptorBlock() }  // the link: where the file was
        // The data lies last but for the tail versions 5–7 add after it (a child ID of 4 + 2n bytes, 8, 1).
        guard dataSize > 0, dataSize <= record.count, kind != "liFA" else { return (edits, found) }
        let fixed = (version >= 6 ? 8 : 0) + (version >= 7 ? 1 : 0)
        var dataEnd: Int? = version >= 5 ? nil : record.upperBound - fixed
        if version >= 5 {
            for n in 0...4096 {
                let end = record.upperBound - fixed - 4 - 2 * n
                guard end - dataSize >= record.lowerBound + c.at else { break }
                if Bytes.be(try r.exactly(end, 4, "a linked file's child ID"), 0, 4) == n { dataEnd = end; break }
            }
        }
        guard let end = dataEnd, end - dataSize >= record.lowerBound + c.at else { throw damaged() }
        let data = (end - dataSize)..<end
        if let (pieces, f) = try embeddedStripped(r, data, depth: depth) {
            edits.append((data, pieces))
            found.formUnion(f)
        }
        return (edits, found)
    }

    /// The pieces (offsets in the file) of the embedded file at `data` without what names its sender,
    /// at its own length; nil when nothing goes, or it is of a kind not rewritten here or too large.
    private static func embeddedStripped(_ r: ByteReader, _ data: Range<Int>, depth: Int) throws -> (pieces: [Piece], found: PrivateFields)? {
        let inner = r.slice(data)
        let format = FormatSniffer.sniff(try inner.read(0, 4096))
        if format == .psd {
            // Rewritten in place as this one is, read where it lies.
            guard depth < 4, let rewrite = try psd(inner, depth: depth + 1) else { return nil }
            return (rewrite.pieces(at: data.lowerBound), rewrite.found)
        }
        guard data.count <= maxEmbeddedBytes, [.jpeg, .png, .gif, .heic, .avif, .jxl, .tiff].contains(format) else { return nil }
        let bytes = try inner.read(0, data.count)
        let jpeg = format == .jpeg ? try? JPEGSource(bytes, isWhole: true) : nil
        guard let rewrite = picture(bytes, jpeg: jpeg, orientation: jpeg?.orientation ?? .up) else { return nil }
        let pad = bytes.count - rewrite.outputSize
        // Padded back to its length: after a JPEG's EOI, a PNG's IEND, a GIF's trailer or a TIFF's
        // directories nothing is read; an ISO file (HEIC, AVIF, JPEG XL) gets a `free` box, when there is room for one.
        let isISO = [.heic, .avif, .jxl].contains(format)
        guard pad >= 0, !isISO || pad == 0 || pad >= 8 else { return nil }  // no padding every reader skips: kept
        let padding: [Piece] = isISO && pad >= 8 ? [.bytes(MP4MetadataStripper.freeHeader(pad, header: 8)), .zeros(pad - 8)] : pad > 0 ? [.zeros(pad)] : []
        return (rewrite.pieces(at: data.lowerBound) + padding, rewrite.found)
    }
}

/// Reads a linked file's record and its Photoshop descriptors (psd-tools' `descriptor.py`; the
/// specification's "Descriptor structure"), finding the values that say where a file was.
struct DescriptorCursor {
    let b: [UInt8]
    var at = 0
    init(_ b: [UInt8]) { self.b = b }

    private static func damaged() -> MediaPrepError { MediaPrepError(.corrupt, "a PSD descriptor is damaged") }

    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= b.count - at else { throw Self.damaged() }
        at += n
    }
    mutating func int(_ n: Int) throws -> Int {
        guard n <= b.count - at else { throw Self.damaged() }
        defer { at += n }
        return Bytes.be(b, at, n)
    }
    mutating func ascii(_ n: Int) throws -> String {
        guard n <= b.count - at else { throw Self.damaged() }
        defer { at += n }
        return Bytes.ascii(b, at, n)
    }
    /// A key or class ID: a length and that many bytes, or 0 and four.
    mutating func id() throws -> String {
        let n = try int(4)
        guard n <= 1024 else { throw Self.damaged() }
        return try ascii(n == 0 ? 4 : n)
    }
    mutating func unicode() throws { try skip(2 * (try int(4))) }

    /// A descriptor (name, class, items): the edits that clear its paths, at offsets into `b`.
    mutating func descriptor(depth: Int = 0) throws -> [(Range<Int>, [MetadataRewrite.Piece])] {
        guard depth < 32 else { throw Self.damaged() }
        try unicode()
        _ = try id()
        let count = try int(4)
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        for _ in 0..<count {
            let key = try id()
            edits += try value(try ascii(4), key: key, depth: depth)
        }
        return edits
    }

    private mutating func value(_ type: String, key: String, depth: Int) throws -> [(Range<Int>, [MetadataRewrite.Piece])] {
        switch type {
        case "Objc", "GlbO": return try descriptor(depth: depth + 1)
        case "ObAr": try skip(4); return try descriptor(depth: depth + 1)
        case "VlLs", "obj ":
            let count = try int(4)
            var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
            for _ in 0..<count { edits += try value(try ascii(4), key: key, depth: depth + 1) }
            return edits
        case "doub" where key == "layerTime":
            // When a layer was last changed, in seconds since 1970: zero, the same length.
            let start = at
            try skip(8)
            return [(start..<at, [.zeros(8)])]
        case "doub", "comp": try skip(8)
        case "UntF": try skip(12)
        case "UnFl": try skip(4); try skip(8 * (try int(4)))
        case "long", "Idnt", "indx": try skip(4)
        case "bool": try skip(1)
        case "enum": _ = try id(); _ = try id()
        case "type", "GlbC", "Clss": try unicode(); _ = try id()
        case "prop": try unicode(); _ = try id(); _ = try id()
        case "Enmr": try unicode(); _ = try id(); _ = try id(); _ = try id()
        case "rele": try unicode(); _ = try id(); try skip(4)
        case "name": try unicode(); _ = try id(); try unicode()
        case "TEXT":
            let n = try int(4), start = at
            try skip(2 * n)
            guard MetadataRewrite.linkPathKeys.contains(key), let cleared = Self.folderless(Array(b[start..<at])) else { return [] }
            return [(start..<at, [.bytes(cleared)])]
        case "alis", "Pth ", "tdta":
            let n = try int(4), start = at
            try skip(n)
            // An alias or path record names the folders; raw data under another key is something else.
            guard type != "tdta" || MetadataRewrite.linkPathKeys.contains(key), n > 0 else { return [] }
            return [(start..<at, [.zeros(n)])]
        default: throw Self.damaged()
        }
        return []
    }

    /// A UTF-16BE path with every character before its last separator turned into that separator:
    /// `/Users/jane/a.png` → `///////////a.png`, the same length and still the file's name; nil when
    /// it has no folder in it.
    static func folderless(_ utf16: [UInt8]) -> [UInt8]? {
        let units = stride(from: 0, to: utf16.count - 1, by: 2).map { UInt16(utf16[$0]) << 8 | UInt16(utf16[$0 + 1]) }
        guard let last = units.lastIndex(where: { $0 == 0x2F || $0 == 0x5C || $0 == 0x3A }), last > 0 else { return nil }
        let separator = units[last]
        let out = units.enumerated().map { $0.offset < last ? separator : $0.element }
        guard out != units else { return nil }
        return out.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + (utf16.count % 2 == 1 ? [utf16[utf16.count - 1]] : [])
    }
}

import FoundationEssentials
import Glibc

/// An SVG goes as a file (a drawing, a logo, a diagram). Inkscape writes the document's own name and
/// the absolute path it was last exported to (`/home/jane/…`) into its root, a linked photo's path
/// into the `<image>`, and its `<metadata>` names the creator and the date; an embedded photo keeps
/// its camera's Exif, GPS with it, inside its base64. Each is emptied in place: element content and
/// attribute values become spaces (line breaks kept, so a line number still points where it did),
/// an embedded picture is stripped as a picture sent as a file is (`MetadataRewrite.picture`) and its
/// base64, shorter now, padded with spaces, which data URLs ignore. The file keeps its length.
extension MetadataRewrite {
    /// SVGs up to this size are read whole to be cleaned; a larger one is refused, not sent unread.
    static let maxSVGBytes = 128 << 20

    /// Attributes (qualified names) that name a file on the sender's disk.
    private static let svgPathAttributes: Set<String> = [
        "sodipodi:docname", "sodipodi:absref", "inkscape:export-filename", "inkscape:dataloss",
    ]

    /// The rewrite of an SVG's metadata, editor paths and embedded pictures' metadata; nil when it has none.
    static func svg(_ r: ByteReader) throws -> MetadataRewrite? {
        guard r.size <= maxSVGBytes else {
            throw MediaPrepError(.tooLarge, "an SVG over \(maxSVGBytes >> 20) MiB is not read for the names and places it may hold")
        }
        let d = try r.read(0, r.size)
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        func blank(_ range: Range<Int>) {
            guard !range.isEmpty, d[range].contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return }
            edits.append((range, [.bytes(d[range].map { $0 == 0x0A || $0 == 0x0D ? $0 : 0x20 })]))
        }
        // An attribute's value made empty: its closing quote moved up, spaces after it (white space
        // between attributes), so a renderer sees no link rather than a link to "   ".
        func empty(_ value: Range<Int>) {
            guard !value.isEmpty, value.lowerBound > 0 else { return }
            edits.append((value.lowerBound..<(value.upperBound + 1), [.bytes([d[value.lowerBound - 1]] + d[value].map { $0 == 0x0A || $0 == 0x0D ? $0 : 0x20 })]))
        }
        var tags = SVGTags(d)
        var privateDepth = 0, privateFrom = 0  // inside <metadata> (or Illustrator's private data): its depth, where its content starts
        while let tag = tags.next() {
            if privateDepth > 0 {
                privateDepth += tag.closing ? -1 : tag.selfClosing ? 0 : 1
                if privateDepth == 0 {
                    let content = privateFrom..<tag.range.lowerBound
                    for (needle, field) in [("creator", PrivateFields.author), ("rights", .author), ("publisher", .author), ("date", .dates), ("title", .title)]
                    where Bytes.contains(Array(d[content]), needle) { found.insert(field) }
                    found.insert(.xmp)
                    blank(content)
                }
                continue
            }
            if tag.closing { continue }
            let local = tag.name.split(separator: ":").last.map(String.init) ?? tag.name
            if !tag.selfClosing, local == "metadata" || tag.name == "i:pgf" {
                privateDepth = 1
                privateFrom = tag.range.upperBound
                continue
            }
            for a in tag.attributes {
                if svgPathAttributes.contains(a.name) {
                    found.insert(.other)
                    empty(a.value)
                } else if a.name == "href" || a.name.hasSuffix(":href") {
                    let value = d[a.value]
                    if value.starts(with: Array("data:".utf8)) {
                        if let (replacement, fields) = strippedDataURL(Array(value)) {
                            found.formUnion(fields)
                            edits.append((a.value, [.bytes(replacement)]))
                        }
                    } else if isLocalPath(Array(value)) {
                        found.insert(.other)
                        empty(a.value)
                    }
                }
            }
        }
        // Comments: what an editor or an author wrote there (a generator line, an address, a device)
        // is no part of the drawing; each becomes white space, delimiters and all.
        for comment in tags.comments where d[(comment.lowerBound + 4)..<(comment.upperBound - 3)].contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            found.insert(.comment)
            edits.append((comment, [.bytes(d[comment].map { $0 == 0x0A || $0 == 0x0D ? $0 : 0x20 })]))
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found)
    }

    /// An SVGZ (an SVG compressed with gzip, as Inkscape saves it): the drawing inside cleaned as an SVG
    /// is, and compressed again, the gzip header's original file name, comment and time gone with it.
    static func svgz(_ r: ByteReader) throws -> MetadataRewrite? {
        guard r.size <= maxSVGBytes else {
            throw MediaPrepError(.tooLarge, "an SVGZ over \(maxSVGBytes >> 20) MiB is not read for the names and places it may hold")
        }
        let packed = try r.read(0, r.size)
        let drawing = try Gzip.inflate(packed, limit: maxSVGBytes)
        return try recompressed(packed, drawing, inner: try svg(ByteReader(drawing)), level: 9)
    }

    /// A gzip file whose content `inner` cleans (nil: nothing inside to take out), compressed again at
    /// `level` without the gzip header's original name, comment and time; nil when nothing goes.
    static func recompressed(_ packed: [UInt8], _ content: [UInt8], inner: MetadataRewrite?, level: Int32) throws -> MetadataRewrite? {
        // FLG's FEXTRA, FNAME and FCOMMENT bits, and MTIME.
        let header = packed.count >= 10 && (packed[3] & 0x1C != 0 || packed[4..<8].contains { $0 != 0 })
        guard inner != nil || header else { return nil }
        var found = inner?.found ?? []
        if header { found.formUnion(packed[4..<8].contains { $0 != 0 } ? [.dates, .other] : .other) }
        let cleaned = try Gzip.compress(inner?.applied(to: content) ?? content, level: level)
        var r = MetadataRewrite(sourceSize: packed.count, edits: [(0..<packed.count, [.bytes(cleaned)])], found: found)
        r.cleanedParts = inner?.cleanedParts ?? 0
        return r
    }

    /// A link to a file on the sender's disk (`/home/…`, `file:…`, `C:\…`, `~/…`): its path names them.
    private static func isLocalPath(_ v: [UInt8]) -> Bool {
        let text = String(decoding: v.prefix(8), as: UTF8.self).lowercased()
        return text.hasPrefix("/") || text.hasPrefix("\\") || text.hasPrefix("file:") || text.hasPrefix("~")
            || (v.count > 2 && v[1] == 0x3A && (v[2] == 0x5C || v[2] == 0x2F) && (0x61...0x7A).contains(v[0] | 0x20))
    }

    /// A `data:image/…;base64,` URL whose picture loses its metadata: the same URL with the stripped
    /// picture's base64, padded with spaces to its length; nil when nothing goes or it cannot be read.
    private static func strippedDataURL(_ url: [UInt8]) -> ([UInt8], PrivateFields)? {
        guard let comma = url.firstIndex(of: 0x2C), comma < 100,
              String(decoding: url[..<comma], as: UTF8.self).lowercased().hasSuffix(";base64") else { return nil }
        // White space, and line breaks written as character references (`&#10;`), are no part of the base64.
        var text: [UInt8] = []
        text.reserveCapacity(url.count - comma)
        var i = comma + 1
        while i < url.count {
            let c = url[i]
            if c == 0x26, let semicolon = url[i..<min(url.count, i + 8)].firstIndex(of: 0x3B) { i = semicolon + 1; continue }
            if !(c == 0x20 || (0x09...0x0D).contains(c)) { text.append(c) }
            i += 1
        }
        guard let decoded = Data(base64Encoded: Data(text)) else { return nil }
        let bytes = [UInt8](decoded)
        let jpeg = try? JPEGSource(bytes, isWhole: true)
        guard let rewrite = picture(bytes, jpeg: jpeg, orientation: jpeg?.orientation ?? .up) else { return nil }
        let stripped = rewrite.applied(to: bytes)
        let encoded = Array(url[...comma]) + Array(Base64.encode(stripped).utf8)
        guard encoded.count <= url.count else { return nil }  // stripping never grows a picture; if it did, keep it
        return (encoded + [UInt8](repeating: 0x20, count: url.count - encoded.count), rewrite.found)
    }
}

/// The tags of an XML document in order, comments, CDATA, processing instructions and the DOCTYPE
/// skipped; each with its name, its byte range and its attributes' value ranges (inside the quotes).
struct SVGTags {
    struct Tag {
        var name: String
        var range: Range<Int>
        var closing: Bool
        var selfClosing: Bool
        var attributes: [(name: String, value: Range<Int>)]
    }

    private let d: [UInt8]
    private var at = 0
    /// The comments passed so far, `<!--` to `-->`.
    private(set) var comments: [Range<Int>] = []
    init(_ d: [UInt8]) { self.d = d }

    /// Where `s` next starts in `d`, from `from` on.
    static func find(_ s: String, in d: [UInt8], from: Int) -> Int? {
        Bytes.find(Array(s.utf8), in: d, from: from)
    }

    /// Where a declaration starting at `from` (`<!DOCTYPE …>`) ends: its `>`, past an internal subset
    /// in brackets; `d.count` when it does not.
    static func declarationEnd(_ d: [UInt8], from: Int) -> Int {
        var i = from, depth = 0
        while i < d.count, !(d[i] == 0x3E && depth == 0) { depth += d[i] == 0x5B ? 1 : d[i] == 0x5D ? -1 : 0; i += 1 }
        return i
    }

    private static func isName(_ c: UInt8) -> Bool {
        c >= 0x80 || (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x3A || c == 0x5F || c == 0x2D || c == 0x2E
    }

    mutating func next() -> Tag? {
        while let lt = d[min(at, d.count)...].firstIndex(of: 0x3C) {
            let d = self.d
            func rest(_ s: String) -> Bool { lt + s.utf8.count <= d.count && d[lt..<(lt + s.utf8.count)].elementsEqual(s.utf8) }
            if rest("<!--") {
                guard let e = Self.find("-->", in: d, from: lt + 4) else { return nil }
                comments.append(lt..<(e + 3))
                at = e + 3
                continue
            }
            if rest("<![CDATA[") { guard let e = Self.find("]]>", in: d, from: lt + 9) else { return nil }; at = e + 3; continue }
            if rest("<?") { guard let e = Self.find("?>", in: d, from: lt + 2) else { return nil }; at = e + 2; continue }
            if rest("<!") { at = Self.declarationEnd(d, from: lt + 2) + 1; continue }  // DOCTYPE, its internal subset in brackets
            var i = lt + 1
            let closing = i < d.count && d[i] == 0x2F
            if closing { i += 1 }
            let nameStart = i
            while i < d.count, Self.isName(d[i]) { i += 1 }
            guard i > nameStart else { at = lt + 1; continue }  // a stray "<" in text
            let name = String(decoding: d[nameStart..<i], as: UTF8.self)
            var attributes: [(name: String, value: Range<Int>)] = []
            var selfClosing = false
            while i < d.count {
                let c = d[i]
                if c == 0x3E { break }
                if c == 0x2F { selfClosing = true; i += 1; continue }
                if Self.isName(c) {
                    let a = i
                    while i < d.count, Self.isName(d[i]) { i += 1 }
                    let attribute = String(decoding: d[a..<i], as: UTF8.self)
                    while i < d.count, d[i] != 0x3D, d[i] != 0x3E, !Self.isName(d[i]) { i += 1 }
                    guard i < d.count, d[i] == 0x3D else { continue }
                    i += 1
                    while i < d.count, d[i] == 0x20 || d[i] == 0x09 || d[i] == 0x0A || d[i] == 0x0D { i += 1 }
                    guard i < d.count, d[i] == 0x22 || d[i] == 0x27 else { continue }
                    let quote = d[i]
                    guard let end = d[(i + 1)...].firstIndex(of: quote) else { return nil }
                    attributes.append((attribute, (i + 1)..<end))
                    i = end + 1
                    selfClosing = false
                    continue
                }
                selfClosing = false
                i += 1
            }
            guard i < d.count else { return nil }  // a tag the file's end cuts
            at = i + 1
            return Tag(name: name, range: lt..<(i + 1), closing: closing, selfClosing: selfClosing, attributes: attributes)
        }
        return nil
    }
}

extension WorkingDocuments {
    static let svg = FormatEntry(formats: [.svg], recognise: { FormatSniffer.isSVG($0.data.prefix(FormatSniffer.svgLength)) ? .svg : nil },
                                 rewrite: { r, _ in try MetadataRewrite.svg(r) })
}

extension WorkingDocuments {
    /// SVGZ: gzip whose start inflates to an SVG's (a .tar.gz or a gzipped log is no drawing).
    static let svgz = FormatEntry(formats: [.svgz], recognise: { h in
        Gzip.isGzip(h.b) && FormatSniffer.isSVG(Gzip.inflatePrefix(Array(h.data.prefix(1 << 16)), limit: FormatSniffer.svgLength)) ? .svgz : nil
    }, rewrite: { r, _ in try MetadataRewrite.svgz(r) })
}

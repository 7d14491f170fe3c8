/// HEIC, AVIF and JPEG XL pictures sent as files (a long screenshot) lose what names the sender in
/// place: every box keeps its place and length, so no item offset (`iloc`) or box size changes and
/// the coded picture stays byte for byte. Colour profiles and transforms stay.
extension MetadataRewrite {
    /// HEIF items: `Exif` becomes an empty Exif of the same length (keeping only a rotation no
    /// `irot`/`imir` overrides), XMP (`mime`, application/rdf+xml) an empty packet; top-level `uuid`
    /// boxes become zero-filled `free` boxes; a motion photo's video loses its own metadata; bytes
    /// after the last box that are not zeros are cut.
    static func heif(_ d: [UInt8], orientation: ExifOrientation) -> MetadataRewrite? {
        guard let top = PictureBoxes.children(d, 0..<d.count, topLevel: true) else { return nil }
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        for b in top.boxes where b.type == "uuid" {
            edits += blanked(b)
            found.insert(.other)
        }
        for b in top.boxes where b.type == "mpvd" {
            guard let (pieces, fields) = motionPhotoVideo(d, b.body) else { continue }
            edits.append((b.body, pieces))
            found.formUnion(fields)
        }
        if let meta = top.boxes.first(where: { $0.type == "meta" }), meta.body.count > 4,
           let inMeta = PictureBoxes.children(d, (meta.body.lowerBound + 4)..<meta.body.upperBound, topLevel: false) {
            let items = HEIFItems(d, inMeta.boxes)
            for item in items.privateItems {
                let ranges = items.ranges(of: item.id)
                // Not all in this file where `iloc` says: nothing is claimed removed ("metadata kept").
                guard !ranges.isEmpty else { return nil }
                let payload = ranges.flatMap { d[$0] }
                let replacement: [UInt8]
                switch item.kind {
                case .exif:
                    found.formUnion(exifFields(exifTIFF(payload)))
                    // HEIF readers apply `irot`/`imir`; without them some honour the Exif rotation.
                    replacement = emptyExif(payload.count, orientation: HEIFItems.hasTransforms(d) ? .up : orientation)
                case .xmp(let compressed):
                    found.insert(.xmp)
                    replacement = compressed ? [UInt8](repeating: 0, count: payload.count) : emptyXMP(payload.count)
                }
                var at = 0
                for r in ranges {
                    edits.append((r, [.bytes(Array(replacement[at..<at + r.count]))]))
                    at += r.count
                }
            }
        }
        edits += cutJunk(d, after: top.end, &found)
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: d.count, edits: edits, found: found)
    }

    /// JPEG XL's container: the `Exif` box emptied and the `xml ` box an empty packet (the same
    /// lengths); `jumb` (JUMBF, C2PA claims), `brob` (compressed metadata) and `jbrd` (the original
    /// JPEG's other segments, comments, IPTC) zero-filled `free` boxes. A bare codestream has none.
    static func jxl(_ d: [UInt8]) -> MetadataRewrite? {
        guard !d.starts(with: [0xFF, 0x0A]), let top = PictureBoxes.children(d, 0..<d.count, topLevel: true) else { return nil }
        var edits: [(Range<Int>, [Piece])] = []
        var found: PrivateFields = []
        for b in top.boxes {
            switch b.type {
            case "Exif":
                let payload = Array(d[b.body])
                found.formUnion(exifFields(exifTIFF(payload)))
                edits.append((b.body, [.bytes(emptyExif(payload.count, orientation: .up))]))  // the codestream holds the orientation
            case "xml ":
                found.insert(.xmp)
                edits.append((b.body, [.bytes(emptyXMP(b.body.count))]))
            case "jumb", "brob", "jbrd":
                found.insert(.other)
                edits += blanked(b)
            default: break
            }
        }
        edits += cutJunk(d, after: top.end, &found)
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: d.count, edits: edits, found: found)
    }

    /// A Samsung motion photo's video (`mpvd`: the seconds before the shot, an MP4 of its own, with
    /// its own `udta` and creation times) stripped as a video sent as a file is, in place: its
    /// pieces, at file offsets; nil when nothing goes. One it cannot read is zeroed, as junk would be.
    private static func motionPhotoVideo(_ d: [UInt8], _ body: Range<Int>) -> ([Piece], PrivateFields)? {
        guard !body.isEmpty else { return nil }
        let rewrite: MetadataRewrite?
        do { rewrite = try MP4MetadataStripper.rewrite(ByteReader(d).slice(body)) } catch { return ([.zeros(body.count)], .other) }
        guard let r = rewrite else { return nil }
        // Bytes it cut after its last box are zeroed instead, so the box keeps its length.
        let cut = body.count - r.outputSize
        return (r.pieces(at: body.lowerBound) + (cut > 0 ? [.zeros(cut)] : []), r.found)
    }

    /// The box renamed `free` and its body zeros: readers skip it, and nothing after it moves.
    private static func blanked(_ b: PictureBoxes.Box) -> [(Range<Int>, [Piece])] {
        [((b.start + 4)..<(b.start + 8), [.bytes(Array("free".utf8))]), (b.body, [.zeros(b.body.count)])]
    }

    /// Bytes after the last box (an appended tag, a phone's trailer), unless they are all zeros.
    private static func cutJunk(_ d: [UInt8], after end: Int, _ found: inout PrivateFields) -> [(Range<Int>, [Piece])] {
        guard end < d.count, d[end...].contains(where: { $0 != 0 }) else { return [] }
        found.insert(.other)
        return [(end..<d.count, [])]
    }

    /// An Exif payload's TIFF: after its 4-byte offset to the TIFF header (ISO/IEC 23008-12 A.2.1;
    /// JPEG XL's `Exif` box the same), which phones point past an "Exif\0\0".
    static func exifTIFF(_ payload: [UInt8]) -> ArraySlice<UInt8> {
        let offset = Bytes.be(payload, 0, 4)
        guard payload.count >= 4, offset >= 0, offset <= payload.count - 4 else { return [] }
        return payload[(4 + offset)...]
    }

    /// A valid Exif payload of exactly `count` bytes with no tag but the orientation (if not `.up`);
    /// zeros if even an empty one does not fit.
    static func emptyExif(_ count: Int, orientation: ExifOrientation) -> [UInt8] {
        let tiff = orientation == .up ? Array("MM".utf8) + [0, 42] + Bytes.be32(8) + [0, 0] + Bytes.be32(0) : orientationTIFF(orientation)
        let exif = [0, 0, 0, 0] + tiff
        guard exif.count <= count else { return [UInt8](repeating: 0, count: count) }
        return exif + [UInt8](repeating: 0, count: count - exif.count)
    }

    /// An XMP packet of exactly `count` bytes describing nothing (padded with spaces inside the
    /// packet, as the XMP specification's padding is); spaces if even that does not fit.
    static func emptyXMP(_ count: Int) -> [UInt8] {
        let head = Array("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>".utf8)
        let tail = Array("<?xpacket end=\"w\"?>".utf8)
        guard head.count + tail.count <= count else { return [UInt8](repeating: 0x20, count: count) }
        return head + [UInt8](repeating: 0x20, count: count - head.count - tail.count) + tail
    }
}

/// The boxes of a picture held whole in memory.
enum PictureBoxes {
    struct Box {
        let type: String
        let start: Int
        let body: Range<Int>
    }

    /// A hostile file's box count cannot make the walk long.
    static let maxBoxes = 10_000

    /// The boxes in `range`, and where they stop: at the top level, bytes that start no box (junk
    /// after the last one) end the walk; inside a box, or a box past its container, the answer is nil.
    /// Inside a box any four bytes name one, as libheif reads them (a fuzzed `hdlr` named "drh\0" hid
    /// a `meta` whose two overlays named each other, and libheif recursed until its stack ran out).
    static func children(_ d: [UInt8], _ range: Range<Int>, topLevel: Bool) -> (boxes: [Box], end: Int)? {
        var boxes: [Box] = []
        var at = range.lowerBound
        while at < range.upperBound {
            let left = range.upperBound - at
            guard left >= 8, boxes.count < maxBoxes, !topLevel || ContainerEnd.isBoxType(d[(at + 4)..<(at + 8)]) else {
                return topLevel ? (boxes, at) : nil
            }
            var size = Bytes.be(d, at, 4), header = 8
            if size == 1 {
                guard left >= 16 else { return nil }
                (size, header) = (Bytes.be(d, at + 8, 8), 16)
            } else if size == 0 {
                size = left
            }
            guard size >= header, size <= left else { return topLevel ? (boxes, at) : nil }
            boxes.append(Box(type: Bytes.ascii(d, at + 4, 4), start: at, body: (at + header)..<(at + size)))
            at += size
        }
        return (boxes, at)
    }
}

/// A HEIF `meta` box's items as far as finding metadata needs: which items are Exif or XMP
/// (`iinf`) and where their bytes are (`iloc`, in the file or in `idat`).
struct HEIFItems {
    /// Whether the container rotates or mirrors the image (`irot`, `imir` boxes among the item
    /// properties, which sit in the `meta` box near the start). The probe and the decode both ask:
    /// the bytes are compared in place.
    static func hasTransforms(_ data: [UInt8]) -> Bool {
        let end = min(data.count, 1 << 16)
        guard end >= 4 else { return false }
        let (i, r, o, t, m) = (UInt8(ascii: "i"), UInt8(ascii: "r"), UInt8(ascii: "o"), UInt8(ascii: "t"), UInt8(ascii: "m"))
        return data.withUnsafeBufferPointer { d in
            (0...(end - 4)).contains { k in
                d[k] == i && ((d[k + 1] == r && d[k + 2] == o && d[k + 3] == t) || (d[k + 1] == m && d[k + 2] == i && d[k + 3] == r))
            }
        }
    }

    enum Kind { case exif, xmp(compressed: Bool) }
    struct Item { let id: Int; let kind: Kind }
    private(set) var privateItems: [Item] = []
    /// Derived images (`grid`, `iovl`) by id: their canvas size is in their own bytes.
    private(set) var derived: [(id: Int, type: String)] = []
    private var locations: [Int: [Range<Int>]] = [:]
    /// Items whose bytes `iloc` puts past the file's end: a file cut inside its coded picture whose
    /// every box still reads whole, which `check` passed and libheif then met the end of in `prepare`.
    private(set) var cut: [Int] = []

    /// Every item's type, the primary item, each item's `dimg` (derived from) and `auxl` (alpha or
    /// depth of) references in order, repeats kept, and the `ispe` size each coded item declares:
    /// the derivation graph libheif walks to decode the primary image.
    private(set) var types: [Int: String] = [:]
    private(set) var primary: Int? = nil
    private(set) var derivedFrom: [Int: [Int]] = [:]
    private(set) var auxiliaries: [Int: [Int]] = [:]
    private(set) var sizes: [Int: (width: Int, height: Int)] = [:]

    init(_ d: [UInt8], _ boxes: [PictureBoxes.Box]) {
        let idat = boxes.first { $0.type == "idat" }?.body
        for b in boxes {
            switch b.type {
            case "iinf": readItems(d, b.body)
            case "iloc": readLocations(d, b.body, idat: idat)
            case "pitm" where b.body.count >= 6: primary = Bytes.be(d, b.body.lowerBound + 4, d[b.body.lowerBound] == 0 ? 2 : 4)
            case "iref": readReferences(d, b.body)
            case "iprp": readSizes(d, b.body)
            default: break
            }
        }
    }

    /// The item's bytes in order; empty when any part of them is not in this file.
    func ranges(of id: Int) -> [Range<Int>] { locations[id] ?? [] }

    /// The items of the file's `meta` box, or nil when it has none that can be walked.
    static func of(_ d: [UInt8]) -> HEIFItems? {
        guard let top = PictureBoxes.children(d, 0..<d.count, topLevel: true),
              let meta = top.boxes.first(where: { $0.type == "meta" }), meta.body.count > 4,
              let inMeta = PictureBoxes.children(d, (meta.body.lowerBound + 4)..<meta.body.upperBound, topLevel: false) else { return nil }
        return HEIFItems(d, inMeta.boxes)
    }

    /// The canvas each derived image says it makes (ISO/IEC 23008-12, 6.6.2.3 `grid`, 6.6.2.2 `iovl`):
    /// libheif allocates it as said, whatever the item's `ispe`, so it is checked against the pixel
    /// limit first (a fuzzed 1 KB HEIC's grid claimed 30326×25393: 2.3 GB, then a crash in libheif).
    func derivedCanvases(_ d: [UInt8]) -> [(width: Int, height: Int)] {
        derived.compactMap { canvas(of: $0, d) }
    }

    /// One derived item's canvas, or nil when its description is cut short.
    private func canvas(of item: (id: Int, type: String), _ d: [UInt8]) -> (width: Int, height: Int)? {
        let bytes = ranges(of: item.id).flatMap { d[$0] }
        // grid: version, flags, rows − 1, columns − 1; iovl: version, flags, four 16-bit fill values.
        let at = item.type == "grid" ? 4 : 10
        guard bytes.count >= 2 else { return nil }
        let wide = bytes[1] & 1 == 1
        let n = wide ? 4 : 2
        guard bytes.count >= at + 2 * n else { return nil }
        return (Bytes.be(bytes, at, n), Bytes.be(bytes, at + n, n))
    }

    private mutating func readItems(_ d: [UInt8], _ body: Range<Int>) {
        guard body.count >= 6 else { return }
        let start = body.lowerBound + 4 + (d[body.lowerBound] == 0 ? 2 : 4)
        guard start <= body.upperBound, let infes = PictureBoxes.children(d, start..<body.upperBound, topLevel: false) else { return }
        for infe in infes.boxes where infe.type == "infe" && infe.body.count >= 12 {
            let v = Int(d[infe.body.lowerBound])
            guard v >= 2 else { continue }  // versions 0 and 1 name no item type
            var at = infe.body.lowerBound + 4
            let id = Bytes.be(d, at, v == 2 ? 2 : 4)
            at += (v == 2 ? 2 : 4) + 2
            let type = Bytes.ascii(d, at, 4)
            at += 4
            func string() -> String {
                guard at < infe.body.upperBound else { return "" }
                let end = d[at..<infe.body.upperBound].firstIndex(of: 0) ?? infe.body.upperBound
                defer { at = min(end + 1, infe.body.upperBound) }
                return String(decoding: d[at..<end], as: UTF8.self)
            }
            _ = string()  // item name
            types[id] = type
            if type == "grid" || type == "iovl" { derived.append((id, type)) }
            if type == "Exif" {
                privateItems.append(Item(id: id, kind: .exif))
            } else if type == "mime" {
                let contentType = string().lowercased()
                let encoding = string()
                if contentType.contains("rdf+xml") || contentType.contains("xmp") {
                    privateItems.append(Item(id: id, kind: .xmp(compressed: !encoding.isEmpty)))
                }
            }
        }
    }

    /// `iref`: a header naming the reference type, then `from`, a count and that many `to` ids, read
    /// in a row as libheif 1.15 reads them: each header's size is skipped, not obeyed (a fuzzed file's
    /// `dimg` claimed 4 MB inside a 28-byte `iref`; libheif still read its grid as naming itself, and
    /// recursed for 39 s through 900 MB).
    private mutating func readReferences(_ d: [UInt8], _ body: Range<Int>) {
        guard body.count >= 4 else { return }
        let n = d[body.lowerBound] == 0 ? 2 : 4
        var at = body.lowerBound + 4
        while at + 8 <= body.upperBound {
            let size = Bytes.be(d, at, 4), type = Bytes.ascii(d, at + 4, 4)
            at += 8 + (size == 1 ? 8 : 0) + (type == "uuid" ? 16 : 0)
            guard at + n + 2 <= body.upperBound else { return }
            let from = Bytes.be(d, at, n), count = Bytes.be(d, at + n, 2)
            at += n + 2
            var to: [Int] = []
            for _ in 0..<count where at + n <= body.upperBound {
                to.append(Bytes.be(d, at, n))
                at += n
            }
            if type == "dimg" { derivedFrom[from, default: []] += to } else if type == "auxl" { for t in to { auxiliaries[t, default: []].append(from) } }
        }
    }

    /// `iprp`: the `ispe` each item is associated with (`ipma` indexes `ipco`'s children from 1).
    private mutating func readSizes(_ d: [UInt8], _ body: Range<Int>) {
        guard let inside = PictureBoxes.children(d, body, topLevel: false),
              let ipco = inside.boxes.first(where: { $0.type == "ipco" }),
              let properties = PictureBoxes.children(d, ipco.body, topLevel: false)?.boxes else { return }
        for ipma in inside.boxes where ipma.type == "ipma" && ipma.body.count >= 8 {
            let version = d[ipma.body.lowerBound], wide = d[ipma.body.lowerBound + 3] & 1 == 1
            var at = ipma.body.lowerBound + 4
            let count = Bytes.be(d, at, 4)
            at += 4
            for _ in 0..<min(count, PictureBoxes.maxBoxes) {
                let idBytes = version < 1 ? 2 : 4
                guard at + idBytes + 1 <= ipma.body.upperBound else { return }
                let id = Bytes.be(d, at, idBytes)
                let associations = Int(d[at + idBytes])
                at += idBytes + 1
                for _ in 0..<associations {
                    guard at + (wide ? 2 : 1) <= ipma.body.upperBound else { return }
                    let index = wide ? Bytes.be(d, at, 2) & 0x7FFF : Int(d[at] & 0x7F)
                    at += wide ? 2 : 1
                    guard index >= 1, index <= properties.count else { continue }
                    let p = properties[index - 1]
                    if p.type == "ispe", p.body.count >= 12 {
                        sizes[id] = (Bytes.be(d, p.body.lowerBound + 4, 4), Bytes.be(d, p.body.lowerBound + 8, 4))
                    }
                }
            }
        }
    }

    /// What decoding one coded item costs at least, in pixels, however small it is: a decoder set up
    /// and torn down per tile (an AVIF grid of 22,500 tiles of 64×48 took 2.6 s and 450 MB, 65,025
    /// tiles of 32 px 22 s), and an overlay layer drawn per reference.
    static let minimumItemCost = 65_536

    /// The pixels libheif decodes and composes to make the primary image (and the alpha or depth
    /// images that belong to it): every tile of a grid and every layer of an overlay, each repeat
    /// counted again, since libheif decodes a reference each time it is named. Counting stops once
    /// past `limit`; a graph that names itself is `corrupt` (libheif recursed until it crashed).
    func decodeCost(_ d: [UInt8], limit: Int) throws -> Int {
        guard let primary else { return 0 }
        var done: [Int: Int] = [:]
        var open: Set<Int> = []
        var canvases: [Int: (width: Int, height: Int)] = [:]
        for item in derived where canvases[item.id] == nil { canvases[item.id] = canvas(of: item, d) }
        func cost(_ id: Int, depth: Int) throws -> Int {
            if let c = done[id] { return c }
            guard !open.contains(id), depth < 64 else {
                throw MediaPrepError(.corrupt, "the picture's item \(id) is derived from itself (a loop in its grid or overlay references)")
            }
            open.insert(id)
            defer { open.remove(id) }
            var total: Int
            if let canvas = canvases[id] ?? (types[id] == "iden" ? sizes[id] : nil) {
                total = canvas.width.multipliedReportingOverflow(by: canvas.height).overflow ? limit + 1 : canvas.width * canvas.height
            } else {
                let size = sizes[id].map { $0.width.multipliedReportingOverflow(by: $0.height).overflow ? limit + 1 : $0.width * $0.height } ?? 0
                total = max(size, Self.minimumItemCost)
            }
            for child in derivedFrom[id] ?? [] where total <= limit {
                total = min(limit + 1, total + (try cost(child, depth: depth + 1)))
            }
            done[id] = total
            return total
        }
        var total = try cost(primary, depth: 0)
        for aux in auxiliaries[primary] ?? [] where total <= limit { total = min(limit + 1, total + (try cost(aux, depth: 0))) }
        return total
    }

    private mutating func readLocations(_ d: [UInt8], _ body: Range<Int>, idat: Range<Int>?) {
        guard body.count >= 8 else { return }
        let version = Int(d[body.lowerBound])
        var at = body.lowerBound + 4
        let sizes = Int(d[at]), more = Int(d[at + 1])
        let (offsetSize, lengthSize, baseSize) = (sizes >> 4, sizes & 15, more >> 4)
        let indexSize = version >= 1 ? more & 15 : 0
        at += 2
        func field(_ n: Int) -> Int? {
            guard [0, 4, 8].contains(n) || (n == 2), at + n <= body.upperBound else { return nil }
            defer { at += n }
            return n == 0 ? 0 : Bytes.be(d, at, n)
        }
        guard let count = field(version < 2 ? 2 : 4) else { return }
        for _ in 0..<min(count, PictureBoxes.maxBoxes) {
            guard let id = field(version < 2 ? 2 : 4) else { return }
            var method = 0
            if version >= 1 { guard let m = field(2) else { return }; method = m & 15 }
            guard let reference = field(2), let base = field(baseSize), let extents = field(2) else { return }
            var ranges: [Range<Int>] = []
            var whole = reference == 0 && (method == 0 || (method == 1 && idat != nil))
            for _ in 0..<extents {
                guard field(indexSize) != nil, let offset = field(offsetSize), let length = field(lengthSize) else { return }
                if method == 0, reference == 0, base > d.count || offset > d.count || length > d.count || base + offset + length > d.count,
                   !cut.contains(id) {
                    cut.append(id)
                }
                let origin = method == 1 ? (idat?.lowerBound ?? 0) : 0
                let limit = method == 1 ? (idat?.upperBound ?? 0) : d.count
                // A length of 0 means "all of it": never taken as such for metadata, whose size is known.
                guard whole, length > 0, length <= d.count, (0...d.count).contains(offset), (0...d.count).contains(base),
                      origin + base + offset <= limit - length else { whole = false; continue }
                ranges.append((origin + base + offset)..<(origin + base + offset + length))
            }
            if whole { locations[id] = ranges }
        }
    }
}

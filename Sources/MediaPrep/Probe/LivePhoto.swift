/// An iPhone Live Photo: a still (HEIC or JPEG) and a short MOV taken with it, given side by side and
/// tied by one content identifier (a UUID in the still's Apple maker note, tag 17, and in the movie's
/// `com.apple.quicktime.content.identifier`). Paired only when both are among the inputs.
package enum LivePhoto {
    /// Each still's movie, by path, among `paths`: as the iPhone names them (IMG_1234.HEIC and
    /// IMG_1234.MOV in one folder), then proved by their content identifiers. Only a still with such a
    /// movie beside it is read (its Exif), and only such a movie (its `moov`).
    package static func pairs(_ paths: [String]) -> [String: String] {
        func stem(_ p: String) -> String? {
            guard let dot = p.lastIndex(of: "."), p[p.index(after: dot)...].lowercased() != "" else { return nil }
            return p[..<dot].lowercased()
        }
        var movies: [String: String] = [:]
        for p in paths where [".mov", ".mp4"].contains(where: { p.lowercased().hasSuffix($0) }) {
            if let s = stem(p) { movies[s] = p }
        }
        guard !movies.isEmpty else { return [:] }
        var out: [String: String] = [:]
        for p in paths where [".heic", ".jpg", ".jpeg"].contains(where: { p.lowercased().hasSuffix($0) }) {
            guard let s = stem(p), let movie = movies[s], let still = try? InputFile(p), still.size <= 64 << 20,
                  let data = try? still.whole(after: []), let id = identifier(still: data),
                  let m = try? InputFile(movie), identifier(movie: m.reader) == id else { continue }
            out[p] = movie
        }
        return out
    }

    /// The content identifier in a JPEG's or HEIC's Exif maker note ("Apple iOS"), or nil.
    static func identifier(still d: [UInt8]) -> String? {
        guard let tiff = exif(d), let t = TIFFReader(tiff[...]), let ifd0 = t.firstIFD,
              let exif = entry(t, 0x8769, in: ifd0).flatMap(t.number), let note = entry(t, 0x927C, in: exif).flatMap(t.valueRange),
              note.count > 16, Bytes.ascii(tiff, note.lowerBound, 9) == "Apple iOS" else { return nil }
        // Its own IFD, 14 bytes in, in the byte order it names; offsets from the maker note's start.
        let apple = TIFFReader(Array(tiff[note]), bigEndian: Bytes.ascii(tiff, note.lowerBound + 12, 2) == "MM")
        guard let id = entry(apple, 0x0011, in: 14), apple.u16(id + 2) == 2, let text = apple.valueRange(id).map(apple.bytes) else { return nil }
        let s = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
        return s.count >= 8 ? s : nil
    }

    /// The entry of the IFD at `ifd` with `tag`, or nil.
    private static func entry(_ t: TIFFReader, _ tag: Int, in ifd: Int) -> Int? { t.entries(at: ifd)?.first { t.tag($0) == tag } }

    /// A JPEG's APP1 Exif or a HEIC's Exif item: the TIFF inside.
    private static func exif(_ d: [UInt8]) -> [UInt8]? {
        if d.starts(with: [0xFF, 0xD8]) {
            for s in JPEGMarkers(d).segments where s.marker == 0xE1 && s.payload.count > 14 {
                if Bytes.ascii(d, s.payload.lowerBound, 6) == "Exif\0\0" { return Array(d[(s.payload.lowerBound + 6)..<s.payload.upperBound]) }
            }
            return nil
        }
        guard let items = HEIFItems.of(d), let item = items.privateItems.first(where: { if case .exif = $0.kind { true } else { false } }) else { return nil }
        let tiff = MetadataRewrite.exifTIFF(items.ranges(of: item.id).flatMap { d[$0] })
        return tiff.isEmpty ? nil : Array(tiff)
    }

    /// The content identifier in a QuickTime movie's `moov`/`meta` (`keys` and `ilst`), or nil.
    static func identifier(movie r: ByteReader) -> String? {
        var at = 0
        for _ in 0..<1000 {
            guard let h = try? r.read(at, 16), h.count >= 8 else { return nil }
            var size = Bytes.be(h, 0, 4)
            if size == 1, h.count == 16 { size = Bytes.be(h, 8, 8) }
            if size == 0 { size = r.size - at }
            guard size >= 8, at + size <= r.size else { return nil }
            if Bytes.ascii(h, 4, 4) == "moov" {
                guard size <= 64 << 20, let moov = try? r.read(at, size) else { return nil }
                return identifier(moov: moov)
            }
            at += size
        }
        return nil
    }

    private static func identifier(moov: [UInt8]) -> String? {
        guard let top = PictureBoxes.children(moov, 8..<moov.count, topLevel: false),
              let meta = top.boxes.first(where: { $0.type == "meta" }) else { return nil }
        // QuickTime's `meta` is a plain box; ISO's has a version and flags first.
        let inner = PictureBoxes.children(moov, meta.body, topLevel: false)?.boxes
            ?? PictureBoxes.children(moov, (meta.body.lowerBound + 4)..<meta.body.upperBound, topLevel: false)?.boxes
        guard let boxes = inner, let keys = boxes.first(where: { $0.type == "keys" }),
              let ilst = boxes.first(where: { $0.type == "ilst" }), keys.body.count >= 8 else { return nil }
        var at = keys.body.lowerBound + 8, index = 0, wanted: Int? = nil
        while at + 8 <= keys.body.upperBound, index < 10_000 {
            let size = Bytes.be(moov, at, 4)
            guard size >= 8, at + size <= keys.body.upperBound else { break }
            index += 1
            if Bytes.ascii(moov, at + 8, size - 8) == "com.apple.quicktime.content.identifier" { wanted = index }
            at += size
        }
        guard let wanted, let items = PictureBoxes.children(moov, ilst.body, topLevel: false)?.boxes,
              let item = items.first(where: { Bytes.be(moov, $0.start + 4, 4) == wanted }),
              let data = PictureBoxes.children(moov, item.body, topLevel: false)?.boxes.first(where: { $0.type == "data" }),
              data.body.count > 8 else { return nil }
        let s = String(decoding: moov[(data.body.lowerBound + 8)..<data.body.upperBound], as: UTF8.self)
        return s.count >= 8 ? s : nil
    }
}

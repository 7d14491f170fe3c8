extension MetadataRewrite {
    static let maxHTMLBytes = 64 << 20

    /// An HTML page's `<meta>` author, generator and dates and its comments, blanked with spaces.
    static func html(_ r: ByteReader) throws -> MetadataRewrite? {
        guard r.size <= maxHTMLBytes else {
            throw MediaPrepError(.tooLarge, "an HTML page over \(maxHTMLBytes >> 20) MiB is not read for the names it may hold")
        }
        let d = try r.read(0, r.size)
        let e = PackageParts.htmlEdits(d)
        guard !e.edits.isEmpty else { return nil }
        // The edits made as spaces (line breaks kept): the page keeps its length and its line numbers.
        return MetadataRewrite(sourceSize: r.size, edits: e.edits.map { range, _ in (range, [.bytes(d[range].map { $0 == 0x0A || $0 == 0x0D ? $0 : 0x20 })]) }, found: e.found)
    }
}

extension DocumentFormats {
    static let html = FormatEntry(formats: [.html], recognise: { FormatSniffer.isHTML($0.data.prefix(FormatSniffer.svgLength)) ? .html : nil },
                                  rewrite: { r, _ in try MetadataRewrite.html(r) })
}

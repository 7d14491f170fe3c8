/// Documents and archives (`Documents/`): a PDF and a ZIP are rebuilt by their library (the probe
/// calls `PDFCleaner` and `ZipPackageCleaner` with the file's path); a TAR and an HTML page are
/// rewritten by ranges.
enum DocumentFormats {
    /// "%PDF-" within the first 64 bytes (readers accept a little junk before it).
    static let pdf = FormatEntry(formats: [.pdf]) { h in
        let b = h.b
        return b.count >= 8 && (0...(b.count - 5)).contains(where: { b[$0] == 0x25 && b[$0..<$0 + 5].elementsEqual("%PDF-".utf8) }) ? .pdf : nil
    }
    /// A local file header, or the end record of an empty archive; its family (DOCX, ODT, EPUB…) is
    /// told from its members when opened.
    static let zip = FormatEntry(formats: [.zip, .officeDocument, .openDocument, .epub]) { h in
        h.starts([0x50, 0x4B, 0x03, 0x04]) || h.starts([0x50, 0x4B, 0x05, 0x06]) ? .zip : nil
    }
    /// POSIX and GNU tar: "ustar" at 257 in the first header.
    static let tar = FormatEntry(formats: [.tar], recognise: { h in h.data.count >= 263 && h.data[257..<262].elementsEqual("ustar".utf8) ? .tar : nil },
                                 rewrite: { r, _ in try TarRewrite.rewrite(r) })
    /// gzip whose start inflates to a TAR header ("ustar" at 257).
    static let tarGzip = FormatEntry(formats: [.tarGzip], recognise: { h in
        guard Gzip.isGzip(h.b) else { return nil }
        let start = Gzip.inflatePrefix(Array(h.data.prefix(1 << 16)), limit: 263)
        return start.count >= 262 && start[257..<262].elementsEqual("ustar".utf8) ? .tarGzip : nil
    }, rewrite: { r, _ in try TarRewrite.gzip(r) })
    static let html = FormatEntry(formats: [.html], recognise: { FormatSniffer.isHTML($0.data.prefix(FormatSniffer.svgLength)) ? .html : nil },
                                  rewrite: { r, _ in try MetadataRewrite.html(r) })
}

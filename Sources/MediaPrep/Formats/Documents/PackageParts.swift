import FoundationEssentials
import Glibc

/// What a ZIP holds: an Office Open XML document (DOCX, XLSX, PPTX), an OpenDocument (ODT, ODS, ODP),
/// an EPUB, or any other archive.
enum PackageFamily: Sendable {
    case office, openDocument, epub, archive

    var format: MediaFormat {
        switch self {
        case .office: return .officeDocument
        case .openDocument: return .openDocument
        case .epub: return .epub
        case .archive: return .zip
        }
    }
}

/// Each member of a package and what becomes of it: dropped, replaced by what a document needs to
/// open, edited where it names people, or cleaned as its own kind (a photo, a nested document).
enum PackageParts {
    /// Members a document opens without, which name their author or show their content: dropped, with
    /// the references to them in the package's relationships, content types and manifest.
    static func dropped(_ name: String, _ family: PackageFamily) -> PrivateFields? {
        switch family {
        case .office:
            if name == "docProps/custom.xml" || name.hasPrefix("customXml/") { return .other }
            if name.hasPrefix("docProps/thumbnail") { return .thumbnail }
            if name.contains("/printerSettings/") { return .printer }
        case .openDocument:
            if name.hasPrefix("Thumbnails/") { return .thumbnail }
        case .epub:
            if name == "iTunesMetadata.plist" || name == "META-INF/calibre_bookmarks.txt" { return .other }
        case .archive:
            break
        }
        return nil
    }

    /// The member's bytes cleaned, and what went; nil bytes when nothing changed. `removed` holds the
    /// names of dropped members (their references go too).
    static func clean(_ name: String, _ d: [UInt8], _ family: PackageFamily, removed: Set<String>) -> (bytes: [UInt8]?, found: PrivateFields)? {
        let lower = name.lowercased()
        switch family {
        case .office:
            if name == "docProps/core.xml" { return minimal(d, officeCore, fields: coreFields) }
            if name == "docProps/app.xml" { return minimal(d, officeApp, fields: appFields) }
            if lower.hasSuffix(".rels") { return relationships(name, d, removed: removed) }
            if name == "[Content_Types].xml" { return contentTypes(d, removed: removed) }
            if lower.hasSuffix(".xml") || lower.hasSuffix(".vml") { return officeXML(name, d) }
        case .openDocument:
            if name == "meta.xml" { return minimal(d, openDocumentMeta, fields: metaFields) }
            if name == "META-INF/manifest.xml" { return manifest(d, removed: removed) }
            if lower.hasSuffix(".xml") { return openDocumentXML(d) }
        case .epub:
            if lower.hasSuffix(".opf") { return packageDocument(d) }
            if lower.hasSuffix(".xhtml") || lower.hasSuffix(".html") || lower.hasSuffix(".htm") { return html(d) }
        case .archive:
            break
        }
        return nil
    }

    // MARK: replaced whole

    private static func minimal(_ d: [UInt8], _ replacement: String, fields: [String: PrivateFields]) -> (bytes: [UInt8]?, found: PrivateFields) {
        var found: PrivateFields = []
        var tags = SVGTags(d)
        var depth = 0
        while let tag = tags.next() {
            if tag.closing { depth -= 1; continue }
            if depth >= 1, !tag.selfClosing {
                found.formUnion(fields[tag.name.split(separator: ":").last.map(String.init) ?? tag.name] ?? .other)
            }
            if !tag.selfClosing { depth += 1 }
        }
        let bytes = Array(replacement.utf8)
        return (bytes == d ? nil : bytes, found)
    }

    /// core.xml with no property: Word, Excel, PowerPoint and LibreOffice open it (checked with LibreOffice 7.4).
    static let officeCore = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        + #"<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"></cp:coreProperties>"#
    static let officeApp = #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"# + "\n"
        + #"<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"></Properties>"#
    static let openDocumentMeta = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        + #"<office:document-meta xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.2"><office:meta/></office:document-meta>"#

    private static let coreFields: [String: PrivateFields] = [
        "creator": .author, "lastModifiedBy": .author, "created": .dates, "modified": .dates, "lastPrinted": .dates,
        "title": .title, "subject": .title, "keywords": .title, "description": .title, "category": .title, "coreProperties": [],
    ]
    private static let appFields: [String: PrivateFields] = [
        "Company": .company, "Manager": .author, "Template": .template, "HyperlinkBase": .paths, "Properties": [],
    ]
    private static let metaFields: [String: PrivateFields] = [
        "initial-creator": .author, "creator": .author, "printed-by": .author, "creation-date": .dates, "date": .dates,
        "print-date": .dates, "title": .title, "subject": .title, "keyword": .title, "description": .title,
        "template": .template, "document-meta": [], "meta": [],
    ]

    // MARK: Office Open XML

    /// Relationships to dropped members, and to files on the author's disk (an attached template, a
    /// linked file), removed.
    private static func relationships(_ name: String, _ d: [UInt8], removed: Set<String>) -> (bytes: [UInt8]?, found: PrivateFields) {
        // word/_rels/document.xml.rels → targets relative to word/.
        let base = name.hasPrefix("_rels/") ? "" : String(name[..<(name.firstRange(of: "_rels/")?.lowerBound ?? name.startIndex)])
        var e = XMLEdits(d)
        e.walk(tags: { tag, e in
            guard tag.name == "Relationship", let target = e.value(tag, "Target") else { return .keep }
            if e.value(tag, "TargetMode") == "External" {
                guard isLocalPath(target) else { return .keep }
                return .drop((e.value(tag, "Type") ?? "").hasSuffix("/attachedTemplate") ? .template : .paths)
            }
            return removed.contains(resolve(target, base: base)) ? .drop([]) : .keep
        }, attributes: { _, _ in nil })
        return (e.result, e.found)
    }

    private static func contentTypes(_ d: [UInt8], removed: Set<String>) -> (bytes: [UInt8]?, found: PrivateFields) {
        var e = XMLEdits(d)
        e.walk(tags: { tag, e in
            guard tag.name == "Override", let part = e.value(tag, "PartName") else { return .keep }
            return removed.contains(String(part.drop { $0 == "/" })) ? .drop([]) : .keep
        }, attributes: { _, _ in nil })
        return (e.result, e.found)
    }

    /// The parts themselves: authors of comments and tracked changes emptied (their text kept), their
    /// dates and every revision session id dropped, the template, absolute paths and user ids gone.
    private static func officeXML(_ name: String, _ d: [UInt8]) -> (bytes: [UInt8]?, found: PrivateFields) {
        var e = XMLEdits(d)
        let spreadsheetComments = name.hasPrefix("xl/comments")
        e.walk(tags: { tag, _ in
            switch tag.name {
            case "w:rsids": return .drop(.revisions)
            case "w:attachedTemplate": return .drop(.template)
            case "x15ac:absPath": return .drop(.paths)
            case "w15:presenceInfo": return .drop(.author)
            case "w:docVars": return .drop(.other)
            case "author" where spreadsheetComments: return .empty(.author)
            default: return .keep
            }
        }, attributes: { tag, a in
            if a.hasPrefix("w:rsid") { return (true, .revisions) }
            switch a {
            case "w:author", "w:initials", "w15:author", "initials": return (false, .author)
            case "name" where tag.name == "p:cmAuthor": return (false, .author)
            case "w15:userId", "w15:providerId", "userId", "providerId": return (true, .author)
            case "displayName" where tag.name == "person": return (false, .author)
            case "w:date", "dt": return (true, .dates)
            default: return nil
            }
        })
        return (e.result, e.found)
    }

    // MARK: OpenDocument

    private static func manifest(_ d: [UInt8], removed: Set<String>) -> (bytes: [UInt8]?, found: PrivateFields) {
        var e = XMLEdits(d)
        e.walk(tags: { tag, e in
            guard tag.name == "manifest:file-entry", let path = e.value(tag, "manifest:full-path") else { return .keep }
            return removed.contains(path) ? .drop([]) : .keep
        }, attributes: { _, _ in nil })
        return (e.result, e.found)
    }

    /// Authors and dates of tracked changes and annotations emptied; the printer's name and setup gone.
    private static func openDocumentXML(_ d: [UInt8]) -> (bytes: [UInt8]?, found: PrivateFields) {
        var e = XMLEdits(d)
        e.walk(tags: { tag, e in
            switch tag.name {
            case "dc:creator", "meta:creator-initials": return .empty(.author)
            case "dc:date": return .empty(.dates)
            case "config:config-item" where ["PrinterName", "PrinterSetup", "PrinterPaperFromSetup"].contains(e.value(tag, "config:name") ?? ""):
                return .empty(.printer)
            default: return .keep
            }
        }, attributes: { _, a in a == "meta:printed-by" ? (true, .author) : nil })
        return (e.result, e.found)
    }

    // MARK: EPUB

    /// The OPF's metadata reduced to the book itself: its title, author (the book's, which is content a
    /// reader shows) and language; the identifier made fresh (one is required, and the old one ties the
    /// copy to the shop or tool that made it); the modification time fixed; everything else (dates,
    /// contributors such as the converting tool, publisher, rights, calibre's private meta) dropped.
    private static func packageDocument(_ d: [UInt8]) -> (bytes: [UInt8]?, found: PrivateFields) {
        var e = XMLEdits(d)
        e.walk(tags: { tag, e in
            switch tag.name {
            case "dc:contributor", "dc:publisher", "dc:rights": return .drop(.author)
            case "dc:date": return .drop(.dates)
            case "dc:source", "dc:relation", "dc:coverage": return .drop(.other)
            case "dc:identifier": return .replaceText(Array("urn:uuid:\(UUID().uuidString.lowercased())".utf8), [])
            case "meta", "opf:meta":
                if e.value(tag, "name") == "cover" { return .keep }
                if e.value(tag, "property") == "dcterms:modified" { return .replaceText(Array("2000-01-01T00:00:00Z".utf8), []) }
                return .drop(.other)
            default: return .keep
            }
        }, attributes: { _, _ in nil })
        return (e.result, e.found)
    }

    // MARK: HTML and XHTML

    private static let privateMeta: [String: PrivateFields] = [
        "author": .author, "creator": .author, "publisher": .author, "copyright": .author, "owner": .author, "reply-to": .author,
        "designer": .author, "web_author": .author, "originator": .other, "generator": .other, "progid": .other,
        "date": .dates, "created": .dates, "modified": .dates, "last-modified": .dates, "revised": .dates,
        "article:author": .author, "book:author": .author, "article:published_time": .dates, "article:modified_time": .dates,
        "og:updated_time": .dates,
    ]

    /// `<meta>` naming the author, the tool, the dates; comments (an editor's "saved from" line) but
    /// conditional ones. Blanked with spaces, so the page keeps its length.
    static func html(_ d: [UInt8]) -> (bytes: [UInt8]?, found: PrivateFields) {
        let e = htmlEdits(d)
        return (e.result, e.found)
    }

    static func htmlEdits(_ d: [UInt8]) -> XMLEdits {
        var e = XMLEdits(d)
        var tags = SVGTags(d)
        while let tag = tags.next() {
            guard !tag.closing, tag.name.lowercased() == "meta" else { continue }
            let text = String(decoding: d[tag.range], as: UTF8.self)
            let key = (attribute(text, "name") ?? attribute(text, "property") ?? attribute(text, "http-equiv"))?.lowercased() ?? ""
            if let fields = privateMeta[key] ?? (key.hasPrefix("dc.") || key.hasPrefix("dcterms.") ? .other : nil) { e.dropTag(tag, fields) }
        }
        e.blankComments { $0.starts(with: Array("[if".utf8)) || $0.starts(with: Array("<![endif]".utf8)) }
        return e
    }

    /// An attribute's value in a tag's text, quoted or not.
    static func attribute(_ tag: String, _ name: String) -> String? {
        let t = Array(tag.utf8), n = Array(name.lowercased().utf8)
        var i = 0
        while i + n.count < t.count {
            let before = i == 0 ? UInt8(0x20) : t[i - 1]
            if [0x20, 0x09, 0x0A, 0x0D].contains(before), t[i..<(i + n.count)].map({ $0 | 0x20 }).elementsEqual(n) {
                var j = i + n.count
                while j < t.count, [0x20, 0x09].contains(t[j]) { j += 1 }
                if j < t.count, t[j] == 0x3D {
                    j += 1
                    while j < t.count, [0x20, 0x09].contains(t[j]) { j += 1 }
                    guard j < t.count else { return nil }
                    if t[j] == 0x22 || t[j] == 0x27 {
                        guard let end = t[(j + 1)...].firstIndex(of: t[j]) else { return nil }
                        return String(decoding: t[(j + 1)..<end], as: UTF8.self)
                    }
                    let end = t[j...].firstIndex { [0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2F].contains($0) } ?? t.count
                    return String(decoding: t[j..<end], as: UTF8.self)
                }
            }
            i += 1
        }
        return nil
    }

    // MARK: paths

    /// `file:///C:/Users/…`, `C:\…`, `/home/…`, `\\server\…`: a place on the author's disk or network.
    static func isLocalPath(_ s: String) -> Bool {
        let t = s.lowercased()
        if t.hasPrefix("file:") || t.hasPrefix("/") || t.hasPrefix("\\") || t.hasPrefix("~") { return true }
        let c = Array(t.utf8)
        return c.count > 2 && (0x61...0x7A).contains(c[0]) && c[1] == 0x3A && (c[2] == 0x5C || c[2] == 0x2F)
    }

    /// A relationship's target as a member name: relative to `base`, `..` taken up, a leading `/` from the root.
    static func resolve(_ target: String, base: String) -> String {
        var parts: [Substring] = target.hasPrefix("/") ? [] : base.split(separator: "/")
        for p in target.split(separator: "/") {
            if p == ".." { _ = parts.popLast() } else if p != "." { parts.append(p) }
        }
        return parts.joined(separator: "/")
    }
}

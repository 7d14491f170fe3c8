import CQpdf

/// A PDF's sender taken out: the Info dictionary, every XMP stream (document, page, image, font),
/// application private data (PieceInfo), thumbnails, markup annotations' authors and dates, and the
/// Exif of every JPEG it embeds (pixels byte for byte); written again whole by qpdf, so no earlier
/// revision survives and the /ID is new.
enum PDFCleaner {
    /// Objects one walk visits at most: a real 500-page report has about 20,000; a file claiming more
    /// is a bomb, refused before qpdf is asked to write it.
    static let maxObjects = 2_000_000
    /// Items of one array: a 10,000-page book's flat page tree has 10,000; /Nums of its page labels twice that.
    static let maxArray = 1_000_000
    /// References (array items and dictionary values) one walk follows at most.
    static let maxReferences = 20_000_000
    static let timeLimit = 30.0

    /// What the document names, and how many pictures lose their Exif; nil when it names no one.
    /// - Parameter depth: how deep inside other documents it is (its attachments one deeper).
    static func rewrite(path: String, size: Int, depth: Int = 0) throws -> MetadataRewrite? {
        let pdf = try QPDFDocument(path: path)
        guard !pdf.isEncrypted else { throw encrypted }
        let (found, pictures, _) = try walk(pdf, apply: false, depth: depth)
        guard !found.isEmpty else { return nil }
        var r = MetadataRewrite(sourceSize: size, edits: [], found: found)
        (r.rebuild, r.cleanedParts) = (.pdf, pictures)
        return r
    }

    /// Writes `source` cleaned at `destination` (a new file).
    static func write(from source: String, to destination: String, depth: Int = 0) throws {
        let pdf = try QPDFDocument(path: source)
        guard !pdf.isEncrypted else { throw encrypted }
        let (_, _, patches) = try walk(pdf, apply: true, depth: depth)
        try pdf.write(to: destination)
        // The pictures, cleaned where qpdf wrote them (streams are written as they were stored).
        try PDFPicturePatch.apply(patches, to: destination)
    }

    /// An encrypted PDF cannot be rewritten without its password: it is said so, never sent as if clean.
    static let encrypted = MediaPrepError(.unsupportedFormat, "an encrypted PDF: what it says about its author cannot be taken out without its password")

    /// Annotation types whose /T is the name of the person who wrote them (a widget's /T is its form field's name).
    private static let markup: Set<String> = ["/Text", "/FreeText", "/Line", "/Square", "/Circle", "/Polygon", "/PolyLine", "/Highlight",
                                              "/Underline", "/Squiggly", "/StrikeOut", "/Stamp", "/Caret", "/Ink", "/FileAttachment",
                                              "/Sound", "/Redact", "/Popup"]
    /// Keys that name the sender wherever they are, and what they are.
    private static let privateKeys: [String: PrivateFields] = ["/Metadata": .xmp, "/PieceInfo": .other, "/Thumb": .thumbnail, "/LastModified": .dates]

    /// Every object reachable from the trailer (what qpdf writes), each once, by an explicit stack: a
    /// reference loop or a nesting thousands deep costs neither recursion nor a second visit.
    private static func walk(_ pdf: QPDFDocument, apply: Bool, depth: Int) throws -> (PrivateFields, Int, [PDFPicturePatch]) {
        guard depth <= ZipPackageCleaner.maxDepth else {
            throw MediaPrepError(.tooLarge, "documents nested more than \(ZipPackageCleaner.maxDepth) deep (a bomb?) are not opened")
        }
        var found: PrivateFields = []
        var pictures = 0
        var patches: [PDFPicturePatch] = []
        let deadline = Deadline(seconds: timeLimit)
        let trailer = pdf.trailer
        found.formUnion(info(pdf, trailer, apply: apply))
        var seen = Set<Int64>()
        var stack: [qpdf_oh] = [trailer]
        var visits = 0, references = 0
        // Only containers not yet walked wait on the stack; a scalar or an object already walked is let
        // go at once (an array of 3,000,000 references to one object holds one handle, not 3,000,000).
        func enqueue(_ oh: qpdf_oh) throws {
            references += 1
            if references & 0xFFFF == 0, deadline.passed {
                pdf.release(oh)
                throw MediaPrepError(.timeout, "the PDF's objects took longer than \(Int(timeLimit)) s to read")
            }
            guard references <= maxReferences else {
                pdf.release(oh)
                throw MediaPrepError(.tooLarge, "a PDF whose objects hold more than \(maxReferences.grouped) references is not read")
            }
            if let id = pdf.identity(oh), seen.contains(id) { return pdf.release(oh) }
            guard pdf.isArray(oh) || pdf.isDictionary(oh) || pdf.isStream(oh) else { return pdf.release(oh) }
            stack.append(oh)
        }
        defer { for oh in stack { pdf.release(oh) } }
        while let oh = stack.popLast() {
            defer { pdf.release(oh) }
            visits += 1
            if visits & 1023 == 0 {
                pdf.drainWarnings()
                if deadline.passed { throw MediaPrepError(.timeout, "the PDF's objects took longer than \(Int(timeLimit)) s to read") }
            }
            if let id = pdf.identity(oh) {
                guard seen.insert(id).inserted else { continue }
                guard seen.count <= maxObjects else {
                    throw MediaPrepError(.tooLarge, "a PDF of more than \(maxObjects.grouped) objects is not read")
                }
            }
            if pdf.isArray(oh) {
                let n = pdf.count(oh)
                guard n <= maxArray else { throw MediaPrepError(.tooLarge, "a PDF array of \(n.grouped) items (over \(maxArray.grouped)) is not read") }
                for i in 0..<n { try enqueue(pdf.item(oh, i)) }
                continue
            }
            let isStream = pdf.isStream(oh)
            guard isStream || pdf.isDictionary(oh) else { continue }
            let dict = isStream ? pdf.streamDictionary(oh) : oh
            defer { if isStream { pdf.release(dict) } }
            var keys = pdf.keys(dict)
            let subtype = pdf.value(dict, "/Subtype")
            defer { pdf.release(subtype) }
            found.formUnion(removePrivateKeys(pdf, dict, &keys, markup: !isStream && markup.contains(where: { pdf.isName(subtype, $0) }), apply: apply))
            let type = pdf.value(dict, "/Type")
            defer { pdf.release(type) }
            if isStream, pdf.isName(type, "/EmbeddedFile"), let fields = try attachment(pdf, oh, dict, keys: &keys, apply: apply, depth: depth) {
                found.formUnion(fields)
                pictures += 1
            }
            if isStream, pdf.isName(subtype, "/Image"), let (fields, patch) = try picture(pdf, oh, dict) {
                found.formUnion(fields)
                pictures += 1
                if apply, let patch { patches.append(patch) }
            }
            // The trailer's /Info is handled above; /Parent leads back up a page tree already walked.
            for key in keys where key != "/Info" && key != "/Parent" { try enqueue(pdf.value(dict, key)) }
        }
        pdf.drainWarnings()
        return (found, pictures, patches)
    }

    /// The keys of `dict` that name the sender (and, on a markup annotation, its author and dates),
    /// removed when `apply`; what they were. `keys` keeps the rest, for the walk to follow.
    private static func removePrivateKeys(_ pdf: QPDFDocument, _ dict: qpdf_oh, _ keys: inout [String], markup: Bool, apply: Bool) -> PrivateFields {
        var found: PrivateFields = []
        var named = privateKeys.map { ($0.key, $0.value) }
        if markup { named += [("/T", PrivateFields.author), ("/M", .dates), ("/CreationDate", .dates)] }
        for (key, field) in named where keys.contains(key) {
            found.insert(field)
            if apply { pdf.remove(dict, key) }
            keys.removeAll { $0 == key }
        }
        return found
    }

    /// A file attached to the PDF: its /Params (dates, checksum, the Mac's creator) gone, and its
    /// content cleaned as its own kind (a photo, a DOCX, another PDF), stored again unfiltered. Over
    /// `ZipPackageCleaner.maxMemberBytes`, or under a filter qpdf does not undo, it is refused.
    private static func attachment(_ pdf: QPDFDocument, _ stream: qpdf_oh, _ dict: qpdf_oh, keys: inout [String], apply: Bool, depth: Int) throws -> PrivateFields? {
        var found: PrivateFields = []
        if keys.contains("/Params") {
            found.insert(.dates)
            if apply { pdf.remove(dict, "/Params") }
            keys.removeAll { $0 == "/Params" }
        }
        // Stored as it is, or deflated (as every writer stores them): inflated here within the member
        // cap, never by qpdf, which would inflate a bomb whole. Any other filter leaves the PDF as it came.
        let filter = pdf.value(dict, "/Filter"), parameters = pdf.value(dict, "/DecodeParms")
        defer { pdf.release(filter); pdf.release(parameters) }
        var flate = false
        if pdf.isArray(filter) {
            guard pdf.count(filter) == 1 else { throw unfiltered }
            let only = pdf.item(filter, 0)
            defer { pdf.release(only) }
            guard pdf.isName(only, "/FlateDecode") else { throw unfiltered }
            flate = true
        } else if pdf.isNameOrArray(filter) {
            guard pdf.isName(filter, "/FlateDecode") else { throw unfiltered }
            flate = true
        }
        guard !pdf.isDictionary(parameters) else { throw unfiltered }
        let raw = try pdf.rawData(stream)
        let data = flate ? try Gzip.inflateZlib(raw, limit: ZipPackageCleaner.maxMemberBytes) : raw
        guard data.count <= ZipPackageCleaner.maxMemberBytes else {
            throw MediaPrepError(.tooLarge, "a file attached to the PDF is over \(ZipPackageCleaner.maxMemberBytes >> 20) MiB")
        }
        let format = FormatSniffer.sniff(data)
        if format != .unknown, format.isImage || format.isAudioVisual || format.isDocument || format.isPackage,
           let (cleaned, fields) = try EmbeddedDocument.clean(data, format: format, depth: depth + 1) {
            found.formUnion(fields)
            if apply { pdf.replaceData(stream, cleaned) }
        }
        return found.isEmpty ? nil : found
    }

    static let unfiltered = MediaPrepError(.unsupportedFormat, "a file attached to the PDF is stored under a filter other than Flate, so what it says cannot be taken out")

    /// What the trailer's Info dictionary names (and it gone, when `apply`).
    private static func info(_ pdf: QPDFDocument, _ trailer: qpdf_oh, apply: Bool) -> PrivateFields {
        var found: PrivateFields = []
        let info = pdf.value(trailer, "/Info")
        defer { pdf.release(info) }
        guard pdf.isDictionary(info) else { return [] }
        for key in pdf.keys(info) {
            switch key {
            case "/Author": found.insert(.author)
            case "/Title", "/Subject", "/Keywords": found.insert(.title)
            case "/CreationDate", "/ModDate": found.insert(.dates)
            default: found.insert(.other)  // Creator, Producer, an application's own keys
            }
        }
        if apply { pdf.remove(trailer, "/Info") }
        return found
    }

    /// A DCT image (a JPEG file as stored): what it carries (Exif, XMP, IPTC, comments), and the patch
    /// that takes it out of the written file, its entropy-coded data, and so its pixels, byte for
    /// byte. Nil when it carries none.
    private static func picture(_ pdf: QPDFDocument, _ stream: qpdf_oh, _ dict: qpdf_oh) throws -> (PrivateFields, PDFPicturePatch?)? {
        let filter = pdf.value(dict, "/Filter")
        defer { pdf.release(filter) }
        var dct = pdf.isName(filter, "/DCTDecode")
        if !dct, pdf.isArray(filter), pdf.count(filter) == 1 {
            let only = pdf.item(filter, 0)
            dct = pdf.isName(only, "/DCTDecode")
            pdf.release(only)
        }
        guard dct else { return nil }
        let bytes = try pdf.rawData(stream)
        let jpeg = try? JPEGSource(bytes, isWhole: true)
        guard let jpeg, let rewrite = MetadataRewrite.picture(bytes, jpeg: jpeg, orientation: jpeg.orientation) else { return nil }
        // Comments of zeros are what a patch leaves: a PDF cleaned before has nothing more to lose.
        let comments = JPEGMarkers(bytes).metadataSegments(in: bytes).filter { $0.marker == 0xFE }
        if rewrite.found == .comment, comments.allSatisfy({ bytes[$0.payload].allSatisfy { $0 == 0 } }) { return nil }
        return (rewrite.found, PDFPicturePatch(bytes, rewrite))
    }
}

extension DocumentFormats {
    /// "%PDF-" within the first 64 bytes (readers accept a little junk before it).
    static let pdf = FormatEntry(formats: [.pdf]) { h in
        let b = h.b
        return b.count >= 8 && (0...(b.count - 5)).contains(where: { b[$0] == 0x25 && b[$0..<$0 + 5].elementsEqual("%PDF-".utf8) }) ? .pdf : nil
    }
}

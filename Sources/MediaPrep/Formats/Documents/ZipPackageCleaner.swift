import CZip
import UploadPlanner
import Glibc

/// A ZIP and the documents that are ZIPs (DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB) written again by
/// libzip: what names the author taken out of each part, photos and nested documents cleaned as their
/// own kind, members a document opens without dropped; every member's time fixed, comments and extra
/// fields (owner ids, exact times) gone; members left alone copied as stored, never inflated.
enum ZipPackageCleaner {
    /// Bounds checked before anything is inflated (a 42.zip or an overlapping-member bomb costs its
    /// central directory only).
    static let maxMembers = 100_000
    static let maxDepth = 3
    /// A member inflated to be cleaned is read whole: a 24 MP phone photo is 5–12 MB, a long video in
    /// a zip past this is sent refused rather than read into memory.
    static let maxMemberBytes = 256 << 20
    /// A member inflating to more than this many times its stored size, and past 64 MiB, is a bomb.
    static let maxRatio = 1_000
    static let timeLimit = 60.0

    /// What the archive names, how many members are cleaned as their own kind; or why it goes as it came.
    enum Verdict {
        case clean(MetadataRewrite?, PackageFamily)
        case asItCame(String, PackageFamily)
    }

    /// - Parameter depth: how deep inside other archives it is (its members one deeper).
    static func inspect(path: String, size: Int, depth: Int = 0) throws -> Verdict {
        let zip = try ZipArchive(path: path)
        let plan = try survey(zip, size: size, depth: depth)
        if let reason = plan.asItCame { return .asItCame(reason, plan.family) }
        var found = plan.found
        var parts = 0
        let deadline = Deadline(seconds: timeLimit)
        for m in plan.members where m.drop == nil {
            if deadline.passed { throw MediaPrepError(.timeout, "the ZIP's members took longer than \(Int(timeLimit)) s to read") }
            if let (_, fields, part) = try cleaned(zip, m, plan, depth: depth) {
                found.formUnion(fields)
                parts += part ? 1 : 0
            }
        }
        guard !found.isEmpty || parts > 0 else { return .clean(nil, plan.family) }
        var r = MetadataRewrite(sourceSize: size, edits: [], found: found)
        (r.rebuild, r.cleanedParts) = (.zipPackage, parts)
        return .clean(r, plan.family)
    }

    static func write(from source: String, to destination: String, depth: Int = 0) throws {
        let size = try FileBytes.size(source)
        let zip = try ZipArchive(path: source)
        let plan = try survey(zip, size: size, depth: depth)
        if let reason = plan.asItCame { throw MediaPrepError(.unsupportedFormat, reason) }
        let scratch = try Scratch()
        let out = try ZipArchive(path: destination, creating: true)
        let deadline = Deadline(seconds: timeLimit)
        for m in plan.members where m.drop == nil {
            if deadline.passed { throw MediaPrepError(.timeout, "the ZIP's members took longer than \(Int(timeLimit)) s to clean") }
            if let (bytes, _, _) = try cleaned(zip, m, plan, depth: depth) {
                let file = try scratch.put(bytes)
                _ = try out.addFile(m.name, path: file, deflate: m.name != "mimetype" && !m.compressedAlready)
            } else {
                _ = try out.addCopy(m.name, from: zip, index: m.index)
            }
        }
        try out.close()
    }

    // MARK: survey

    struct Member {
        var index: Int
        var name: String
        var entry: czip_entry
        var drop: PrivateFields?
        /// Already compressed content (a photo, a video, a nested ZIP): stored, not deflated again.
        var compressedAlready = false
    }

    struct Survey {
        var family: PackageFamily
        var members: [Member]
        var removed: Set<String>
        var found: PrivateFields
        var asItCame: String?
    }

    /// The central directory read, the bomb bounds checked, the family told, dropped members named.
    private static func survey(_ zip: ZipArchive, size: Int, depth: Int) throws -> Survey {
        guard depth <= maxDepth else { throw MediaPrepError(.tooLarge, "archives nested more than \(maxDepth) deep (an archive bomb?) are not opened") }
        let n = zip.count
        guard n <= maxMembers else { throw MediaPrepError(.tooLarge, "a ZIP of \(n.grouped) members (over \(maxMembers.grouped)) is not opened") }
        var members: [Member] = []
        var stored = 0, inflated = 0
        var found: PrivateFields = zip.hasComment ? .comment : []
        var encrypted = false
        for i in 0..<n {
            guard let name = zip.name(i) else { throw MediaPrepError(.corrupt, "member \(i) of the ZIP has no name") }
            let e = try zip.entry(i)
            stored += Int(clamping: e.compressed)
            inflated += Int(clamping: e.size)
            guard e.size <= UInt64(maxMemberBytes) || e.size <= UInt64(maxRatio) * max(e.compressed, 1) else {
                throw MediaPrepError(.tooLarge, "member \(name) inflates \(e.size / max(e.compressed, 1)) times its size to \(e.size.grouped) bytes (a ZIP bomb?)")
            }
            encrypted = encrypted || e.encrypted != 0
            if zip.hasComment(i) { found.insert(.comment) }
            if zip.extraFields(i) > 0 { found.insert(.other) }
            // 1980-01-01 00:00 local time is what every member is written with; any other time is the author's.
            if e.mtime > 315_576_000 { found.insert(.dates) }
            members.append(Member(index: i, name: name, entry: e))
        }
        // Members whose stored bytes add up to more than the file: they overlap (a bomb that
        // reuses one deflate stream for every member).
        guard stored <= size else { throw MediaPrepError(.tooLarge, "the ZIP's members overlap, \(stored.grouped) stored bytes in a \(size.grouped)-byte file (a ZIP bomb)") }
        let names = Set(members.map(\.name))
        let family = try self.family(zip, members, names)
        var s = Survey(family: family, members: members, removed: [], found: found, asItCame: nil)
        if encrypted { s.asItCame = "a ZIP with encrypted members: what they hold cannot be read without the password" }
        // A signed package (an APK, a signed JAR) no longer installs once rewritten.
        if names.contains("AndroidManifest.xml") || names.contains(where: { $0.hasPrefix("META-INF/") && [".SF", ".RSA", ".DSA", ".EC"].contains(where: $0.uppercased().hasSuffix) }) {
            s.asItCame = "a signed package (an APK or a signed JAR): rewriting it would break its signature"
        }
        for i in s.members.indices {
            let name = s.members[i].name
            if let fields = PackageParts.dropped(name, family) {
                s.members[i].drop = fields
                s.removed.insert(name)
                s.found.formUnion(fields)
            }
            let ext = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
            s.members[i].compressedAlready = ["jpg", "jpeg", "png", "gif", "webp", "heic", "avif", "mp4", "mov", "m4a", "mp3", "zip", "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub"].contains(ext)
        }
        return s
    }

    private static func family(_ zip: ZipArchive, _ members: [Member], _ names: Set<String>) throws -> PackageFamily {
        if names.contains("[Content_Types].xml") { return .office }
        if let m = members.first(where: { $0.name == "mimetype" }), m.entry.size < 256 {
            let type = String(decoding: try zip.read(m.index, limit: 256), as: UTF8.self)
            if type.hasPrefix("application/vnd.oasis.opendocument") { return .openDocument }
            if type.hasPrefix("application/epub+zip") { return .epub }
        }
        return .archive
    }

    // MARK: members

    /// A member's cleaned bytes, what went and whether it was cleaned as its own kind (a picture, a
    /// nested document); nil when it is copied as it is.
    private static func cleaned(_ zip: ZipArchive, _ m: Member, _ plan: Survey, depth: Int) throws -> ([UInt8], PrivateFields, Bool)? {
        let lower = m.name.lowercased()
        let xml = [".xml", ".rels", ".vml", ".opf", ".xhtml", ".html", ".htm"].contains(where: lower.hasSuffix)
        guard !m.name.hasSuffix("/"), m.entry.size > 0 else { return nil }
        if xml, plan.family != .archive {
            let d = try read(zip, m)
            guard let (bytes, found) = PackageParts.clean(m.name, d, plan.family, removed: plan.removed), let bytes else { return nil }
            return (bytes, found, false)
        }
        // Anything else: cleaned as what its bytes say it is.
        let head = try zip.read(m.index, limit: 4096)
        let format = FormatSniffer.sniff(head)
        guard format != .unknown else { return nil }
        if format == .zip || format == .pdf {
            let d = try read(zip, m)
            guard let (bytes, found) = try EmbeddedDocument.clean(d, format: format, depth: depth + 1) else { return nil }
            return (bytes, found, true)
        }
        guard format.isImage || format.isAudioVisual || format.isDocument || format.isPackage else { return nil }
        let d = try read(zip, m)
        guard let (bytes, found) = try EmbeddedDocument.clean(d, format: format, depth: depth + 1) else { return nil }
        return (bytes, found, true)
    }

    private static func read(_ zip: ZipArchive, _ m: Member) throws -> [UInt8] {
        guard m.entry.size <= UInt64(maxMemberBytes) else {
            throw MediaPrepError(.tooLarge, "member \(m.name) of \(m.entry.size.grouped) bytes is over the \(maxMemberBytes >> 20) MiB a member is cleaned in memory")
        }
        let d = try zip.read(m.index, limit: Int(m.entry.size) + 1)
        guard d.count == Int(m.entry.size) else { throw MediaPrepError(.corrupt, "member \(m.name) inflates to \(d.count) bytes, not the \(m.entry.size) its header says") }
        return d
    }

    /// Nested documents are written through files (qpdf and libzip read files): kept in a private
    /// folder (`Scratch`), removed on every path.
    fileprivate static func nested(_ d: [UInt8], depth: Int, _ body: (String, String) throws -> Void) throws -> [UInt8] {
        let scratch = try Scratch()
        let input = try scratch.put(d)
        let output = input + ".out"
        try body(input, output)
        return try FileBytes.read(output, limit: .max)
    }
}

/// A document inside another (a photo in a DOCX, a DOCX in a ZIP, a PDF in a TAR): cleaned as its own
/// kind, in memory.
enum EmbeddedDocument {
    static func clean(_ d: [UInt8], format: MediaFormat, depth: Int) throws -> ([UInt8], PrivateFields)? {
        switch format {
        case .pdf:
            var found: PrivateFields = []
            let out = try ZipPackageCleaner.nested(d, depth: depth) { input, output in
                guard let r = try PDFCleaner.rewrite(path: input, size: d.count, depth: depth) else { return }
                found = r.found
                try PDFCleaner.write(from: input, to: output, depth: depth)
            }
            return found.isEmpty ? nil : (out, found)
        case .zip, .officeDocument, .openDocument, .epub:
            var found: PrivateFields = []
            let out = try ZipPackageCleaner.nested(d, depth: depth) { input, output in
                switch try ZipPackageCleaner.inspect(path: input, size: d.count, depth: depth) {
                case .asItCame(let reason, _): throw MediaPrepError(.unsupportedFormat, reason)
                case .clean(let r, _): found = r?.found ?? []
                }
                try ZipPackageCleaner.write(from: input, to: output, depth: depth)
            }
            return (out, found)
        case .tarGzip:
            guard let r = try TarRewrite.gzip(ByteReader(d), depth: depth) else { return nil }
            return (r.applied(to: d), r.found)
        case .tar:
            guard let r = try TarRewrite.rewrite(ByteReader(d), depth: depth) else { return nil }
            return (r.applied(to: d), r.found)
        case _ where format.isImage:
            let jpeg = format == .jpeg ? try? JPEGSource(d, isWhole: true) : nil
            guard let r = MetadataRewrite.picture(d, jpeg: jpeg, orientation: jpeg?.orientation ?? .up) else { return nil }
            return (r.applied(to: d), r.found)
        default:
            guard let r = try FormatRegistry.rewrite(ByteReader(d), format: format) else { return nil }
            return (r.applied(to: d), r.found)
        }
    }
}

/// A private folder (in `TMPDIR`, never in `--out`) for the members a rewrite writes before libzip
/// reads them back, removed with everything in it when the rewrite is done.
final class Scratch {
    let path: String
    private var count = 0

    init() throws {
        let file = (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") + "/mediaprep-parts"
        var template = Array((file + "-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw MediaPrepError(.writeFailed, "cannot make a scratch folder beside \(file): \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    deinit {
        for i in 0..<count { _ = unlink("\(path)/\(i)"); _ = unlink("\(path)/\(i).out") }
        _ = rmdir(path)
    }

    /// `bytes` in a new file of the folder; its path.
    func put(_ bytes: [UInt8]) throws -> String {
        let file = "\(path)/\(count)"
        count += 1
        let fd = FileNameBytes.withCString(file) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw MediaPrepError(.writeFailed, "cannot write \(file): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard PosixIO.writeAll(fd, bytes) else { throw MediaPrepError(.writeFailed, "cannot write \(file): \(String(cString: strerror(errno)))") }
        return file
    }
}

extension DocumentFormats {
    /// A local file header, or the end record of an empty archive; its family (DOCX, ODT, EPUB…) is
    /// told from its members when opened.
    static let zip = FormatEntry(formats: [.zip, .officeDocument, .openDocument, .epub]) { h in
        h.starts([0x50, 0x4B, 0x03, 0x04]) || h.starts([0x50, 0x4B, 0x05, 0x06]) ? .zip : nil
    }
}

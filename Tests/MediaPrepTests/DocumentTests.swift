import Foundation
import Testing
import CPng
@testable import MediaPrep

/// ZIPs built in tests: stored members, each with the time, the Unix owner extra field and the comment
/// an archiver of the author's writes; the archive's own comment.
enum ZipBuild {
    struct Member { var name: String; var data: [UInt8]; var claimedSize: Int? = nil }

    static func crc32(_ d: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in d {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return ~c
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    /// `overlapping`: every central entry points at the first member's local header (a bomb's trick).
    static func zip(_ members: [Member], comment: String = "zipped by Jane Sender", overlapping: Bool = false) -> [UInt8] {
        var out: [UInt8] = [], central: [UInt8] = []
        let time = le16(10 << 11 | 11 << 5), date = le16((2023 - 1980) << 9 | 4 << 5 | 5)
        let extra: [UInt8] = Array("ux".utf8) + le16(11) + [1, 4] + Bytes.le32(1000) + [4] + Bytes.le32(1000)
        var first = 0
        for m in members {
            let name = Array(m.name.utf8), crc = Bytes.le32(Int(crc32(m.data)))
            let size = Bytes.le32(m.claimedSize ?? m.data.count), stored = Bytes.le32(m.data.count)
            let offset = overlapping ? first : out.count
            if !overlapping || out.isEmpty {
                first = out.count
                out += [0x50, 0x4B, 3, 4] + le16(20) + le16(0) + le16(0) + time + date + crc + stored + size + le16(name.count) + le16(extra.count) + name + extra + m.data
            }
            let entryComment = Array("Jane Sender's".utf8)
            central += [0x50, 0x4B, 1, 2] + le16(0x031E) + le16(20) + le16(0) + le16(0) + time + date + crc + stored + size
                + le16(name.count) + le16(extra.count) + le16(entryComment.count) + le16(0) + le16(0) + Bytes.le32(0o100644 << 16)
                + Bytes.le32(offset) + name + extra + entryComment
        }
        let c = Array(comment.utf8)
        return out + central + [0x50, 0x4B, 5, 6, 0, 0, 0, 0] + le16(members.count) + le16(members.count)
            + Bytes.le32(central.count) + Bytes.le32(out.count) + le16(c.count) + c
    }
}

/// PDFs, Office, OpenDocument and EPUB packages, ZIP and TAR archives and HTML pages leave without
/// their author (#55): built here, each naming "Jane Sender", a company, a device and a date.
@Suite struct DocumentTests {
    static let photo: [UInt8] = (try? Fixture.bytes("photo.jpg")) ?? []  // TestCam, GPS
    static let markers = ["Jane", "Acme", "TestCam", "2023-04-05", "20230405", "C:\\Users", "/home/jane", "SN-4417"]

    static func leaks(_ d: [UInt8]) -> [String] {
        markers.filter { Bytes.contains(d, $0) } + (PictureMetadata(jpeg: d).gps ? ["GPS"] : [])
    }

    /// The photo's entropy-coded data (its pixels), from its first SOS on.
    static var scan: [UInt8] {
        let sos = (0..<(photo.count - 1)).first { photo[$0] == 0xFF && photo[$0 + 1] == 0xDA } ?? 0
        return Array(photo[sos...])
    }

    static func pdfStream(_ dict: String, _ data: [UInt8]) -> [UInt8] {
        Array("<< \(dict) /Length \(data.count) >>\nstream\n".utf8) + data + Array("\nendstream".utf8)
    }

    /// Objects 1… (1 the catalog) with their cross-reference table and trailer; the file and where its table starts.
    static func pdfFile(_ objects: [[UInt8]], trailer: String = "") -> ([UInt8], Int) {
        var out = Array("%PDF-1.7\n%\u{E2}\u{E3}\n".utf8), offsets: [Int] = []
        for (i, body) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(i + 1) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for o in offsets { out += Array(String(format: "%010d 00000 n \n", o).utf8) }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R \(trailer) >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return (out, xref)
    }

    /// A PDF as an office suite writes one and then saves again: Info, XMP, PieceInfo, a page thumbnail,
    /// an annotation by its author, the phone photo as a DCT image; an incremental update with a new Info.
    static func pdf(photo: [UInt8] = photo) -> [UInt8] {
        let xmp = Array("<x:xmpmeta><dc:creator>Jane Sender</dc:creator></x:xmpmeta>".utf8)
        let content = Array("BT /F1 24 Tf 72 720 Td (Contract) Tj ET q 120 0 0 90 72 400 cm /Im1 Do Q".utf8)
        func stream(_ dict: String, _ data: [UInt8]) -> [UInt8] { Array("<< \(dict) /Length \(data.count) >>\nstream\n".utf8) + data + Array("\nendstream".utf8) }
        let objects: [[UInt8]] = [
            Array("<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R /PieceInfo << /App << /Private (C:\\\\Users\\\\jane) >> >> >>".utf8),
            Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
            Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 7 0 R >> >> /Annots [8 0 R] /Thumb 9 0 R /LastModified (D:20230405101112) >>".utf8),
            stream("", content),
            Array("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".utf8),
            stream("/Type /Metadata /Subtype /XML", xmp),
            stream("/Type /XObject /Subtype /Image /Width 1200 /Height 900 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", photo),
            Array("<< /Type /Annot /Subtype /Text /Rect [72 72 92 92] /T (Jane Sender) /Contents (please sign) /M (D:20230405101112) >>".utf8),
            stream("/Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8", [0x80]),
            Array("<< /Author (Jane Sender) /Producer (Acme Writer SN-4417) /CreationDate (D:20230405101112) >>".utf8),
        ]
        let (file, xref) = pdfFile(objects, trailer: "/Info 10 0 R")
        var out = file
        let o11 = out.count
        out += Array("11 0 obj\n<< /Author (Jane Q. Sender) >>\nendobj\n".utf8)
        let xref2 = out.count
        out += Array(String(format: "xref\n0 1\n0000000000 65535 f \n11 1\n%010d 00000 n \n", o11).utf8)
        out += Array("trailer\n<< /Size 12 /Root 1 0 R /Info 11 0 R /Prev \(xref) >>\nstartxref\n\(xref2)\n%%EOF\n".utf8)
        return out
    }

    @Test func aPDFLosesItsAuthorEveryRevisionAndItsPhotosExifButNoPixel() throws {
        let input = Self.pdf()
        #expect(!Self.leaks(input).isEmpty)
        let (item, out, reasons) = try preparedDocument(input, name: "contract.pdf")
        #expect(item.route == .stripped)
        #expect(Self.leaks(out) == [])
        #expect(!Bytes.contains(out, "Jane Q."))      // the later revision's Info too
        #expect(!Bytes.contains(out, "/Thumb") && !Bytes.contains(out, "/PieceInfo") && !Bytes.contains(out, "/Metadata"))
        #expect(Bytes.contains(out, "please sign"))   // the annotation stays, without its author
        #expect(Self.has(out, Self.scan))       // the photo's pixels byte for byte
        #expect(Bytes.contains(out, "/ID"))           // a fresh one
        let said = reasons.joined(separator: " ")
        #expect(said.contains("author") && said.contains("XMP") && said.contains("thumbnails") && said.contains("1 embedded part cleaned"), "\(reasons)")
        // Read back by qpdf as a whole document: the same one page.
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let again = try Fixture.write(out, "again.pdf", in: dir)
        #expect(try PDFCleaner.rewrite(path: again, size: out.count) == nil)  // nothing left to take out
    }

    /// Bytes after a picture's end (a motion photo's video, an appended note) go too, zeroed in place.
    @Test func aPDFsPictureLosesWhatFollowsItsEnd() throws {
        let (_, out, _) = try preparedDocument(Self.pdf(photo: Self.photo + Array("appended by Jane Sender".utf8)), name: "tail.pdf")
        #expect(Self.leaks(out) == [] && Self.has(out, Self.scan))
    }

    /// zlib's own format (a PDF's FlateDecode), through libpng's zlib.
    static func zlib(_ d: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(PNGLibrary.zlib.compressBound(uLong(d.count))))
        var length = uLong(out.count)
        try #require(PNGLibrary.zlib.compress2(&out, &length, d, uLong(d.count), 6) == Z_OK)
        return Array(out.prefix(Int(length)))
    }

    /// A file attached to a PDF (its /EmbeddedFiles, stored as it is or deflated, as writers store
    /// them): its dates go, and its content is cleaned as its own kind (here the phone photo, GPS and
    /// camera), stored again.
    @Test(arguments: [false, true]) func aPDFsAttachmentLosesItsDatesAndItsPhotosExif(deflated: Bool) throws {
        let stored = deflated ? try Self.zlib(Self.photo) : Self.photo
        let objects: [[UInt8]] = [
            Array("<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(IMG_0001.jpg) 4 0 R] >> >> >>".utf8),
            Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
            Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".utf8),
            Array("<< /Type /Filespec /F (IMG_0001.jpg) /UF (IMG_0001.jpg) /EF << /F 5 0 R >> >>".utf8),
            Self.pdfStream("/Type /EmbeddedFile \(deflated ? "/Filter /FlateDecode " : "")/Params << /ModDate (D:20230405101112) /Size \(Self.photo.count) >>", stored),
        ]
        let (pdf, _) = Self.pdfFile(objects)
        #expect(!Self.leaks(deflated ? Self.photo : pdf).isEmpty)
        let (item, out, reasons) = try preparedDocument(pdf, name: "invoice.pdf")
        #expect(item.route == .stripped && reasons.joined().contains("location") && reasons.joined().contains("dates"), "\(reasons)")
        #expect(Self.leaks(out) == [] && !Bytes.contains(out, "/ModDate") && Self.has(out, Self.scan))
    }

    @Test func aPDFQpdfCannotReadGoesAsItCameAndSaysSo() throws {
        let input = Array("%PDF-1.4\n1 0 obj << /Author (Jane Sender) garbage".utf8) + [UInt8](repeating: 0x41, count: 300)
        let (item, out, reasons) = try preparedDocument(input, name: "broken.pdf")
        #expect(item.route == .original && out == input)
        #expect(reasons.joined().contains("sent as it came"), "\(reasons)")
    }

    @Test func anEncryptedPDFIsSaidPlainly() throws {
        let qpdf = "/usr/bin/qpdf"
        try #require(FileManager.default.isExecutableFile(atPath: qpdf), "qpdf (scripts/install-deps.sh)")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = try Fixture.write(Self.pdf(), "plain.pdf", in: dir)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: qpdf)
        p.arguments = ["--encrypt", "", "owner", "256", "--", plain, dir + "/locked.pdf"]
        try p.run()
        p.waitUntilExit()
        let (item, _, reasons) = try preparedDocument(try FileBytes.read(dir + "/locked.pdf"), name: "locked.pdf")
        #expect(item.route == .original)
        #expect(reasons.joined().contains("an encrypted PDF"), "\(reasons)")
    }

    static let w = #"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#

    static func docx(photo: [UInt8] = photo) -> [UInt8] {
        ZipBuild.zip([
            .init(name: "[Content_Types].xml", data: Array(#"<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/docProps/custom.xml" ContentType="x"/><Override PartName="/word/document.xml" ContentType="y"/></Types>"#.utf8)),
            .init(name: "_rels/.rels", data: Array(#"<Relationships><Relationship Id="rId1" Target="word/document.xml"/><Relationship Id="rId4" Target="docProps/custom.xml"/><Relationship Id="rId5" Target="docProps/thumbnail.jpeg"/></Relationships>"#.utf8)),
            .init(name: "docProps/core.xml", data: Array(#"<cp:coreProperties xmlns:cp="c" xmlns:dc="d"><dc:creator>Jane Sender</dc:creator><dcterms:created>2023-04-05T10:11:12Z</dcterms:created></cp:coreProperties>"#.utf8)),
            .init(name: "docProps/app.xml", data: Array(#"<Properties><Company>Acme</Company><Template>C:\Users\jane\Normal.dotm</Template></Properties>"#.utf8)),
            .init(name: "docProps/custom.xml", data: Array("<Properties><property>SN-4417</property></Properties>".utf8)),
            .init(name: "docProps/thumbnail.jpeg", data: photo),
            .init(name: "word/document.xml", data: Array(#"<w:document \#(w)><w:body><w:p w:rsidR="00A1B2C3"><w:r w:rsidRPr="00D4E5F6"><w:t>The figures are </w:t></w:r><w:ins w:id="1" w:author="Jane Sender" w:date="2023-04-05T10:11:12Z"><w:r><w:t>final</w:t></w:r></w:ins></w:p></w:body></w:document>"#.utf8)),
            .init(name: "word/settings.xml", data: Array(#"<w:settings \#(w)><w:attachedTemplate r:id="rId1"/><w:rsids><w:rsidRoot w:val="00A1B2C3"/></w:rsids><w:zoom w:percent="100"/></w:settings>"#.utf8)),
            .init(name: "word/_rels/settings.xml.rels", data: Array(#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" Target="file:///C:\Users\jane\Acme.dotm" TargetMode="External"/></Relationships>"#.utf8)),
            .init(name: "word/printerSettings/printerSettings1.bin", data: Array("Acme LaserJet".utf8)),
            .init(name: "word/media/image1.jpeg", data: photo),
        ])
    }

    @Test func aDOCXKeepsItsTextAndLosesItsAuthorTemplatePrinterAndPhotoGPS() throws {
        let (item, out, reasons) = try preparedDocument(Self.docx(), name: "report.docx")
        #expect(item.route == .stripped)
        #expect(item.format == .officeDocument)
        let said = reasons.joined(separator: " ")
        for word in ["author", "company", "dates", "template path", "revision ids", "printer settings", "thumbnails", "location"] {
            #expect(said.contains(word), "\(word): \(reasons)")
        }
        let members = try Self.members(out)
        #expect(members.keys.sorted() == ["[Content_Types].xml", "_rels/.rels", "docProps/app.xml", "docProps/core.xml",
                                          "word/_rels/settings.xml.rels", "word/document.xml", "word/media/image1.jpeg", "word/settings.xml"])
        for (name, data) in members { #expect(Self.leaks(data) == [], "\(name)") }
        let document = String(decoding: members["word/document.xml"] ?? [], as: UTF8.self)
        #expect(document.contains("The figures are ") && document.contains("<w:t>final</w:t>") && !document.contains("rsid"))
        #expect(document.contains(#"w:author="""#))
        let settings = String(decoding: members["word/settings.xml"] ?? [], as: UTF8.self)
        #expect(!settings.contains("attachedTemplate") && !settings.contains("rsids") && settings.contains("w:zoom"))
        #expect(!String(decoding: members["[Content_Types].xml"] ?? [], as: UTF8.self).contains("custom.xml"))
        #expect(!String(decoding: members["_rels/.rels"] ?? [], as: UTF8.self).contains("thumbnail"))
        #expect(Self.has(members["word/media/image1.jpeg"] ?? [], Self.scan))
    }

    /// Every member at 1980-01-01, no comment, no extra field; the archive without its comment.
    @Test func aZIPOfPhotosKeepsItsNamesAndLosesTimesOwnersCommentsAndGPS() throws {
        let input = ZipBuild.zip([.init(name: "holiday/IMG_0001.jpg", data: Self.photo), .init(name: "holiday/notes.txt", data: Array("beach\n".utf8))])
        let (item, out, reasons) = try preparedDocument(input, name: "holiday.zip")
        #expect(item.route == .stripped && item.format == .zip)
        #expect(reasons.joined().contains("comment") && reasons.joined().contains("1 embedded part cleaned"), "\(reasons)")
        #expect(Self.leaks(out) == [])
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let zip = try ZipArchive(path: try Fixture.write(out, "out.zip", in: dir))
        #expect(!zip.hasComment)
        #expect((0..<zip.count).compactMap { zip.name($0) } == ["holiday/IMG_0001.jpg", "holiday/notes.txt"])
        for i in 0..<zip.count {
            #expect(!zip.hasComment(i) && zip.extraFields(i) == 0)
            #expect(try zip.entry(i).mtime <= 315_576_000)
        }
        #expect(try zip.read(1, limit: 100) == Array("beach\n".utf8))
    }

    static func odt() -> [UInt8] {
        ZipBuild.zip([
            .init(name: "mimetype", data: Array("application/vnd.oasis.opendocument.text".utf8)),
            .init(name: "META-INF/manifest.xml", data: Array(#"<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"/><manifest:file-entry manifest:full-path="Thumbnails/thumbnail.png"/></manifest:manifest>"#.utf8)),
            .init(name: "meta.xml", data: Array("<office:document-meta><office:meta><meta:initial-creator>Jane Sender</meta:initial-creator></office:meta></office:document-meta>".utf8)),
            .init(name: "content.xml", data: Array("<office:document-content><text:p>Dear neighbour<office:annotation><dc:creator>Jane Sender</dc:creator><dc:date>2023-04-05T10:11:12</dc:date><text:p>tone down</text:p></office:annotation></text:p></office:document-content>".utf8)),
            .init(name: "settings.xml", data: Array(#"<config:config-item config:name="PrinterName">Acme LaserJet</config:config-item>"#.utf8)),
            .init(name: "Thumbnails/thumbnail.png", data: Array("png".utf8)),
        ])
    }

    @Test func anODTKeepsItsMimetypeFirstAndStoredAndLosesItsMeta() throws {
        let (item, out, _) = try preparedDocument(Self.odt(), name: "letter.odt")
        #expect(item.format == .openDocument)
        #expect(Self.leaks(out) == [])
        // mimetype: the first member, stored, so its type sits at byte 38 as readers look for it.
        #expect(Array(out[30..<38]) == Array("mimetype".utf8) && Array(out[38..<77]) == Array("application/vnd.oasis.opendocument.text".utf8))
        let members = try Self.members(out)
        #expect(members["Thumbnails/thumbnail.png"] == nil)
        #expect(!String(decoding: members["META-INF/manifest.xml"] ?? [], as: UTF8.self).contains("Thumbnails"))
        #expect(String(decoding: members["content.xml"] ?? [], as: UTF8.self).contains("Dear neighbour"))
        #expect(String(decoding: members["content.xml"] ?? [], as: UTF8.self).contains("tone down"))
    }

    /// A book's title and author are its content and stay; the tool that made it, its dates and its
    /// identifier go.
    static func epub() -> [UInt8] {
        let opf = #"<package unique-identifier="uid"><metadata><dc:identifier id="uid">urn:isbn:SN-4417</dc:identifier><dc:title>Walks</dc:title><dc:creator>Ann Author</dc:creator><dc:contributor>Acme converter</dc:contributor><dc:date>2023-04-05</dc:date><meta property="dcterms:modified">2023-04-05T10:11:12Z</meta><meta name="cover" content="c"/></metadata></package>"#
        let input = ZipBuild.zip([.init(name: "mimetype", data: Array("application/epub+zip".utf8)), .init(name: "OEBPS/content.opf", data: Array(opf.utf8)),
                                  .init(name: "OEBPS/p.xhtml", data: Array(#"<html><head><meta name="author" content="Jane Sender"/></head><body>Walk one</body></html>"#.utf8))])
        return input
    }

    @Test func anEPUBKeepsItsTitleAndAuthor() throws {
        let (item, out, _) = try preparedDocument(Self.epub(), name: "book.epub")
        #expect(item.format == .epub)
        #expect(Self.leaks(out) == [])
        let kept = String(decoding: try Self.members(out)["OEBPS/content.opf"] ?? [], as: UTF8.self)
        #expect(kept.contains("<dc:title>Walks</dc:title>") && kept.contains("<dc:creator>Ann Author</dc:creator>") && kept.contains(#"<meta name="cover" content="c"/>"#))
        #expect(kept.contains(#"<dc:identifier id="uid">urn:uuid:"#) && kept.contains("2000-01-01T00:00:00Z"))
    }

    @Test func archiveBombsAreRefusedFromTheirDirectory() throws {
        // Overlapping members: 200 central entries over one 1 KiB member.
        let overlap = ZipBuild.zip((0..<200).map { .init(name: "f\($0)", data: [UInt8](repeating: 0, count: 1024)) }, overlapping: true)
        let (item, _) = try Self.refused(overlap, "overlap.zip")
        #expect(item.error?.code == .corrupt && item.error?.message.contains("overlap") == true, "\(String(describing: item.error))")
        // A member claiming to inflate 10 bytes to 1 GiB.
        let ratio = ZipBuild.zip([.init(name: "zeros", data: [UInt8](repeating: 0, count: 10), claimedSize: 1 << 30)])
        #expect(try Self.refused(ratio, "ratio.zip").item.error?.code == .tooLarge)
        // Nested five deep (42.zip's shape).
        var nest = ZipBuild.zip([.init(name: "photo.jpg", data: Self.photo)])
        for i in 0..<5 { nest = ZipBuild.zip([.init(name: "level\(i).zip", data: nest)]) }
        let nested = try Self.refused(nest, "nest.zip")
        #expect(nested.item.error?.code == .tooLarge && nested.item.error?.message.contains("nested") == true)
    }

    @Test func aSignedPackageGoesAsItCame() throws {
        let apk = ZipBuild.zip([.init(name: "AndroidManifest.xml", data: [1, 2, 3]), .init(name: "META-INF/CERT.RSA", data: [4])])
        let (item, out, reasons) = try preparedDocument(apk, name: "app.apk")
        #expect(item.route == .original && out == apk)
        #expect(reasons.joined().contains("signature") && reasons.joined().contains("sent as it came"), "\(reasons)")
    }

    /// `--strict`: what cannot be cleaned is refused, by `prepare` and `check` alike.
    @Test func strictRefusesWhatCannotBeCleaned() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(Array("%PDF-1.4\n1 0 obj << /Author (Jane Sender) garbage".utf8), "broken.pdf", in: dir)
        var media = MediaOptions()
        media.refuseUncleaned = true
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.media = media
        let item = preparer.prepare(path: path)
        #expect(item.output == nil && item.error?.code == .unsupportedFormat && item.error?.message.contains("--strict") == true)
        var check = SendCheck()
        check.media = media
        #expect(check.check(path: path).verdict == .cannotSend)
    }

    static func tar(photo: [UInt8] = photo) -> [UInt8] {
        func header(_ name: String, size: Int, type: UInt8) -> [UInt8] {
            var h = [UInt8](repeating: 0, count: 512)
            func put(_ s: String, _ at: Int) { for (i, b) in s.utf8.enumerated() { h[at + i] = b } }
            put(name, 0); put("0000644", 100); put("0001750", 108); put("0001750", 116)
            put(String(format: "%011o", size), 124); put(String(format: "%011o", 1_680_689_472), 136)
            h[156] = type; put("ustar", 257); put("00", 263); put("janesender", 265); put("staff", 297)
            let sum = h.enumerated().reduce(0) { $0 + ((148..<156).contains($1.offset) ? 0x20 : Int($1.element)) }
            put(String(format: "%06o", sum), 148); h[154] = 0; h[155] = 0x20
            return h
        }
        func padded(_ d: [UInt8]) -> [UInt8] { d + [UInt8](repeating: 0, count: (d.count + 511) / 512 * 512 - d.count) }
        let record = "29 comment=taken by Jane Sen\n"
        let pax = Array("\(record.utf8.count) comment=taken by Jane Sen\n".utf8)
        return header("PaxHeaders/IMG_0001.jpg", size: pax.count, type: 0x78) + padded(pax)
            + header("holiday/IMG_0001.jpg", size: photo.count, type: 0x30) + padded(photo)
            + header("holiday/notes.txt", size: 6, type: 0x30) + padded(Array("beach\n".utf8)) + [UInt8](repeating: 0, count: 1024)
    }

    @Test func aTARLosesItsOwnersTimesAndPaxCommentAndKeepsItsNames() throws {
        let (item, out, reasons) = try preparedDocument(Self.tar(), name: "holiday.tar")
        #expect(item.route == .stripped && item.format == .tar)
        #expect(reasons.joined().contains("owner names"), "\(reasons)")
        #expect(Self.leaks(out) == [] && !Bytes.contains(out, "janesender") && !Bytes.contains(out, "Jane Sen"))
        #expect(Bytes.contains(out, "holiday/IMG_0001.jpg") && Bytes.contains(out, "holiday/notes.txt") && Self.has(out, Self.scan))
        #expect(out.count % 512 == 0)
    }

    @Test func aCompressedTARIsCleanedInsideAndCompressedAgain() throws {
        let (item, out, reasons) = try preparedDocument(try Gzip.compress(Self.tar()), name: "holiday.tgz")
        #expect(item.format == .tarGzip && item.route == .stripped && reasons.joined().contains("owner names"), "\(reasons)")
        let tar = try Gzip.inflate(out, limit: 1 << 24)
        #expect(Self.leaks(tar) == [] && !Bytes.contains(tar, "janesender") && Self.has(tar, Self.scan))
    }

    /// Fuzzing found it: a pax record whose length is shorter than its own length field.
    @Test func aPaxRecordShorterThanItsLengthIsNoCrash() throws {
        var tar = Self.tar()
        let bad = Array("1 x".utf8)
        tar.replaceSubrange(512..<(512 + bad.count), with: bad)
        _ = try? TarRewrite.rewrite(ByteReader(tar))
    }

    static let page = Array(#"<!DOCTYPE html><!-- saved from url=(0031)file:///home/jane/page.html --><html><head><meta name="author" content="Jane Sender"><meta name=generator content=Acme><meta charset="utf-8"><title>Trip</title></head><body>Photos</body></html>"#.utf8)

    @Test func anHTMLPageLosesItsMetaAuthorAndKeepsItsLength() throws {
        let page = Self.page
        let (item, out, _) = try preparedDocument(page, name: "page.html")
        #expect(item.format == .html)
        #expect(out.count == page.count && Self.leaks(out) == [] && Bytes.contains(out, "<title>Trip</title>") && Bytes.contains(out, #"<meta charset="utf-8">"#))
    }

    // MARK: helpers

    static func has(_ d: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, d.count >= needle.count else { return false }
        return (0...(d.count - needle.count)).contains { d[$0] == first && d[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    static func refused(_ bytes: [UInt8], _ name: String) throws -> (item: PreparedItem, reasons: [String]) {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(bytes, name, in: dir)
        let start = Date()
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(item.output == nil)
        return (item, SendCheck().check(path: path).reasons)
    }

    static func members(_ zip: [UInt8]) throws -> [String: [UInt8]] {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let z = try ZipArchive(path: try Fixture.write(zip, "read.zip", in: dir))
        var out: [String: [UInt8]] = [:]
        for i in 0..<z.count { if let name = z.name(i) { out[name] = try z.read(i, limit: Int(try z.entry(i).size)) } }
        return out
    }
}

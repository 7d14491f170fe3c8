import Foundation
import Testing
import CPng
@testable import MediaPrep

/// Nothing private leaves: whatever image kind comes in (kept, stripped, rotated or re-encoded),
/// the file sent carries no Exif, GPS, XMP, comment or camera strings.
@Suite struct NothingPrivateTests {
    static let images: [String] = CheckAgreesWithPrepareTests.fixtures.filter { name in
        let format = FormatSniffer.sniff((try? FileBytes.head(Fixture.path(name), count: 64)) ?? [])
        return format.isImage
    }

    static let markers: [(String, [UInt8])] = [
        ("Exif block", Array("Exif\0\0".utf8)), ("XMP", Array("http://ns.adobe.com/xap/".utf8)),
        ("camera make", Array("TestCam".utf8)), ("camera model", Array("Test Phone".utf8)),
        ("comment", Array("secret comment".utf8)), ("ICC profile", Array("ICC_PROFILE".utf8)),
    ]

    @Test(arguments: images) func outputCarriesNoMetadata(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        guard let out = item.output else { return }  // refused inputs send nothing
        let bytes = try FileBytes.read(out)
        for (what, marker) in Self.markers {
            #expect(!bytes.contains(sequence: marker), "\(name) → \(out) still carries its \(what)")
        }
        // A JPEG's segments: no Exif (GPS lives inside it), XMP, ICC, comment or other APPn.
        if bytes.starts(with: [0xFF, 0xD8]) { #expect(PictureMetadata(jpeg: bytes).isEmpty, "\(name): \(PictureMetadata(jpeg: bytes))") }
    }

    /// Bytes after a kept image's own end (JPEG EOI, PNG IEND, GIF trailer), where phones put a
    /// trailer or a motion photo's video, and a COM segment between a progressive JPEG's scans: gone,
    /// the rest byte for byte as sent without them. Before, each went out (route `untouched`).
    @Test(arguments: ["small.jpg", "progressive.jpg", "palette.png", "anim.gif"])
    func whatFollowsTheImageIsCut(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        var plain = try Fixture.bytes(name)
        var input = plain
        if name == "progressive.jpg" {
            // A comment before the second scan: the header walk never sees it.
            let second = try #require(JPEGMarkers(plain).tail(in: plain).segments.first { $0.marker == 0xDA })
            let comment = [0xFF, 0xFE] + Bytes.be32(2 + 11).suffix(2) + Array("Jane Sender".utf8)
            input.insert(contentsOf: comment, at: second.payload.lowerBound - 4)
            plain = try #require(JPEGStripper.strip(plain))
        }
        input += Array("SEFT Jane Sender 2026:11:26".utf8)
        let path = try Fixture.write(input, "trailer-" + name, in: dir)
        let check = SendCheck().check(path: path)
        #expect(check.verdict == .afterPreparation && check.reasons.last == "27 bytes after the image's end removed", "\(check.reasons)")
        let item = preparer.prepare(path: path)
        #expect(item.route == .stripped)
        let out = try FileBytes.read(try #require(item.output))
        #expect(!out.contains(sequence: Array("Jane Sender".utf8)))
        let without = try FileBytes.read(try #require(preparer.prepare(path: try Fixture.write(plain, "plain-" + name, in: dir)).output))
        #expect(out == without, "\(name)")
    }

    /// A long screenshot sent as a file (`--long-images file`) keeps its own bytes but not what names
    /// the sender; a JPEG keeps its orientation (a one-tag Exif), and both keep their pixels byte for byte.
    @Test func aLongPictureSentAsAFileLosesItsMetadata() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (preparer, check) = Self.sendingLongPicturesAsFiles(into: dir + "/out")
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = typed.withUnsafeBufferPointer { b in PNGLibrary.zlib.crc32(0, b.baseAddress, UInt32(b.count)) }
            return Bytes.be32(body.count) + typed + Bytes.be32(Int(crc))
        }
        let png = try Fixture.bytes("screenshot-long.png")
        let taggedPNG = Array(png[0..<33]) + chunk("tEXt", Array("Author\0Jane Sender".utf8)) + chunk("tIME", [7, 234, 11, 26, 1, 2, 3])
            + Array(png[33...]) + Array("Jane Sender".utf8)
        let pngPath = try Fixture.write(taggedPNG, "long.png", in: dir)
        #expect(check.check(path: pngPath).reasons.last == "author, dates, other tags removed (pixels untouched)")
        let pngOut = preparer.prepare(path: pngPath)
        #expect(pngOut.kind == .file && pngOut.route == .stripped)
        #expect(try FileBytes.read(try #require(pngOut.output)) == png)

        // A JPEG 60×1000 turned 180° by Exif, which also names the camera and holds a GPS pointer.
        let gray = try PixelBuffer(width: 60, height: 1000, layout: .gray, bytes: (0..<60_000).map { UInt8($0 % 251) })
        let plain = try JPEGEncoder().encode(gray, quality: 80)
        let ifd: [UInt8] = [0, 3] + [0x01, 0x0F, 0, 2] + Bytes.be32(8) + Bytes.be32(50) + [0x01, 0x12, 0, 3] + Bytes.be32(1) + [0, 3, 0, 0]
            + [0x88, 0x25, 0, 4] + Bytes.be32(1) + Bytes.be32(0) + Bytes.be32(0)
        let exif = Array("Exif\0\0".utf8) + Array("MM".utf8) + [0, 42] + Bytes.be32(8) + ifd + Array("TestCam\0".utf8)
        let jpeg = Array(plain[0..<2]) + [0xFF, 0xE1] + Bytes.be32(exif.count + 2).suffix(2) + exif + Array(plain[2...]) + Array("Jane Sender".utf8)
        let jpegPath = try Fixture.write(jpeg, "long.jpg", in: dir)
        #expect(check.check(path: jpegPath).reasons.last == "location, device, other tags removed (pixels untouched)")
        let jpegOut = preparer.prepare(path: jpegPath)
        let sent = try FileBytes.read(try #require(jpegOut.output))
        #expect(jpegOut.kind == .file && !sent.contains(sequence: Array("TestCam".utf8)) && !sent.contains(sequence: Array("Jane".utf8)))
        #expect(ExifOrientation.fromJPEG(sent) == .down && sent.suffix(plain.count - 2) == plain.suffix(plain.count - 2))
    }

    /// Every other format a long screenshot comes in, each written by exiftool with GPS, a phone
    /// model, a capture date and an XMP creator (`make-private-fixtures.sh`): HEIC and AVIF keep every
    /// box in place (Exif and XMP items emptied to their own lengths), JPEG XL's `Exif` and `xml `
    /// boxes the same, TIFF its IFDs with the values zeroed, GIF loses its comment. Before, all but
    /// the GIF's pixels went out as they came, metadata and all ("metadata kept").
    @Test(arguments: ["private-long.heic", "private-long.avif", "private-long.jxl", "private-long.tif", "private-long.gif"])
    func everyLongPictureSentAsAFileLosesItsMetadata(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (preparer, check) = Self.sendingLongPicturesAsFiles(into: dir + "/out")
        let input = try Fixture.bytes(name)
        let private_ = ["Jane Sender", "iPhone 15 Pro", "Rue de Rivoli", "2026:06:01"].map { Array($0.utf8) }
        #expect(private_.contains { input.contains(sequence: $0) }, "\(name) carries nothing to remove")
        let verdict = check.check(path: Fixture.path(name))
        #expect(verdict.verdict == .afterPreparation && verdict.reasons.last?.hasSuffix("removed (pixels untouched)") == true, "\(verdict.reasons)")
        #expect(!verdict.reasons.contains("metadata kept: a file is sent as it is"))
        let item = preparer.prepare(path: Fixture.path(name))
        #expect(item.kind == .file && item.route == .stripped, "\(String(describing: item.error))")
        let outPath = try #require(item.output)
        let out = try FileBytes.read(outPath)
        for field in private_ { #expect(!out.contains(sequence: field), "\(name) still says \(String(decoding: field, as: UTF8.self))") }
        if name.hasSuffix(".gif") {
            #expect(out.count < input.count)
        } else {
            // Nothing moves: only bytes that held metadata changed.
            #expect(out.count == input.count)
        }
        if name.hasSuffix(".heic") || name.hasSuffix(".avif") {
            // The items stay, emptied: no GPS in the Exif, an XMP packet that says nothing.
            let m = try HEIFDecoder.header(out, format: FormatSniffer.sniff(out), maxPixels: 1 << 20).metadata
            #expect(!m.gps, "\(m)")
        }
        let before = try ImageLoader.load(data: input, path: Fixture.path(name))
        let after = try ImageLoader.load(data: out, path: outPath)
        #expect(before.pixels.bytes == after.pixels.bytes && before.orientation == after.orientation)
    }

    /// A HEIC turned by its Exif alone (no `irot`, as `heif-enc` writes it): the emptied Exif keeps
    /// that one tag, so the picture still decodes upright; the GPS and the camera go.
    @Test func aHEICTurnedByExifStaysTurned() throws {
        let input = try Fixture.bytes("orient-gps.heic")
        let before = try HEIFDecoder.header(input, format: .heic, maxPixels: 1 << 24)
        #expect(before.orientation != .up && before.metadata.gps)
        let rewrite = try #require(MetadataRewrite.picture(input, jpeg: nil, orientation: before.orientation))
        let out = Self.applied(rewrite, to: input)
        let after = try HEIFDecoder.header(out, format: .heic, maxPixels: 1 << 24)
        #expect(out.count == input.count && after.orientation == before.orientation && !after.metadata.gps)
        #expect(!out.contains(sequence: Array("Test Phone".utf8)) && rewrite.found.contains(.location))
    }

    /// A Samsung motion photo in HEIC keeps its seconds of video in a top-level `mpvd` box: an MP4
    /// with its own location, phone and dates. They go as a video's would, in place; the box, the
    /// picture and the video's frames stay.
    @Test func aMotionPhotosVideoLosesItsMetadata() throws {
        let heic = try Fixture.bytes("orient-gps.heic"), clip = try Fixture.bytes("private-android.mp4")
        let input = heic + Bytes.be32(clip.count + 8) + Array("mpvd".utf8) + clip
        #expect(input.contains(sequence: Array("+48.8".utf8)) || input.contains(sequence: Array("\u{A9}xyz".utf8)))
        let turned = try HEIFDecoder.header(heic, format: .heic, maxPixels: 1 << 24).orientation
        let rewrite = try #require(MetadataRewrite.picture(input, jpeg: nil, orientation: turned))
        let out = Self.applied(rewrite, to: input)
        #expect(out.count == input.count && rewrite.found.contains(.location))
        #expect(try HEIFDecoder.header(out, format: .heic, maxPixels: 1 << 24).orientation == turned)
        let video = Array(out[(heic.count + 8)...])
        #expect(!video.contains(sequence: Array("\u{A9}xyz".utf8)) && !video.contains(sequence: Array("com.android.version".utf8)))
        let original = try #require(try MP4MetadataStripper.rewrite(ByteReader(clip))).applied(to: clip)
        #expect(Array(video.prefix(original.count)) == original)  // as the clip alone is stripped
    }

    /// The same for a WebP (the probe hands a long one to `MetadataRewrite.picture` as it does a
    /// JPEG or PNG): its EXIF and XMP chunks cut, the RIFF size and the VP8X flags following.
    @Test func aWebPSentAsAFileLosesItsExifAndXMP() throws {
        let plain = try Fixture.bytes("image.webp")  // simple format: RIFF, WEBP, one VP8 chunk
        let vp8 = Array(plain[12...])
        func chunk(_ tag: String, _ body: [UInt8]) -> [UInt8] { Array(tag.utf8) + Bytes.le32(body.count) + body + (body.count % 2 == 1 ? [0] : []) }
        let header = try WebPDecoder.header(plain)
        let canvas = Bytes.le32(header.width - 1).prefix(3) + Bytes.le32(header.height - 1).prefix(3)
        func file(flags: UInt8, _ extra: [UInt8]) -> [UInt8] {
            let body = Array("WEBP".utf8) + chunk("VP8X", [flags, 0, 0, 0] + canvas) + vp8 + extra
            return Array("RIFF".utf8) + Bytes.le32(body.count) + body
        }
        let exif = Array("MM".utf8) + [0, 42] + Bytes.be32(8) + [0, 1] + [0x01, 0x0F, 0, 2] + Bytes.be32(4) + Array("Cam\0".utf8) + Bytes.be32(0)
        let tagged = file(flags: 0x0C, chunk("EXIF", exif) + chunk("XMP ", Array("<x:xmpmeta>Jane Sender</x:xmpmeta>".utf8))) + Array("trailer".utf8)
        let rewrite = try #require(MetadataRewrite.picture(tagged, jpeg: nil, orientation: .up))
        let out = Self.applied(rewrite, to: tagged)
        #expect(out == file(flags: 0, []))
        #expect(rewrite.found.removal == "device, XMP, other tags removed")
        let decoded = try WebPDecoder.decode(out, options: DecodeOptions(maxPixels: 1 << 20))
        #expect(decoded.pixels.bytes == (try WebPDecoder.decode(plain, options: DecodeOptions(maxPixels: 1 << 20))).pixels.bytes)
    }

    /// A TIFF as a hostile or careless writer leaves it: IFD0 names the camera and the artist and
    /// points at a GPS IFD, and its next-IFD field points back at itself. The walk ends; the text
    /// and the GPS values become zeros and the GPS IFD an empty one; the strip is untouched.
    @Test func aTIFFWhoseIFDsLoopLosesItsTagsAndKeepsItsPixels() throws {
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] {
            Array(Bytes.be32(tag << 16 | type)) + Bytes.be32(count) + Bytes.be32(value)
        }
        // Header 8, IFD0 at 8 (6 entries: 2 + 72 + 4 = 78 → 86), GPS IFD at 86 (1 entry: 18 → 104),
        // "TestCam\0" at 104, "Jane Sender\0" at 112, GPS rationals at 124 (24 bytes), strip at 148.
        let strip = [UInt8](repeating: 0x5A, count: 4 * 3)
        var d = Array("MM".utf8) + [0, 42] + Bytes.be32(8)
        d += [0, 6] + entry(256, 4, 1, 4) + entry(257, 4, 1, 1) + entry(271, 2, 8, 104) + entry(273, 4, 1, 148)
            + entry(315, 2, 12, 112) + entry(34853, 4, 1, 86) + Bytes.be32(8)
        d += [0, 1] + entry(2, 5, 3, 124) + Bytes.be32(0)
        d += Array("TestCam\0".utf8) + Array("Jane Sender\0".utf8) + [UInt8](repeating: 7, count: 24) + strip
        #expect(d.count == 160)
        let rewrite = try #require(MetadataRewrite.tiff(d))
        #expect(rewrite.found.isSuperset(of: [.device, .author, .location]))
        let out = Self.applied(rewrite, to: d)
        #expect(out.count == d.count && out.suffix(12) == strip[...])
        #expect(!out.contains(sequence: Array("TestCam".utf8)) && !out.contains(sequence: Array("Jane".utf8)))
        #expect(out[124..<148].allSatisfy { $0 == 0 } && out[86..<104].allSatisfy { $0 == 0 })
        #expect(out[0..<86] == d[0..<86])  // IFD0 itself, its pointers and the strip's offset, as they were
    }

    /// Content Credentials (a C2PA manifest: its claims may carry the signer's name, the camera and
    /// the place) in a PNG's `caBX`, a WebP's and a WAV's `C2PA` chunk and a TIFF's tag 52545; and
    /// the author Windows writes in a TIFF's IFD0 (`XPAuthor`, UCS-2). All go; the pixels stay.
    @Test func contentCredentialsAndWindowsAuthorGo() throws {
        let claim = Array("jumbc2pa.assertions stds.schema-org.CreativeWork author Jane Sender".utf8)
        // PNG: the chunk before IEND, with its CRC.
        let png = try Fixture.bytes("rgb.png")
        let body = Array("caBX".utf8) + claim
        let crc = body.withUnsafeBufferPointer { b in PNGLibrary.zlib.crc32(0, b.baseAddress, UInt32(b.count)) }
        let iend = png.count - 12
        let taggedPNG = Array(png[..<iend]) + Bytes.be32(claim.count) + body + Bytes.be32(Int(crc)) + Array(png[iend...])
        let p = try #require(MetadataRewrite.picture(taggedPNG, jpeg: nil, orientation: .up))
        #expect(Self.applied(p, to: taggedPNG) == png)
        // WebP: the chunk after the image, the RIFF size following.
        let webp = try Fixture.bytes("image.webp")
        var taggedWebP = webp + Array("C2PA".utf8) + Bytes.le32(claim.count) + claim + (claim.count % 2 == 1 ? [0] : [])
        taggedWebP.replaceSubrange(4..<8, with: Bytes.le32(taggedWebP.count - 8))
        let w = try #require(MetadataRewrite.picture(taggedWebP, jpeg: nil, orientation: .up))
        #expect(Self.applied(w, to: taggedWebP) == webp)
        // TIFF: 1×1 gray, IFD0 with XPAuthor ("Jane", UCS-2 little-endian as Windows writes it) and a manifest.
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) -> [UInt8] { Array(Bytes.be32(tag << 16 | type)) + Bytes.be32(count) + Bytes.be32(value) }
        let author = Array("J\0a\0n\0e\0\0\0".utf8)
        var tiff = Array("MM".utf8) + [0, 42] + Bytes.be32(8)
        tiff += [0, 6] + entry(256, 4, 1, 1) + entry(257, 4, 1, 1) + entry(273, 4, 1, 86) + entry(279, 4, 1, 1)
            + entry(0x9C9D, 1, author.count, 87) + entry(0xCD41, 7, claim.count, 87 + author.count) + Bytes.be32(0)
        tiff += [0x80] + author + claim
        let t = try #require(MetadataRewrite.tiff(tiff))
        let out = Self.applied(t, to: tiff)
        #expect(t.found.contains(.author) && out[86] == 0x80 && out.count == tiff.count)
        #expect(!out.contains(sequence: Array("Jane Sender".utf8)) && !out.contains(sequence: author))
        // WAV.
        var wav = try Fixture.bytes("voice.wav") + Array("C2PA".utf8) + Bytes.le32(claim.count) + claim + (claim.count % 2 == 1 ? [0] : [])
        wav.replaceSubrange(4..<8, with: Bytes.le32(wav.count - 8))
        let a = try #require(try AudioTagStripper.wav(ByteReader(wav)))
        #expect(!a.applied(to: wav).contains(sequence: Array("Jane Sender".utf8)))
    }

    /// A preparer and a check that send a long picture as a file (`--long-images file`).
    static func sendingLongPicturesAsFiles(into dir: String) -> (AttachmentPreparer, SendCheck) {
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.longImages = .file
        var check = SendCheck()
        check.media.longImages = .file
        return (preparer, check)
    }

    /// The bytes a rewrite writes for `input`.
    static func applied(_ rewrite: MetadataRewrite, to input: [UInt8]) -> [UInt8] { rewrite.applied(to: input) }

    @Test func theFixturesDoCarryMetadata() throws {
        // So the test above tests something: these inputs hold what must go.
        #expect(try Fixture.bytes("photo.jpg").contains(sequence: Array("secret comment".utf8)))
        #expect(try Fixture.bytes("orient-gps.heic").contains(sequence: Array("Test Phone".utf8)))
        #expect(PictureMetadata(jpeg: try Fixture.bytes("photo.jpg")).gps)
    }
}

/// A document written as `name` in a scratch folder, prepared and checked there: the item, the bytes
/// that left and what `check` says.
func preparedDocument(_ bytes: [UInt8], name: String) throws -> (item: PreparedItem, out: [UInt8], reasons: [String]) {
    let dir = try Fixture.scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
    let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/" + name)
    let out = try FileBytes.read(try #require(item.output, "\(String(describing: item.error))"))
    return (item, out, SendCheck().check(path: dir + "/" + name).reasons)
}

/// A Photoshop document goes as a file (the working file its sender shares): its Exif (a camera's,
/// with GPS), IPTC by-line and XMP creator are emptied in place, every other byte as it was. Built
/// here: an 8×8 RGB PSD, raw image data, no layers.
@Suite struct PhotoshopDocumentTests {
    static func resource(_ id: Int, _ data: [UInt8]) -> [UInt8] {
        Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF)] + [0, 0] + Bytes.be32(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    /// Exif: a big-endian TIFF whose IFD0 has Model, Artist and a GPS IFD pointer.
    static let exifTIFF: [UInt8] = {
        var tiff = Array("MM".utf8) + [0, 42] + Bytes.be32(8) + [0, 3]
        tiff += [0x01, 0x10, 0, 2] + Bytes.be32(10) + Bytes.be32(50)      // Model → "SecretCam"
        tiff += [0x01, 0x3B, 0, 2] + Bytes.be32(12) + Bytes.be32(60)      // Artist → "Jane Sender"
        tiff += [0x88, 0x25, 0, 4] + Bytes.be32(1) + Bytes.be32(72)       // GPS IFD
        tiff += Bytes.be32(0)
        tiff += [UInt8](repeating: 0, count: 50 - tiff.count) + Array("SecretCam\0".utf8)
        tiff += Array("Jane Sender\0".utf8) + [UInt8](repeating: 0, count: 72 - tiff.count - 12) + [0, 0, 0, 0]
        tiff += [0, 1, 0, 1, 0, 2] + Bytes.be32(2) + Array("N\0\0\0".utf8) + Bytes.be32(0)  // GPSLatitudeRef "N"
        return tiff
    }()

    static func psd() -> [UInt8] {
        let tiff = exifTIFF
        let iptc: [UInt8] = [0x1C, 2, 80, 0, 11] + Array("Jane Sender".utf8)
        let xmp = Array("<x:xmpmeta xmlns:x='adobe:ns:meta/'><dc:creator>Jane Sender</dc:creator></x:xmpmeta>".utf8)
        let resources = resource(0x0404, iptc) + resource(0x03ED, [0, 72, 0, 0, 0, 1, 0, 1, 0, 72, 0, 0, 0, 1, 0, 1])
            + resource(0x0422, tiff) + resource(0x0424, xmp)
        let header = Array("8BPS".utf8) + [0, 1] + [UInt8](repeating: 0, count: 6) + [0, 3] + Bytes.be32(8) + Bytes.be32(8) + [0, 8, 0, 3]
        let pixels = (0..<192).map { UInt8(truncatingIfNeeded: $0 &* 5) }
        return header + Bytes.be32(0) + Bytes.be32(resources.count) + resources + Bytes.be32(0) + [0, 0] + pixels
    }

    @Test func itsExifIPTCAndXMPAreEmptiedInPlace() throws {
        let psd = Self.psd()
        #expect(FormatSniffer.sniff(psd) == .psd)
        #expect(FormatSniffer.sniff(Array("8BPS is a signature".utf8)) == .unknown)
        let (item, out, reasons) = try preparedDocument(psd, name: "design.psd")
        #expect(item.kind == .file && item.route == .stripped && out.count == psd.count && item.output?.hasSuffix("/design.psd") == true)
        for secret in ["Jane Sender", "SecretCam"] { #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)") }
        #expect(Array(out.suffix(192 + 2 + 4)) == Array(psd.suffix(192 + 2 + 4)))  // layers and pixels byte for byte
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") && $0.contains("author") && $0.contains("XMP") }, "\(reasons)")
        // A resources section that runs past the file is damaged, not sent as if whole.
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.psd(ByteReader(Array(psd.prefix(60)))) }
    }

    /// An XMP and an Exif resource claiming 300 MB each (a file read through `pread`, here a virtual
    /// one): the walk reads their headers and 1 MiB of each, never the rest.
    @Test func hugeResourcesCostNoMemory() throws {
        let big = 300_000_000
        let header = Array("8BPS".utf8) + [0, 1] + [UInt8](repeating: 0, count: 6) + [0, 3] + Bytes.be32(8) + Bytes.be32(8) + [0, 8, 0, 3]
        let first = Array("8BIM".utf8) + [0x04, 0x24, 0, 0] + Bytes.be32(big)
        let second = Array("8BIM".utf8) + [0x04, 0x22, 0, 0] + Bytes.be32(big)
        let resourcesAt = 26 + 4 + 4
        let secondAt = resourcesAt + first.count + big
        let head = header + Bytes.be32(0) + Bytes.be32(2 * (12 + big)) + first
        let size = secondAt + second.count + big + 4 + 2
        let read = Locked(0)
        let reader = ByteReader(size: size) { offset, count in
            read.withLock { $0 += count }
            return (offset..<offset + count).map { i in
                i < head.count ? head[i] : (secondAt..<secondAt + second.count).contains(i) ? second[i - secondAt] : 0
            }
        }
        let rewrite = try #require(try MetadataRewrite.psd(reader))
        #expect(rewrite.outputSize == size && rewrite.found.contains(.xmp))
        #expect(read.withLock { $0 } < 3 << 20, "read \(read.withLock { $0 }) bytes")
    }
}

/// A smart object's file: embedded (a phone photo with its GPS) and linked (the path on the sender's
/// disk, `/Users/jane/…`, in a descriptor string and a macOS alias). Built here: the 8×8 PSD with a
/// layer section of those two blocks, as Photoshop 2020 writes them (version 7 records).
@Suite struct PhotoshopSmartObjectTests {
    static func unicode(_ s: String) -> [UInt8] { Bytes.be32(s.utf16.count) + s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
    static func key(_ k: String) -> [UInt8] { Bytes.be32(k.utf8.count) + Array(k.utf8) }
    static func record(_ kind: String, data: [UInt8], descriptor: [UInt8]?) -> [UInt8] {
        var r = Array(kind.utf8) + Bytes.be32(7) + [3] + Array("abc".utf8) + Self.unicode("photo.jpg") + Array("JPEG8BIM".utf8)
        r += Bytes.be64(data.count) + [0]
        if let d = descriptor { r += Bytes.be32(16) + d + [UInt8](repeating: 0, count: 16) + Bytes.be64(123_456) }  // link, times, size
        r += data + Self.unicode("") + [UInt8](repeating: 0, count: 9)  // child ID, time, lock
        return Bytes.be64(r.count) + r + [UInt8](repeating: 0, count: (4 - r.count % 4) % 4)
    }
    static func block(_ key: String, _ body: [UInt8]) -> [UInt8] {
        Array("8BIM".utf8) + Array(key.utf8) + Bytes.be32(body.count) + body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
    }

    @Test func itsFilesLoseTheirPlaceAndTheirGPS() throws {
        // photo.jpg with the Exif of a camera and its GPS, as the placed file.
        let jpeg = try Fixture.bytes("photo.jpg")
        let exif = Array("Exif\0\0".utf8) + PhotoshopDocumentTests.exifTIFF
        let photo = Array(jpeg[..<2]) + [0xFF, 0xE1] + Bytes.be32(exif.count + 2).suffix(2) + exif + Array(jpeg[2...])
        let alias = Array("\0\0\0\0Macintosh HD\0RUsers/jane/Pictures/photo.jpg".utf8)
        let link = Self.unicode("") + Self.key("ExternalFileLink") + Bytes.be32(4)
            + Self.key("fullPath") + Array("TEXT".utf8) + Self.unicode("file:///Macintosh HD/Users/jane/Pictures/photo.jpg")
            + Self.key("relPath") + Array("TEXT".utf8) + Self.unicode("photo.jpg")
            + Self.key("alis") + Array("alis".utf8) + Bytes.be32(alias.count) + alias
            + Self.key("FlSz") + Array("long".utf8) + Bytes.be32(123_456)
        let blocks = Self.block("lnk2", Self.record("liFD", data: photo, descriptor: nil)) + Self.block("lnkE", Self.record("liFE", data: [], descriptor: link))
        let base = PhotoshopDocumentTests.psd()
        let layersAt = base.count - 192 - 2 - 4  // the empty layer section's length
        let psd = Array(base[..<layersAt]) + Bytes.be32(8 + blocks.count) + Bytes.be32(0) + Bytes.be32(0) + blocks + Array(base[(layersAt + 4)...])
        let (item, out, reasons) = try preparedDocument(psd, name: "poster.psd")
        #expect(item.route == .stripped && out.count == psd.count)
        func has(_ s: String) -> Bool { out.contains(sequence: Array(s.utf8)) || out.contains(sequence: s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }) }
        for secret in ["Users/jane", "SecretCam", "Jane Sender", "Pictures"] { #expect(!has(secret), "\(secret)") }
        #expect(has("photo.jpg") && has("fullPath"))  // the file's name and the descriptor's keys stay
        // The embedded photo: the same length, the same pixels, no Exif.
        let at = try #require(psd.firstRange(of: Array(photo.prefix(64)))).lowerBound
        let kept = Array(out[at..<(at + photo.count)])
        #expect(try JPEGDecoder.decode(kept).pixels.bytes == JPEGDecoder.decode(jpeg).pixels.bytes)
        #expect(!kept.contains(sequence: Array("Exif".utf8)))
        #expect(reasons.contains { $0.contains("location") }, "\(reasons)")
        // A record longer than its block: damaged.
        var wrong = psd
        let length = try #require(psd.firstRange(of: Array("lnkE".utf8))).upperBound + 4
        wrong.replaceSubrange(length..<(length + 8), with: Bytes.be64(1 << 20))
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.psd(ByteReader(wrong)) }
    }
}

/// Each layer's last-changed time (`layerTime` in its `shmd` metadata's `cust` descriptor, a double
/// of seconds since 1970) is zeroed, in an 8-bit document's layer records and in a 16-bit one's
/// `Lr16` block alike.
@Suite struct PhotoshopLayerTimeTests {
    static func layerInfo(time: [UInt8]) -> [UInt8] {
        let key = Bytes.be32(9) + Array("layerTime".utf8)
        let descriptor = Bytes.be32(16) + Bytes.be32(0) + Bytes.be32(0) + Array("null".utf8) + Bytes.be32(1) + key + Array("doub".utf8) + time
        let item = Array("8BIMcust".utf8) + [0, 0, 0, 0] + Bytes.be32(descriptor.count) + descriptor
        let shmd = Array("8BIMshmd".utf8) + Bytes.be32(4 + item.count) + Bytes.be32(1) + item
        let name: [UInt8] = [5] + Array("Layer".utf8) + [0, 0]  // a Pascal string padded to 4
        let extra = Bytes.be32(0) + Bytes.be32(0) + name + shmd
        let record = [UInt8](repeating: 0, count: 16) + [0, 0] + Array("8BIMnorm".utf8) + [255, 0, 0, 0] + Bytes.be32(extra.count) + extra
        return [0, 1] + record
    }

    @Test(arguments: [false, true])
    func aLayersTimeGoes(sixteenBit: Bool) throws {
        let time: [UInt8] = [0x41, 0xD9, 0x0A, 0x3C, 0x80, 0x00, 0x00, 0x00]  // 2024
        let info = Self.layerInfo(time: time)
        let section = sixteenBit
            ? Bytes.be32(0) + Bytes.be32(0) + Array("8BIMLr16".utf8) + Bytes.be32(info.count) + info + [UInt8](repeating: 0, count: (4 - info.count % 4) % 4)
            : Bytes.be32(info.count) + info + Bytes.be32(0)
        let base = PhotoshopDocumentTests.psd()
        let layersAt = base.count - 192 - 2 - 4  // the empty layer section's length
        let psd = Array(base[..<layersAt]) + Bytes.be32(section.count) + section + Array(base[(layersAt + 4)...])
        let rewrite = try #require(try MetadataRewrite.psd(ByteReader(psd)))
        let out = rewrite.applied(to: psd)
        let at = try #require(psd.firstRange(of: Array("doub".utf8))).upperBound
        #expect(out.count == psd.count && out[at..<(at + 8)].allSatisfy { $0 == 0 } && rewrite.found.contains(.dates))
        // The layer section but those 8 bytes, and the pixels after it, as they were.
        #expect(out[layersAt..<at] == psd[layersAt..<at] && out[(at + 8)...] == psd[(at + 8)...])
    }
}

/// A GIMP document goes as a file, as a PSD does: its Exif (a camera's, with GPS), XMP and comment
/// parasites are renamed `x…` and zeroed in place, every other byte as it was. Built here: an 8×8 RGB
/// XCF header with those parasites and an ICC profile's, which stays.
@Suite struct GIMPDocumentTests {
    static func parasite(_ name: String, _ data: [UInt8]) -> [UInt8] {
        Bytes.be32(name.utf8.count + 1) + Array(name.utf8) + [0] + Bytes.be32(1) + Bytes.be32(data.count) + data
    }

    /// An 8×8 document with no layers whose Exif, XMP and comment parasites name Jane Sender, and an ICC profile.
    static func xcf() -> [UInt8] {
        let exif = Array("Exif\0\0".utf8) + Array(PhotoshopDocumentTests.exifTIFF)
        let parasites = Self.parasite("gimp-metadata", Array("GIMP_XMP_1<x:xmpmeta><dc:creator>Jane Sender</dc:creator></x:xmpmeta>".utf8))
            + Self.parasite("exif-data", exif) + Self.parasite("gimp-comment", Array("Jane Sender's trip\0".utf8))
            + Self.parasite("icc-profile", [UInt8](repeating: 7, count: 40))
        return Array("gimp xcf v011\0".utf8) + Bytes.be32(8) + Bytes.be32(8) + Bytes.be32(0) + Bytes.be32(150)
            + Bytes.be32(17) + Bytes.be32(1) + [1]  // PROP_COMPRESSION: RLE
            + Bytes.be32(21) + Bytes.be32(parasites.count) + parasites + Bytes.be32(0) + Bytes.be32(0)  // PROP_PARASITES, PROP_END
            + Bytes.be64(0) + Bytes.be64(0)  // no layers, no channels
    }

    @Test func itsExifXMPAndCommentParasitesAreEmptiedInPlace() throws {
        let xcf = Self.xcf()
        #expect(FormatSniffer.sniff(xcf) == .xcf)
        #expect(FormatSniffer.sniff(Array("gimp xcf files are GIMP's".utf8)) == .unknown)
        let (item, out, reasons) = try preparedDocument(xcf, name: "drawing.xcf")
        #expect(item.kind == .file && item.route == .stripped && out.count == xcf.count)
        for secret in ["Jane Sender", "SecretCam", "exif-data", "gimp-metadata", "gimp-comment"] {
            #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        #expect(out.contains(sequence: Array("icc-profile".utf8) + [0]) && out.contains(sequence: [UInt8](repeating: 7, count: 40)))
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") && $0.contains("comment") && $0.contains("XMP") }, "\(reasons)")
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.xcf(ByteReader(Array(xcf.prefix(60)))) }
    }
}

/// OpenEXR, DPX and FITS go as files, as a PSD does, what names their sender emptied in place and every
/// other byte as it was. Each is built here the smallest way its format allows, its pixels uncompressed.
@Suite struct WorkingImageTests {
    static func attribute(_ name: String, _ type: String, _ value: [UInt8]) -> [UInt8] {
        Array(name.utf8) + [0] + Array(type.utf8) + [0] + Bytes.le32(value.count) + value
    }
    static func float(_ v: Float) -> [UInt8] { Bytes.le32(Int(v.bitPattern)) }

    /// A 2×2 half-float RGB scan-line EXR, uncompressed, with `extra` attributes; `cut` bytes short.
    static func exr(_ extra: [UInt8], cut: Int = 0) -> [UInt8] {
        let channel: (String) -> [UInt8] = { Array($0.utf8) + [0] + Bytes.le32(1) + [0, 0, 0, 0] + Bytes.le32(1) + Bytes.le32(1) }
        let channels: [UInt8] = channel("B") + channel("G") + channel("R") + [0]
        var head: [UInt8] = [0x76, 0x2F, 0x31, 0x01, 2, 0, 0, 0]
        head += attribute("channels", "chlist", channels) + attribute("compression", "compression", [0])
        head += attribute("dataWindow", "box2i", [0, 0, 1, 1].flatMap { Bytes.le32($0) })
        head += attribute("displayWindow", "box2i", [0, 0, 1, 1].flatMap { Bytes.le32($0) })
        head += attribute("lineOrder", "lineOrder", [0]) + attribute("pixelAspectRatio", "float", float(1))
        head += attribute("screenWindowCenter", "v2f", float(0) + float(0)) + attribute("screenWindowWidth", "float", float(1))
        head += extra + [0]
        let row: [UInt8] = [UInt8](repeating: 0x38, count: 12)  // two pixels of three halves, 0.5 each
        let first = head.count + 16
        let table = Bytes.le32(first) + Bytes.le32(0) + Bytes.le32(first + 8 + row.count) + Bytes.le32(0)
        let file = head + table + Bytes.le32(0) + Bytes.le32(row.count) + row + Bytes.le32(1) + Bytes.le32(row.count) + row
        return Array(file.dropLast(cut))
    }

    @Test func anOpenEXRLosesItsOwnerDatePlaceAndPathsInPlace() throws {
        let secrets = Self.attribute("owner", "string", Array("Jane Sender".utf8)) + Self.attribute("capDate", "string", Array("2026:11:20 10:00:00".utf8))
            + Self.attribute("latitude", "float", Self.float(51.5)) + Self.attribute("longitude", "float", Self.float(-0.12))
            + Self.attribute("Scene", "string", Array("/home/jane/trip.blend".utf8)) + Self.attribute("Frame", "string", Array("/home/jane/f1".utf8))
            + Self.attribute("cameraSerialNumber", "string", Array("SN12345".utf8))
        let exr = Self.exr(secrets)
        #expect(FormatSniffer.sniff(exr) == .exr)
        let (item, out, reasons) = try preparedDocument(exr, name: "render.exr")
        #expect(item.kind == .file && item.route == .stripped && out.count == exr.count)
        for secret in ["Jane", "2026", "/home/jane", "SN12345", "owner", "capDate", "latitude", "Scene", "string"] {
            #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        #expect(!out.contains(sequence: Self.float(51.5)))
        // Two renamed attributes of five letters get two names; the picture's own attributes stay.
        #expect(out.contains(sequence: Array("xxxxx\0".utf8)) && out.contains(sequence: Array("xxxx1\0".utf8)))
        #expect(out.contains(sequence: Array("dataWindow\0box2i\0".utf8)) && Array(out.suffix(40)) == Array(exr.suffix(40)))
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") && $0.contains("author") && $0.contains("dates") && $0.contains("pixels untouched") }, "\(reasons)")
        // Nothing to take out: sent as it came. Cut inside its pixels, or its header: refused.
        #expect(try MetadataRewrite.exr(ByteReader(Self.exr([]))) == nil)
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.exr(ByteReader(Self.exr(secrets, cut: 20))) }
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.exr(ByteReader(Array(exr.prefix(200)))) }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let check = SendCheck().check(path: try Fixture.write(Self.exr([], cut: 20), "cut.exr", in: dir))
        #expect(check.verdict == .cannotSend && check.code == "truncated", "\(check.reasons)")
    }

    /// A big-endian 2×2 10-bit RGB DPX with SMPTE 268M's 1664-byte generic and 384-byte industry
    /// headers, 64 bytes of user data, the pixels after them.
    static func dpx(cut: Int = 0) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: 2048)
        func put(_ at: Int, _ bytes: [UInt8]) { h.replaceSubrange(at..<(at + bytes.count), with: bytes) }
        put(0, Array("SDPX".utf8) + Bytes.be32(2048 + 64) + Array("V2.0".utf8))
        put(16, Bytes.be32(2048 + 64 + 16) + Bytes.be32(0) + Bytes.be32(1664) + Bytes.be32(384) + Bytes.be32(64))
        put(36, Array("jane_trip.dpx".utf8)); put(136, Array("2026:11:20:10:00:00".utf8)); put(160, Array("Jane Sender".utf8))
        put(260, Array("Secret Project".utf8)); put(460, Array("(c) Jane".utf8))
        put(768, [0, 0, 0, 1] + Bytes.be32(2) + Bytes.be32(2))
        put(1556, Array("SPIRIT-4K DATACINE".utf8)); put(1588, Array("01018".utf8))
        let user = Array("Thomson BTS".utf8) + [UInt8](repeating: 0, count: 21) + Array("private".utf8) + [UInt8](repeating: 0, count: 25)
        return Array((h + user + [UInt8](repeating: 0x80, count: 16)).dropLast(cut))
    }

    @Test func aDPXLosesItsCreatorProjectDatesAndScannerInPlace() throws {
        let dpx = Self.dpx()
        #expect(FormatSniffer.sniff(dpx) == .dpx)
        let (item, out, reasons) = try preparedDocument(dpx, name: "scan.dpx")
        #expect(item.kind == .file && item.route == .stripped && out.count == dpx.count)
        for secret in ["jane", "Jane", "2026", "Secret", "SPIRIT", "01018", "Thomson", "private"] {
            #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        #expect(Array(out.prefix(36)) == Array(dpx.prefix(36)) && Array(out.suffix(16)) == Array(dpx.suffix(16)))
        #expect(reasons.contains { $0.contains("device") && $0.contains("author") && $0.contains("dates") && $0.contains("title") }, "\(reasons)")
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.dpx(ByteReader(Self.dpx(cut: 40))) }
        // Header lengths that overrun where the pixels start (the fuzzer's first find): read within them.
        var overrun = dpx
        overrun.replaceSubrange(4..<8, with: Bytes.be32(1664))
        overrun.replaceSubrange(28..<36, with: Bytes.be32(20224) + Bytes.be32(0x7564_0000))
        #expect(try MetadataRewrite.dpx(ByteReader(overrun))?.outputSize == overrun.count)
    }

    static func card(_ text: String) -> [UInt8] { Array(text.utf8) + [UInt8](repeating: 0x20, count: 80 - text.utf8.count) }

    /// An 8-bit 4×3 FITS with an astrophotographer's capture cards and an image extension after it.
    static func fits(cut: Int = 0) -> [UInt8] {
        func padded(_ b: [UInt8], with fill: UInt8) -> [UInt8] { b + [UInt8](repeating: fill, count: (2880 - b.count % 2880) % 2880) }
        let primary = ["SIMPLE  =                    T", "BITPIX  =                    8", "NAXIS   =                    2",
                       "NAXIS1  =                    4", "NAXIS2  =                    3", "EXTEND  =                    T",
                       "OBSERVER= 'Jane Sender'", "SITELAT =              51.5012", "SITELONG=              -0.1245",
                       "DATE-OBS= '2026-11-20T22:00:00'", "TELESCOP= 'SecretScope 80'", "HISTORY stacked in /home/jane",
                       "EXPTIME =                120.0", "CHECKSUM= 'abcdefghijklmnop'", "END"].flatMap(card)
        let ext = ["XTENSION= 'IMAGE   '", "BITPIX  =                   16", "NAXIS   =                    1", "NAXIS1  =                    5",
                   "PCOUNT  =                    0", "GCOUNT  =                    1", "SWOWNER = 'Jane Sender'", "END"].flatMap(card)
        let file = padded(primary, with: 0x20) + padded(Array(0..<12), with: 0) + padded(ext, with: 0x20) + [UInt8](repeating: 9, count: 10)
        return Array(file.dropLast(cut))
    }

    @Test func aFITSLosesItsSiteObserverNightAndTelescopeInEveryHeader() throws {
        let fits = Self.fits()
        #expect(FormatSniffer.sniff(fits) == .fits)
        #expect(FormatSniffer.sniff(Array("SIMPLE  = a text that starts like a FITS card".utf8)) == .unknown)
        let (item, out, reasons) = try preparedDocument(fits, name: "m31.fits")
        #expect(item.kind == .file && item.route == .stripped && out.count == fits.count)
        for secret in ["Jane", "51.50", "-0.12", "2026", "SecretScope", "/home/jane", "CHECKSUM"] {
            #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        for kept in ["EXPTIME =                120.0", "XTENSION= 'IMAGE   '", "NAXIS1  =                    5"] {
            #expect(out.contains(sequence: Self.card(kept)), "\(kept)")
        }
        #expect(Array(out[2880..<2892]) == Array(0..<12) && Array(out.suffix(10)) == [UInt8](repeating: 9, count: 10))
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") && $0.contains("author") && $0.contains("dates") && $0.contains("comment") }, "\(reasons)")
        // Cut inside the extension's data, or inside a header before its END: refused.
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.fits(ByteReader(Self.fits(cut: 5))) }
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.fits(ByteReader(Array(fits.prefix(1000)))) }
    }
}

/// An SVG goes as a file without Inkscape's document name and export path, a linked photo's path, its
/// `<metadata>` and an embedded photo's Exif; it keeps its length and draws the same.
@Suite struct SVGDocumentTests {
    static func svg(embedding jpeg: [UInt8]) -> [UInt8] {
        // Lines broken as Inkscape 0.92 wrote them, with character references.
        let base64 = Data(jpeg).base64EncodedString(options: .lineLength76Characters).replacingOccurrences(of: "\r\n", with: "&#10;")
        return Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- Created with Inkscape (http://www.inkscape.org/) -->
        <svg width="100" height="100" version="1.1" sodipodi:docname="jane-holiday.svg"
           inkscape:export-filename="/home/jane/Pictures/holiday.png" inkscape:export-xdpi="96"
           xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
           xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
           xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:cc="http://creativecommons.org/ns#" xmlns:dc="http://purl.org/dc/elements/1.1/">
          <metadata id="m"><rdf:RDF><cc:Work><dc:creator><cc:Agent><dc:title>Jane Sender</dc:title></cc:Agent></dc:creator>
            <dc:date>2026-11-20</dc:date></cc:Work></rdf:RDF></metadata>
          <rect x="10" y="10" width="30" height="30" fill="blue"/>
          <image width="16" height="16" xlink:href="data:image/jpeg;base64,\(base64)"/>
          <image width="16" height="16" x="70" xlink:href='C:\\Users\\jane\\IMG_1234.jpg'/>
          <text x="5" y="95">metadata &lt;is a word&gt; here</text>
        </svg>

        """.utf8)
    }

    @Test func itsPathsMetadataAndEmbeddedPhotosExifAreEmptiedInPlace() throws {
        let photo = try FileBytes.read(Fixture.path("orient-6.jpg"))
        let exif = Array("Exif\0\0".utf8) + PhotoshopDocumentTests.exifTIFF
        let tagged = [0xFF, 0xD8, 0xFF, 0xE1] + Array(Bytes.be32(exif.count + 2).suffix(2)) + exif + photo.dropFirst(2)
        let svg = Self.svg(embedding: tagged)
        #expect(FormatSniffer.sniff(svg) == .svg)
        for text in ["<svgfile>", "<?xml version=\"1.0\"?><html><svg/></html>", "svg is a format"] {
            #expect(FormatSniffer.sniff(Array(text.utf8)) == .unknown, "\(text)")
        }
        #expect(FormatSniffer.sniff(Array("\u{FEFF}<!DOCTYPE svg [<!ENTITY a \"b\">]>\n<svg:svg xmlns:svg=\"x\"/>".utf8)) == .svg)
        let (item, out, reasons) = try preparedDocument(svg, name: "holiday.svg")
        #expect(item.kind == .file && item.route == .stripped && out.count == svg.count)
        for secret in ["jane", "Jane", "2026", "IMG_1234", "holiday.png"] {
            #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        // Emptied, not cut: the attributes are still there, the drawing and the text as they were.
        for kept in ["sodipodi:docname=\"\"", "inkscape:export-xdpi=\"96\"", "xlink:href=''", "<rect x=\"10\" y=\"10\" width=\"30\" height=\"30\" fill=\"blue\"/>",
                     "metadata &lt;is a word&gt; here", "<metadata id=\"m\">"] {
            #expect(out.contains(sequence: Array(kept.utf8)), "\(kept)")
        }
        // The embedded photo: its Exif gone, its picture byte for byte.
        let text = String(decoding: out, as: UTF8.self)
        let start = try #require(text.range(of: "base64,")).upperBound
        let end = try #require(text[start...].firstIndex(of: "\""))
        let embedded = [UInt8](try #require(Data(base64Encoded: String(text[start..<end]).filter { !$0.isWhitespace })))
        #expect(!embedded.contains(sequence: Array("SecretCam".utf8)) && Array(embedded.suffix(200)) == Array(photo.suffix(200)))
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") && $0.contains("author") && $0.contains("dates") && $0.contains("XMP") }, "\(reasons)")
        // Nothing to take out: sent as it came.
        #expect(try MetadataRewrite.svg(ByteReader(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>".utf8))) == nil)
    }
}

/// A DICOM scan goes as a file without the patient's name, birth date, the hospital, the doctors and
/// the scanner's serial, in sequences too, in either VR encoding; tags, lengths and pixels stay.
@Suite struct DICOMTests {
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    /// An element: explicit VR (short or long length) or implicit (a 4-byte length, no VR).
    static func element(_ group: Int, _ element: Int, _ vr: String, _ value: [UInt8], explicit: Bool, undefined: Bool = false) -> [UInt8] {
        let length = undefined ? Bytes.le32(0xFFFF_FFFF) : Bytes.le32(value.count)
        guard explicit else { return le16(group) + le16(element) + length + value }
        if ["OB", "OW", "SQ", "UN", "UT"].contains(vr) { return le16(group) + le16(element) + Array(vr.utf8) + [0, 0] + length + value }
        return le16(group) + le16(element) + Array(vr.utf8) + le16(value.count) + value
    }
    static func text(_ s: String) -> [UInt8] { Array(s.utf8) + (s.utf8.count % 2 == 1 ? [0x20] : []) }

    static func dicom(explicit: Bool) -> [UInt8] {
        let syntax = explicit ? "1.2.840.10008.1.2.1\0" : "1.2.840.10008.1.2\0"
        let meta = element(2, 0x10, "UI", Array(syntax.utf8), explicit: true)
        var set = element(8, 0x20, "DA", text("20261120"), explicit: explicit) + element(8, 0x60, "CS", text("MR"), explicit: explicit)
        set += element(8, 0x80, "LO", text("St Secret Hospital"), explicit: explicit)
        // A sequence of undefined length: one item, undefined too, holding the requesting physician.
        let inner = element(0x32, 0x1032, "PN", text("Dr^Secret"), explicit: explicit)
        set += element(0x40, 0x275, "SQ", [], explicit: explicit, undefined: true) + [0xFE, 0xFF, 0x00, 0xE0] + Bytes.le32(0xFFFF_FFFF) + inner
            + [0xFE, 0xFF, 0x0D, 0xE0, 0, 0, 0, 0] + [0xFE, 0xFF, 0xDD, 0xE0, 0, 0, 0, 0]
        set += element(0x10, 0x10, "PN", text("Sender^Jane"), explicit: explicit) + element(0x10, 0x30, "DA", text("19900101"), explicit: explicit)
        set += element(0x18, 0x1000, "LO", text("SN-998877"), explicit: explicit)
        set += element(0x28, 0x10, "US", le16(4), explicit: explicit) + element(0x28, 0x11, "US", le16(4), explicit: explicit)
        set += element(0x7FE0, 0x10, "OW", [UInt8](0..<32), explicit: explicit)
        return [UInt8](repeating: 0, count: 128) + Array("DICM".utf8) + meta + set
    }

    @Test(arguments: [true, false]) func itsPatientHospitalAndDatesGoInPlace(explicit: Bool) throws {
        let dcm = Self.dicom(explicit: explicit)
        #expect(FormatSniffer.sniff(dcm) == .dicom)
        let (item, out, reasons) = try preparedDocument(dcm, name: "scan.dcm")
        #expect(item.kind == .file && item.route == .stripped && out.count == dcm.count)
        for secret in ["Jane", "Secret", "SN-998877", "19900101", "20261120"] {
            #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)")
        }
        #expect(out.contains(sequence: Self.text("MR")) && Array(out.suffix(32)) == [UInt8](0..<32))
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") && $0.contains("author") && $0.contains("dates") }, "\(reasons)")
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.dicom(ByteReader(Array(dcm.dropLast(10)))) }
    }

    /// Encapsulated pixel data: an offset table whose first offset reads like a patient-group tag, then
    /// a compressed fragment. Both are stepped over unread, byte for byte.
    @Test func encapsulatedPixelsAreSteppedOver() throws {
        let plain = Self.dicom(explicit: true)
        let pixels = try #require(plain.lastRange(of: Self.le16(0x7FE0) + Self.le16(0x10))).lowerBound
        let item: (Int, [UInt8]) -> [UInt8] = { tag, value in [0xFE, 0xFF] + Self.le16(tag) + Bytes.le32(value.count) + value }
        let fragments = item(0xE000, Bytes.le32(0x10) + Bytes.le32(0x30)) + item(0xE000, [0xFF, 0xD8] + [UInt8](repeating: 0x10, count: 30))
            + [0xFE, 0xFF, 0xDD, 0xE0, 0, 0, 0, 0]
        let dcm = Array(plain[..<pixels]) + Self.le16(0x7FE0) + Self.le16(0x10) + Array("OB".utf8) + [0, 0] + Bytes.le32(0xFFFF_FFFF) + fragments
        let rewrite = try #require(try MetadataRewrite.dicom(ByteReader(dcm)))
        let out = rewrite.applied(to: dcm)
        #expect(Array(out.suffix(fragments.count)) == fragments && !out.contains(sequence: Array("Jane".utf8)))
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.dicom(ByteReader(Array(dcm.dropLast(12)))) }
    }
}

/// A PaintShop Pro image goes as a file, as a PSD does: its creator fields and its Exif are zeroed in
/// place, every block where it was. Built here: a version 10 header, a creator block, an extended-data
/// block with Exif, and a block of "layer" bytes.
@Suite struct PaintShopProTests {
    static func field(_ tag: Int, _ data: [UInt8]) -> [UInt8] { Array("~FL\0".utf8) + DICOMTests.le16(tag) + Bytes.le32(data.count) + data }
    static func block(_ id: Int, _ data: [UInt8]) -> [UInt8] { Array("~BK\0".utf8) + DICOMTests.le16(id) + Bytes.le32(data.count) + data }

    static let layer = [UInt8](repeating: 0x5A, count: 64)

    /// A version 10 document whose creator block names Jane Sender, with an Exif block and one layer.
    static func psp() -> [UInt8] {
        let creator = Self.field(0, Array("Jane's trip".utf8)) + Self.field(1, Bytes.le32(1_700_000_000)) + Self.field(3, Array("Jane Sender".utf8))
            + Self.field(6, Bytes.le32(1))
        let exif = Self.field(3, Array("Exif\0\0".utf8) + PhotoshopDocumentTests.exifTIFF)
        return MetadataRewrite.pspSignature + DICOMTests.le16(10) + DICOMTests.le16(0)
            + Self.block(1, creator) + Self.block(10, exif) + Self.block(3, layer)
    }

    @Test func itsCreatorFieldsAndExifGoInPlace() throws {
        let psp = Self.psp(), layer = Self.layer
        #expect(FormatSniffer.sniff(psp) == .psp)
        let (item, out, reasons) = try preparedDocument(psp, name: "trip.pspimage")
        #expect(item.kind == .file && item.route == .stripped && out.count == psp.count)
        for secret in ["Jane", "SecretCam"] { #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)") }
        #expect(!out.contains(sequence: Bytes.le32(1_700_000_000)) && out.contains(sequence: Self.field(6, Bytes.le32(1))))
        #expect(Array(out.suffix(64)) == layer)
        #expect(reasons.contains { $0.contains("location") && $0.contains("author") && $0.contains("dates") && $0.contains("title") }, "\(reasons)")
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.psp(ByteReader(Array(psp.dropLast(10)))) }
    }
}

import Foundation
import Testing
@testable import MediaPrep

/// Ogg pages built and read in tests: a page carries whole packets here (each under 255 × 255 bytes).
enum OggBuild {
    struct Page {
        var flags: UInt8
        var granule: [UInt8]
        var serial: [UInt8]
        var sequence: Int
        var packets: [[UInt8]]
        /// Whether the page's last packet goes on in the next page.
        var continued = false
    }

    static func bytes(_ p: Page) -> [UInt8] {
        var lacing: [UInt8] = []
        for (i, packet) in p.packets.enumerated() {
            lacing += [UInt8](repeating: 255, count: packet.count / 255)
            if !(p.continued && i == p.packets.count - 1) { lacing.append(UInt8(packet.count % 255)) }
        }
        var page = Array("OggS".utf8) + [0, p.flags] + p.granule + p.serial + Bytes.le32(p.sequence) + [0, 0, 0, 0]
            + [UInt8(lacing.count)] + lacing + p.packets.flatMap { $0 }
        OggCRC.seal(&page)
        return page
    }

    /// A whole file's pages, each with the packets that end in it (a packet spanning pages is put
    /// whole in the page where it ends).
    static func pages(_ file: [UInt8]) throws -> [Page] {
        var pages: [Page] = [], at = 0, pending: [UInt8] = []
        while at < file.count {
            let b = try OggPage.read(ByteReader(file), at: at)
            let segments = Int(b[26])
            var body = 27 + segments, packets: [[UInt8]] = []
            for l in b[27..<27 + segments] {
                pending += b[body..<body + Int(l)]
                body += Int(l)
                if l < 255 { packets.append(pending); pending = [] }
            }
            pages.append(Page(flags: b[5], granule: Array(b[6..<14]), serial: Array(b[14..<18]), sequence: Bytes.le(b, 18, 4), packets: packets))
            at += b.count
        }
        return pages
    }

    /// A Vorbis comment list: vendor, then `NAME=value` entries.
    static func comments(_ entries: [String], vendor: String = "mediaprep test") -> [UInt8] {
        Bytes.le32(vendor.utf8.count) + Array(vendor.utf8) + Bytes.le32(entries.count) + entries.flatMap { Bytes.le32($0.utf8.count) + Array($0.utf8) }
    }

    static let secrets = ["ARTIST=Jane Sender", "DATE=2026-11-20", "LOCATION=+48.8583+002.2945/", "COMMENT=12 rue de Rivoli"]
}

/// Four containers that left with what they carried: Ogg FLAC and Ogg Speex comments, a FLAC behind
/// an ID3v2 tag, an ID3v2 tag appended after an MP3's frames (with an APE tag before it), and SVG
/// comments and SVGZ drawings. Each file is built here from a committed fixture.
@Suite struct LeakingContainersTests {
    static let markers = ["Jane Sender", "2026-11-20", "48.8583", "Rivoli", "/home/jane", "secret-plan"]

    static func noMarker(_ bytes: [UInt8], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for m in markers { #expect(!bytes.contains(sequence: Array(m.utf8)), "\(what) still carries \"\(m)\"", sourceLocation: sourceLocation) }
    }

    static func prepare(_ path: String, in dir: String, audio: MediaOptions.AudioMode) -> PreparedItem {
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out-\(audio)", timestamp: 0)
        preparer.media.audio = audio
        return preparer.prepare(path: path)
    }

    /// voice.flac moved into Ogg by FFmpeg, its comment packet replaced by one naming the sender and a
    /// PICTURE block (a cover photo) added after it, as a tagger writes an `.oga`.
    static func oggFLAC(in dir: String) throws -> String {
        let plain = dir + "/plain.oga"
        try VideoRemuxer().remux(try MediaInput(path: Fixture.path("voice.flac")), to: plain, muxer: "ogg", audioOnly: true)
        var pages = try OggBuild.pages(try FileBytes.read(plain))
        try #require(pages.count > 2 && pages[0].packets.count == 1 && pages[1].packets.count == 1)
        var first = pages[0].packets[0]
        try #require(first.starts(with: [0x7F] + Array("FLAC".utf8)))
        first[7] = 0; first[8] = 2  // two header packets after this one
        pages[0].packets[0] = first
        let list = OggBuild.comments(OggBuild.secrets)
        let picture = Bytes.be32(3) + Bytes.be32(10) + Array("image/jpeg".utf8) + Bytes.be32(11) + Array("Jane Sender".utf8)
            + [UInt8](repeating: 0, count: 16) + Bytes.be32(4) + [0xFF, 0xD8, 0xFF, 0xD9]
        pages[1].packets = [[4] + Array(Bytes.be32(list.count).suffix(3)) + list,
                            [0x80 | 6] + Array(Bytes.be32(picture.count).suffix(3)) + picture]
        let path = dir + "/tagged.oga"
        try Data(pages.flatMap(OggBuild.bytes)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(arguments: [MediaOptions.AudioMode.file, .auto, .voice])
    func anOggFLACLosesItsComments(_ audio: MediaOptions.AudioMode) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Self.oggFLAC(in: dir)
        let source = try MediaProbe.source(path: path, depth: .headers(wholeUpTo: 0))
        #expect(source.probe.format == .ogg && source.probe.audioCodec == "flac")
        let found = try #require(source.rewrite?.found)
        #expect(found.isSuperset(of: [.author, .dates, .location, .comment, .coverArt]), "\(found.removal)")
        let item = Self.prepare(path, in: dir, audio: audio)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        Self.noMarker(try FileBytes.read(out), "an Ogg FLAC sent as \(audio)")
        if item.route == .stripped {
            // The same length, every audio page byte for byte, and it still plays.
            #expect(try FileBytes.size(out) == FileBytes.size(path))
            #expect(try Packets.all(out) == Packets.all(path))
            #expect(try MediaProbe.source(path: out, depth: .headers(wholeUpTo: 0)).rewrite == nil)
        }
        var check = SendCheck()
        check.media.audio = audio
        let verdict = check.check(path: path)
        #expect(verdict.verdict == .afterPreparation, "\(verdict.reasons)")
    }

    /// A Speex recording in Ogg: its second packet is a bare comment list.
    @Test func anOggSpeexLosesItsComments() throws {
        let serial: [UInt8] = [7, 0, 0, 0], zero = [UInt8](repeating: 0, count: 8)
        let header = Array("Speex   ".utf8) + Array("1.2.1".utf8) + [UInt8](repeating: 0, count: 15) + Bytes.le32(1) + Bytes.le32(80)
            + Bytes.le32(16000) + Bytes.le32(1) + Bytes.le32(4) + Bytes.le32(1) + Bytes.le32(-1) + Bytes.le32(320) + Bytes.le32(0)
            + Bytes.le32(1) + Bytes.le32(0) + Bytes.le32(0) + Bytes.le32(0)
        let list = OggBuild.comments(OggBuild.secrets)
        let file = OggBuild.bytes(.init(flags: 2, granule: zero, serial: serial, sequence: 0, packets: [header]))
            + OggBuild.bytes(.init(flags: 0, granule: zero, serial: serial, sequence: 1, packets: [list]))
            + OggBuild.bytes(.init(flags: 4, granule: Bytes.le32(320) + [0, 0, 0, 0], serial: serial, sequence: 2, packets: [[UInt8](repeating: 0x55, count: 38)]))
        let rewrite = try #require(try OggCommentStripper.rewrite(ByteReader(file)))
        let out = rewrite.applied(to: file)
        #expect(out.count == file.count && rewrite.found.isSuperset(of: [.author, .dates, .location, .comment]))
        Self.noMarker(out, "an Ogg Speex")
        let pages = try OggBuild.pages(out)
        #expect(pages.count == 3 && pages[0].packets == [header] && pages[2].packets == [[UInt8](repeating: 0x55, count: 38)])
        #expect(VorbisComments.entries(pages[1].packets[0], from: 0)?.names == [])  // the vendor kept, no entry
        #expect(try OggCommentStripper.rewrite(ByteReader(out)) == nil)  // nothing left
        // A Theora video's packets are not ours to read: left to the transcode.
        let theora = OggBuild.bytes(.init(flags: 2, granule: zero, serial: serial, sequence: 0, packets: [[0x80] + Array("theora".utf8) + zero]))
        #expect(try OggCommentStripper.rewrite(ByteReader(theora)) == nil)
    }

    /// An ID3v2 tag (version `version`, with a footer when asked) holding an artist and a path.
    static func id3(version: UInt8 = 3, footer: Bool = false) -> [UInt8] {
        func frame(_ id: String, _ text: String) -> [UInt8] {
            let body = [3] + Array(text.utf8)
            return Array(id.utf8) + (version == 4 ? [0, 0, 0, UInt8(body.count)] : Bytes.be32(body.count)) + [0, 0] + body
        }
        let body = frame("TPE1", "Jane Sender") + frame("TXXX", "\0/home/jane/Music") + frame("TDRC", "2026-11-20")
        let size = [UInt8(body.count >> 21 & 0x7F), UInt8(body.count >> 14 & 0x7F), UInt8(body.count >> 7 & 0x7F), UInt8(body.count & 0x7F)]
        let flags: UInt8 = footer ? 0x10 : 0
        return Array("ID3".utf8) + [version, 0, flags] + size + body + (footer ? Array("3DI".utf8) + [version, 0, flags] + size : [])
    }

    @Test(arguments: [MediaOptions.AudioMode.file, .voice])
    func aFLACBehindAnID3TagIsAFLACAndLosesBoth(_ audio: MediaOptions.AudioMode) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let flac = try Fixture.bytes("voice.flac")
        let list = OggBuild.comments(OggBuild.secrets)
        // voice.flac with one more comment block after its STREAMINFO, naming the sender, and ID3 in front.
        let last = flac[4] & 0x80
        let tagged = Self.id3() + Array("fLaC".utf8) + [flac[4] & 0x7F] + Array(flac[5..<42])
            + [last | 4] + Array(Bytes.be32(list.count).suffix(3)) + list + flac.dropFirst(42)
        let path = try Fixture.write(tagged, "id3-voice.flac", in: dir)
        #expect(FormatSniffer.behindID3(ByteReader(tagged)) == .flac)
        let source = try MediaProbe.source(path: path, depth: .headers(wholeUpTo: 0))
        #expect(source.probe.format == .flac)
        let item = Self.prepare(path, in: dir, audio: audio)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        let bytes = try FileBytes.read(out)
        Self.noMarker(bytes, "a FLAC behind ID3 sent as \(audio)")
        if audio == .file {
            #expect(bytes.starts(with: Array("fLaC".utf8)) && bytes.count == tagged.count - Self.id3().count)
            #expect(try Packets.all(out) == Packets.all(Fixture.path("voice.flac")))
        }
    }

    /// ID3v2 written after the frames: without a footer (found by its size reaching the end) and as
    /// ID3v2.4 with its footer, an APE tag before it. Cut as a file; a voice note reads only the frames
    /// (the tag reached the decoder as a damaged packet and the recording was refused).
    @Test(arguments: [false, true], [MediaOptions.AudioMode.file, .voice])
    func anID3TagAfterAnMP3sFramesIsCut(_ footer: Bool, _ audio: MediaOptions.AudioMode) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = Array("Artist".utf8) + [0] + Array("Jane Sender".utf8)
        let apeBody = Bytes.le32(11) + Bytes.le32(0) + item
        let ape = apeBody + Array("APETAGEX".utf8) + Bytes.le32(2000) + Bytes.le32(apeBody.count + 32) + Bytes.le32(1) + [UInt8](repeating: 0, count: 12)
        let mp3 = try Fixture.bytes("voice.mp3")
        let frames = try AudioTagStripper.tagged(ByteReader(mp3)).audio
        let tagged = Array(mp3[frames]) + (footer ? ape + Self.id3(version: 4, footer: true) : Self.id3())
        let path = try Fixture.write(tagged, "tagged-end.mp3", in: dir)
        let (audioRange, found, appended) = try AudioTagStripper.tagged(ByteReader(tagged))
        #expect(audioRange == 0..<frames.count && appended && found.contains(.author))
        var check = SendCheck()
        check.media.audio = audio
        #expect(check.check(path: path).verdict == .afterPreparation)
        let prepared = Self.prepare(path, in: dir, audio: audio)
        let out = try #require(prepared.output, "\(prepared.error?.description ?? "")")
        let bytes = try FileBytes.read(out)
        Self.noMarker(bytes, "an MP3 with an appended tag sent as \(audio)")
        if audio == .file { #expect(bytes == Array(mp3[frames])) }
    }

    /// An SVG's comments are what an author wrote beside the drawing: emptied, delimiters and all.
    @Test func anSVGsCommentsAreEmptied() throws {
        let svg = Array("""
        <?xml version="1.0"?>
        <!-- Jane Sender, 12 rue de Rivoli, drawn on her iPad -->
        <svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">
          <!-- ask /home/jane
               before 2026-11-20 -->
          <rect width="8" height="4" fill="red"/><!---->
        </svg>

        """.utf8)
        let (item, out, reasons) = try preparedDocument(svg, name: "note.svg")
        #expect(item.route == .stripped && out.count == svg.count && FormatSniffer.sniff(out) == .svg)
        Self.noMarker(out, "an SVG")
        #expect(!out.contains(sequence: Array("<!-- ".utf8)) && out.contains(sequence: Array("<!---->".utf8)))  // an empty one says nothing
        #expect(out.contains(sequence: Array("<rect width=\"8\" height=\"4\" fill=\"red\"/>".utf8)))
        // Line breaks stay where they were.
        #expect(out.filter { $0 == 0x0A }.count == svg.filter { $0 == 0x0A }.count)
        #expect(reasons.contains { $0.contains("comment") }, "\(reasons)")
    }

    /// An SVGZ is told by what it inflates to, cleaned as an SVG and compressed again, without the
    /// gzip header's file name and time.
    @Test func anSVGZIsRecognisedCleanedAndCompressedAgain() throws {
        let svg = Array("""
        <?xml version="1.0"?>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"
             sodipodi:docname="/home/jane/secret-plan.svg" width="8" height="8">
          <!-- Jane Sender, 2026-11-20 -->
          <metadata><title>Rivoli</title></metadata>
          <rect width="8" height="4" fill="red"/>
        </svg>

        """.utf8)
        let plain = try Gzip.compress(svg)
        // As gzip(1) writes one: a modification time and the original name (FNAME).
        var packed = Array(plain.prefix(3)) + [0x08] + [0x80, 0x5A, 0x1F, 0x6A] + Array(plain[8..<10])
        packed += Array("secret-plan.svg".utf8) + [0] + plain.dropFirst(10)
        #expect(FormatSniffer.sniff(packed) == .svgz)
        #expect(try Gzip.inflate(packed, limit: 1 << 20) == svg)
        // Other gzip files are no drawings.
        #expect(FormatSniffer.sniff(try Gzip.compress(Array("just a log line\n".utf8))) == .unknown)
        let (item, out, reasons) = try preparedDocument(packed, name: "plan.svgz")
        #expect(item.kind == .file && item.route == .stripped && FormatSniffer.sniff(out) == .svgz)
        #expect(out[3] == 0 && out[4..<8].allSatisfy { $0 == 0 })  // no name, no time
        let drawing = try Gzip.inflate(out, limit: 1 << 20)
        Self.noMarker(drawing, "the drawing inside an SVGZ")
        Self.noMarker(out, "an SVGZ")
        #expect(drawing.count == svg.count && drawing.contains(sequence: Array("<rect width=\"8\" height=\"4\" fill=\"red\"/>".utf8)))
        #expect(reasons.contains { $0.contains("comment") && $0.contains("dates") }, "\(reasons)")
        // Damage and bombs: a stream cut short, one inflating past the SVG cap.
        #expect(throws: MediaPrepError.self) { try MetadataRewrite.svgz(ByteReader(Array(packed.dropLast(12)))) }
        #expect(throws: MediaPrepError.self) { try Gzip.inflate(try Gzip.compress([UInt8](repeating: 0x20, count: 1 << 20)), limit: 1 << 16) }
    }
}

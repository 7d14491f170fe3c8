import Foundation
import Testing
@testable import MediaPrep

/// Files cut short are refused `truncated`, not sent with what FFmpeg could read before the cut:
/// the container's own structure first (APNG chunks, Matroska's Segment, Ogg's last page), then,
/// for what that cannot see, the media read against the duration the container claims.
@Suite struct ContainerEndTests {
    func prefixes(_ d: [UInt8]) -> [(String, [UInt8])] {
        [25, 50, 90].map { ("\($0)%", Array(d.prefix(d.count * $0 / 100))) } + [("all but 1 byte", Array(d.dropLast()))]
    }

    @Test(arguments: ["anim-apng.png", "h264.mkv", "noisy.webm", "voice.ogg", "orient-gps.heic", "quadrants.avif", "p3.webp", "anim-sticker.webp"])
    func everyCutIsTruncated(_ name: String) throws {
        let whole = try Fixture.bytes(name)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try MediaProbe.source(path: try Fixture.write(whole, name, in: dir))  // the whole file passes
        for (what, cut) in prefixes(whole) {
            let path = try Fixture.write(cut, "cut-" + name, in: dir)
            #expect(throws: MediaPrepError.self, "\(name) \(what)") { _ = try MediaProbe.source(path: path) }
            do { _ = try MediaProbe.source(path: path) } catch let e as MediaPrepError {
                #expect(e.code == .truncated, "\(name) \(what): \(e)")
            }
        }
    }

    /// A live recording's Segment has no size: the structure cannot tell, the duration does.
    @Test func aMatroskaOfUnknownSizeCutShortIsRefusedWhenRemuxed() throws {
        var mkv = try Fixture.bytes("h264.mkv")
        #expect(Array(mkv[40..<44]) == [0x18, 0x53, 0x80, 0x67] && mkv[44] == 0x01)  // the Segment, an 8-byte size
        mkv.replaceSubrange(44..<52, with: [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let whole = AttachmentPreparer(outputDirectory: dir + "/whole", timestamp: 0).prepare(path: try Fixture.write(mkv, "live.mkv", in: dir))
        #expect(whole.error == nil && whole.route == .remuxed, "\(String(describing: whole.error))")
        let cut = AttachmentPreparer(outputDirectory: dir + "/cut", timestamp: 0)
            .prepare(path: try Fixture.write(Array(mkv.prefix(mkv.count * 6 / 10)), "live-cut.mkv", in: dir))
        #expect(cut.error?.code == .truncated && cut.output == nil, "\(String(describing: cut.error))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/cut")) ?? []).isEmpty)
    }

    /// FLAC's STREAMINFO and an MP3's Xing header say how long they are; a voice note made of a cut
    /// one would be sent a part short.
    @Test(arguments: ["voice.flac", "voice.mp3"])
    func aVoiceNoteCutShortIsRefused(_ name: String) throws {
        let whole = try Fixture.bytes(name)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.media.audio = .voice
        let ok = preparer.prepare(path: try Fixture.write(whole, name, in: dir))
        #expect(ok.error == nil && ok.kind == .voice, "\(String(describing: ok.error))")
        let cut = preparer.prepare(path: try Fixture.write(Array(whole.prefix(whole.count * 85 / 100)), "cut-" + name, in: dir))
        #expect(cut.error?.code == .truncated && cut.output == nil, "\(String(describing: cut.error))")
        // `check` reads the claim and the file's end, and agrees.
        var check = SendCheck()
        check.media.audio = .voice
        #expect(check.check(path: dir + "/" + name).verdict != .cannotSend)
        #expect(check.check(path: dir + "/cut-" + name).code == "truncated")
    }

    /// Every cut of the FLAC and MP3 fixtures that loses more than a voice note's slack is found from
    /// the file's ends. Less: an MP3 a byte short goes (it loses part of a frame, as FFmpeg reads it);
    /// a FLAC's last frame, whose CRC-16 no longer closes it, does not (FFmpeg's decoder refuses it).
    @Test(arguments: ["voice.flac", "voice.mp3"])
    func aRecordingsClaimIsHeldAgainstItsEnd(_ name: String) throws {
        let whole = try Fixture.bytes(name)
        let flac = name.hasSuffix(".flac")
        let check = flac ? ContainerEnd.flacFrames : ContainerEnd.mp3Stream
        try check(ByteReader(whole))
        if flac {
            #expect(throws: MediaPrepError.self) { try check(ByteReader(Array(whole.dropLast()))) }
            try check(ByteReader(whole + Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)))  // an ID3v1 tag after the frames
        } else {
            try check(ByteReader(Array(whole.dropLast())))
            // An encoder whose Xing byte count includes the leading ID3v2 tag: the whole file goes, a cut one does not.
            var counted = whole
            let xing = try #require((0..<200).first { Bytes.ascii(whole, $0, 4) == "Info" || Bytes.ascii(whole, $0, 4) == "Xing" })
            let tag = 10 + whole[6..<10].reduce(0) { $0 << 7 | Int($1) }  // the ID3v2 tag's size
            counted.replaceSubrange(xing + 12..<xing + 16, with: Bytes.be32(Bytes.be(whole, xing + 12, 4) + tag))
            try check(ByteReader(counted))
            #expect(throws: MediaPrepError.self) { try check(ByteReader(Array(counted.prefix(counted.count * 85 / 100)))) }
        }
        for percent in stride(from: 30, through: 90, by: 5) {
            let cut = Array(whole.prefix(whole.count * percent / 100))
            #expect(throws: MediaPrepError.self, "\(percent) %") { try check(ByteReader(cut)) }
        }
        // A FLAC frame header is found by its CRC-8; the STREAMINFO's claim is what it is held against.
        if name.hasSuffix(".flac") {
            let header = try #require((42..<whole.count - 16).lazy.compactMap { i in
                FLACFrameHeader(whole, at: i, blockSize: Bytes.be(whole, 10, 2)).map { (i, $0) }
            }.first)
            #expect(header.1.firstSample == 0)
            var flipped = whole
            flipped[header.0 + 2] ^= 0x10  // the block size code: the CRC-8 no longer matches
            #expect(FLACFrameHeader(flipped, at: header.0, blockSize: 4096) == nil)
        }
    }

    /// A tag after a FLAC's frames (ID3v1, APEv2), which players skip, is no damage: the recording
    /// is read only to where its frames end (it reached the decoder inside the last packet and
    /// failed its checksum: refused as `corrupt`).
    @Test(arguments: [Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125),
                      Array("APETAGEX".utf8) + Bytes.le32(2000) + Bytes.le32(32) + [UInt8](repeating: 0, count: 16)])
    func aTagAfterAFLACsFramesIsNoDamage(_ tag: [UInt8]) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(try Fixture.bytes("voice.flac") + tag, "tagged.flac", in: dir)
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.media.audio = .voice
        let item = preparer.prepare(path: path)
        #expect(item.error == nil && item.kind == .voice && item.format == .m4a, "\(String(describing: item.error))")
        var check = SendCheck()
        check.media.audio = .voice
        #expect(check.check(path: path).verdict != .cannotSend)
    }

    /// Bytes after the last box that name no box are skipped, as libheif and players skip them.
    @Test func junkAfterTheLastBoxIsNotACut() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let heic = try Fixture.bytes("orient-gps.heic") + [0, 0, 0, 0xFF] + [UInt8](repeating: 0xFF, count: 12)
        _ = try MediaProbe.source(path: try Fixture.write(heic, "junk.heic", in: dir))
        #expect(throws: MediaPrepError.self) { try ContainerEnd.isoBMFF(try Fixture.bytes("orient-gps.heic") + [0, 0, 0, 0xFF] + Array("mdat".utf8)) }
        // An ID3v1 tag, or any text: 'TAG' and a title read as a box claiming 1.4 GB, of a type no
        // file has at its top level. A box that does ('mdat', 'meta') past the end is a cut.
        let tag = Array("TAGSECRET-TITLE".utf8) + [UInt8](repeating: 0, count: 113)
        try ContainerEnd.isoBMFF(try Fixture.bytes("orient-gps.heic") + tag)
        try ContainerEnd.isoBMFF(try Fixture.bytes("orient-gps.heic") + Array("SECRET-TRAILER Jane Sender".utf8))
        #expect(throws: MediaPrepError.self) { try ContainerEnd.isoBMFF(try Fixture.bytes("orient-gps.heic") + [0, 0, 0x10, 0] + Array("meta".utf8)) }
        let junk = try Fixture.write(try Fixture.bytes("orient-gps.heic") + Array("SECRET-TRAILER Jane Sender".utf8), "trailer.heic", in: dir)
        #expect(SendCheck().check(path: junk).verdict == .afterPreparation)
    }

    /// A WAV's data chunk says how long it is; FFmpeg reads what is there. Made a voice note, a cut
    /// one is refused (`check` agrees); sent as a file it goes as the recording it is; a streaming
    /// writer's placeholder size is no cut.
    @Test func aCutWAVIsNoVoiceNote() throws {
        let wav = try Fixture.bytes("voice.wav")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cut = try Fixture.write(Array(wav.prefix(wav.count * 9 / 10)), "cut.wav", in: dir)
        var voice = AttachmentPreparer(outputDirectory: dir + "/voice", timestamp: 0)
        voice.media.audio = .voice
        #expect(voice.prepare(path: cut).error?.code == .truncated)
        var check = SendCheck()
        check.media.audio = .voice
        #expect(check.check(path: cut).code == "truncated")
        var file = AttachmentPreparer(outputDirectory: dir + "/file", timestamp: 0)
        file.media.audio = .file
        #expect(file.prepare(path: cut).error == nil)
        var placeholder = wav
        let data = try #require((12..<wav.count - 8).first { Array(wav[$0..<$0 + 4]) == Array("data".utf8) })
        placeholder.replaceSubrange(data + 4..<data + 8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        try ContainerEnd.wavData(ByteReader(Array(placeholder.prefix(placeholder.count * 9 / 10))))
    }

    /// `check` looks for a PNG's IEND and its CRC: a PNG one byte short has the first, not the second.
    @Test func checkFindsAPNGOneByteShort() throws {
        let png = try Fixture.bytes("screenshot.png")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(SendCheck().check(path: try Fixture.write(Array(png.dropLast()), "short.png", in: dir)).code == "truncated")
        #expect(SendCheck().check(path: try Fixture.write(png + Array("trailing".utf8), "junk.png", in: dir)).verdict != .cannotSend)
    }

    /// Damage a checksum shows is no voice note either: a FLAC frame whose CRC fails is a damaged
    /// packet; an Ogg page whose CRC fails, which FFmpeg's demuxer drops without a word, is found by
    /// walking the pages (in `check` too).
    @Test(arguments: ["voice.flac", "voice.ogg"])
    func aDamagedRecordingIsNoVoiceNote(_ name: String) throws {
        var bytes = try Fixture.bytes(name)
        let i = bytes.count / 2
        bytes[i] ^= 0x5A
        bytes[i + 1] ^= 0xA5
        bytes[i + 7] ^= 0xFF
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.media.audio = .voice
        let item = preparer.prepare(path: try Fixture.write(bytes, "damaged-" + name, in: dir))
        #expect(item.error?.code == .corrupt && item.output == nil, "\(String(describing: item.error))")
        #expect(preparer.prepare(path: Fixture.path(name)).error == nil)
        if name.hasSuffix(".ogg") {
            var check = SendCheck()
            check.media.audio = .voice
            #expect(check.check(path: dir + "/damaged-" + name).code == "corrupt")
        }
    }

    /// A bare JPEG XL codestream has no sizes to hold against the file; its decode, in `prepare`,
    /// asks for more input than there is, and `check` decodes it too (it used to pass it).
    @Test func aCutJPEGXLIsTruncatedWhenDecoded() throws {
        let jxl = try Fixture.bytes("quadrants.jxl")
        #expect(jxl.starts(with: [0xFF, 0x0A]))  // the bare codestream
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (what, cut) in prefixes(jxl) {
            #expect(throws: MediaPrepError.self, "\(what)") { _ = try JXLDecoder.decode(cut, maxPixels: 1 << 24) }
            do { _ = try JXLDecoder.decode(cut, maxPixels: 1 << 24) } catch let e as MediaPrepError {
                #expect(e.code == .truncated, "\(what): \(e)")
            }
            #expect(SendCheck().check(path: try Fixture.write(cut, "cut.jxl", in: dir)).code == "truncated", "\(what)")
        }
        #expect(SendCheck().check(path: Fixture.path("quadrants.jxl")).verdict == .afterPreparation)
        #expect(try JXLDecoder.decode(jxl, maxPixels: 1 << 24).image.pixels.width == 64)
    }

    /// A refused file is still reported as what it is: a bot branches on the kind and format.
    @Test func aRefusedFileIsStillNamed() throws {
        let mkv = try Fixture.bytes("h264.mkv")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(Array(mkv.prefix(mkv.count / 2)), "cut.mkv", in: dir)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.error?.code == .truncated && item.kind == .video && item.format == .matroska)
        let check = SendCheck().check(path: path)
        #expect(check.verdict == .cannotSend && check.kind == .video && check.format == .matroska && check.bytes == mkv.count / 2)
    }

    @Test func theEBMLSizesAreRead() throws {
        let mkv = try Fixture.bytes("h264.mkv")
        try ContainerEnd.matroska(ByteReader(mkv))
        #expect(throws: MediaPrepError.self) { try ContainerEnd.matroska(ByteReader(Array(mkv.prefix(60)))) }
        try ContainerEnd.matroska(ByteReader(Array("not matroska at all".utf8)))  // not ours to judge
        try ContainerEnd.png(try Fixture.bytes("rgb.png"))
        #expect(throws: MediaPrepError.self) { try ContainerEnd.png(Array((try Fixture.bytes("rgb.png")).dropLast(12))) }  // no IEND
    }
}

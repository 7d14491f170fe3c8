import Foundation
import Testing
@testable import MediaPrep

/// Videos, voice notes and audio files leave without the sender's location, device, name or dates,
/// whichever way they go (as they are, remuxed, transcoded, or as a file), every stream packet for packet.
@Suite struct NothingPrivateInMediaTests {
    static let fixtures = ["private-iphone.mov", "private-android.mp4", "private-memo.m4a", "private-long.m4a", "private-tagged.mp3",
                           "private-tagged.flac", "private-tagged.opus.ogg", "private-tagged.vorbis.ogg", "private-tagged.wav",
                           "private-tagged.mkv"]

    /// What the fixture script wrote into them (testdata/make-private-fixtures.sh).
    static let secrets = ["iPhone 15 Pro", "17.4.1", "Jane Sender", "48.8583", "Rivoli", "Pixel 8", "Google", "secret comment",
                          "Test Phone", "Exif", "2026"]

    static func prepare(_ name: String, audio: MediaOptions.AudioMode) throws -> (PreparedItem, String) {
        let dir = try Fixture.scratch()
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.audio = audio
        return (preparer.prepare(path: Fixture.path(name)), dir)
    }

    @Test func theFixturesDoCarryIt() throws {
        for name in Self.fixtures {
            let bytes = try Fixture.bytes(name)
            #expect(Self.secrets.contains { bytes.contains(sequence: Array($0.utf8)) }, "\(name) carries nothing to remove")
            let source = try MediaProbe.source(path: Fixture.path(name), depth: .headers(wholeUpTo: 0))
            #expect(source.rewrite != nil, "\(name)")
        }
    }

    @Test(arguments: fixtures, [MediaOptions.AudioMode.auto, .file])
    func nothingPrivateLeaves(_ name: String, _ audio: MediaOptions.AudioMode) throws {
        let (item, dir) = try Self.prepare(name, audio: audio)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = try #require(item.output, "\(name): \(item.error?.description ?? "")")
        let bytes = try FileBytes.read(out)
        for secret in Self.secrets {
            #expect(!bytes.contains(sequence: Array(secret.utf8)), "\(name) → \(item.route?.rawValue ?? "-") still carries \"\(secret)\"")
        }
        // Nothing left to take out, and what went as it was keeps every packet (cover art aside).
        #expect(try MediaProbe.source(path: out, depth: .headers(wholeUpTo: 0)).rewrite == nil, "\(name)")
        if item.route == .stripped {
            #expect(try Packets.all(out, skipPictures: true) == Packets.all(Fixture.path(name), skipPictures: true), "\(name)")
        }
    }

    /// The ID3v1 tag taggers append to any audio file, after a FLAC's frames, an Ogg's last page or a
    /// WAV's RIFF: cut whichever way the recording goes (a FLAC and an Ogg sent as files carried it,
    /// and a WAV or an Ogg with one was refused).
    @Test(arguments: ["voice.flac", "voice.ogg", "voice.wav"], [MediaOptions.AudioMode.file, .voice])
    func anAppendedTagIsCut(_ name: String, _ audio: MediaOptions.AudioMode) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tag = Array("TAG".utf8) + Array("Jane Sender".utf8) + [UInt8](repeating: 0, count: 19) + Array("secret comment".utf8)
            + [UInt8](repeating: 0, count: 128 - 3 - 30 - 14)
        let path = try Fixture.write(try Fixture.bytes(name) + tag, "tagged-" + name, in: dir)
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.media.audio = audio
        let item = preparer.prepare(path: path)
        let out = try #require(item.output, "\(name): \(item.error?.description ?? "")")
        let bytes = try FileBytes.read(out)
        #expect(!bytes.contains(sequence: Array("Jane Sender".utf8)) && !bytes.contains(sequence: Array("secret comment".utf8)))
        if audio == .file {  // the same bytes as the untagged recording sent as a file
            let plain = preparer.prepare(path: Fixture.path(name))
            #expect(bytes == (try FileBytes.read(try #require(plain.output))))
        }
    }

    /// The same tags after an M4A's or MP4's last box: 'TAG' and a long title read as a box claiming
    /// gigabytes (the file was refused as cut), a short title as junk (it went out, title and all);
    /// and plain text, whose first bytes read as a box of a type no file has at its top level.
    @Test(arguments: ["private-memo.m4a", "private-android.mp4"])
    func aTagAfterTheLastBoxIsCut(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func id3v1(_ title: String) -> [UInt8] {
            let fields = Array(title.utf8) + [UInt8](repeating: 0, count: 30 - title.utf8.count) + Array("Jane Sender".utf8)
            return Array("TAG".utf8) + fields + [UInt8](repeating: 0, count: 125 - fields.count)
        }
        let item = Array("Artist".utf8) + [0] + Array("Jane Sender".utf8)
        let apeBody = Bytes.le32(11) + Bytes.le32(0) + item
        let ape = apeBody + Array("APETAGEX".utf8) + Bytes.le32(2000) + Bytes.le32(apeBody.count + 32) + Bytes.le32(1)
            + [UInt8](repeating: 0, count: 12)
        let preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        let plain = try FileBytes.read(try #require(preparer.prepare(path: Fixture.path(name)).output))
        let tails: [(String, [UInt8])] = [("long title", id3v1("A title long enough")), ("short title", id3v1("Hi")),
                                          ("APEv2", ape), ("junk", [0, 0, 0, 32, 0xFF, 0xFE, 0, 1] + Array("Jane Sender".utf8)),
                                          ("text", Array("Jane Sender, 12 rue de Rivoli".utf8))]
        for (what, tail) in tails {
            let path = try Fixture.write(try Fixture.bytes(name) + tail, what + "-" + name, in: dir)
            #expect(SendCheck().check(path: path).verdict == .afterPreparation, "\(name), \(what)")
            let out = try #require(preparer.prepare(path: path).output, "\(name), \(what)")
            #expect(try FileBytes.read(out) == plain, "\(name), \(what)")
        }
        // Zeros after the last box carry nothing and stay.
        let padded = try Fixture.bytes(name) + [UInt8](repeating: 0, count: 100)
        #expect(try MP4MetadataStripper.rewrite(ByteReader(padded))?.outputSize == padded.count)
    }

    /// Sent as it is (`--video original`), a Matroska or WebM file went with its Tags, attached cover
    /// and the Info's title and date; now each is a Void element of the same length, every packet kept.
    @Test func aMatroskaSentAsItIsLosesItsTags() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.video = .original
        let item = preparer.prepare(path: Fixture.path("private-tagged.mkv"))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .stripped && item.format == .matroska)
        let bytes = try FileBytes.read(out)
        #expect(bytes.count == (try Fixture.bytes("private-tagged.mkv")).count)  // nothing moved
        for secret in Self.secrets { #expect(!bytes.contains(sequence: Array(secret.utf8)), "\(secret)") }
        #expect(try Packets.all(out, skipPictures: true) == Packets.all(Fixture.path("private-tagged.mkv"), skipPictures: true))
        var check = SendCheck()
        check.media.video = .original
        #expect(check.check(path: Fixture.path("private-tagged.mkv")).reasons.last == "location, author, dates, title, cover art removed (streams untouched)")
    }

    @Test func theIPhoneClipStaysUprightAndSaysWhatWent() throws {
        let (item, dir) = try Self.prepare("private-iphone.mov", audio: .auto)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.route == .stripped && item.kind == .video)
        let out = try #require(item.output)
        #expect(try MediaProbe.probe(path: out).rotation == MediaProbe.probe(path: Fixture.path("private-iphone.mov")).rotation)
        #expect((item.width, item.height) == (120, 160))
        #expect(try FileBytes.read(out).count == Fixture.bytes("private-iphone.mov").count)  // no box moved
        let check = SendCheck().check(path: Fixture.path("private-iphone.mov"))
        #expect(check.verdict == .afterPreparation && check.code == "metadataStripped")
        #expect(check.reasons.last == "location, device, author, dates, XMP removed (streams untouched)")
        let memo = SendCheck().check(path: Fixture.path("private-memo.m4a"))
        #expect(memo.reasons.last == "location, dates, title removed (streams untouched)")
    }

    @Test func longRecordingsGoAsFilesWithoutTheirTags() throws {
        let (item, dir) = try Self.prepare("private-long.m4a", audio: .auto)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(item.kind == .file && item.route == .stripped && item.output?.hasSuffix("/private-long.m4a") == true)
        let check = SendCheck().check(path: Fixture.path("private-long.m4a"))
        #expect(check.reasons == ["audio over 300 s (400.0 s): sent as a file, as the app's file picker does",
                                  "location, author, cover art removed (streams untouched)"])
    }

    /// A bat recorder's WAV (GUANO, as AudioMoth and Wildlife Acoustics write it: the recorder, its
    /// serial, the time and the GPS position) and a broadcast `cart`: `JUNK` of the same size.
    @Test func aRecordersGUANOChunkGoes() throws {
        let wav = try Fixture.bytes("voice.wav")
        let guano = Array("GUANO|Version: 1.0\nMake: Open Acoustic Devices\nSerial: 24F3190A\nTimestamp: 2026-06-01T21:14:03+02:00\nLoc Position: 51.50123 -0.12345\n".utf8)
        let cart = Array("0101Jane Sender".utf8) + [UInt8](repeating: 0, count: 17)
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + Bytes.le32(body.count) + body + (body.count % 2 == 1 ? [0] : []) }
        var file = wav + chunk("guan", guano) + chunk("cart", cart) + chunk("umid", [UInt8](repeating: 0, count: 64))
        file.replaceSubrange(4..<8, with: Bytes.le32(file.count - 8))
        let rewrite = try #require(try AudioTagStripper.wav(ByteReader(file)))
        let out = rewrite.applied(to: file)
        let samples = try #require(wav.firstRange(of: Array("data".utf8))).lowerBound..<wav.count
        #expect(out.count == file.count && out[samples] == file[samples])
        for secret in ["Loc Position", "24F3190A", "Jane Sender", "GUANO"] { #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)") }
        #expect(rewrite.found.contains(.location) && rewrite.found.contains(.author))
        #expect(out.contains(sequence: Array("umid".utf8)))  // an empty ID says nothing, and stays
    }

    @Test func tagsAreCutOrPaddedNotReencoded() throws {
        // MP3: ID3v2 (cover art inside) and ID3v1 cut; FLAC/WAV/Ogg: the same size, padding where tags were.
        for (name, sameSize) in [("private-tagged.mp3", false), ("private-tagged.flac", true), ("private-tagged.wav", true),
                                 ("private-tagged.opus.ogg", true), ("private-tagged.vorbis.ogg", true)] {
            let (item, dir) = try Self.prepare(name, audio: .file)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            let out = try FileBytes.read(try #require(item.output))
            #expect((out.count == (try Fixture.bytes(name)).count) == sameSize, "\(name)")
            #expect(item.route == .stripped, "\(name)")
        }
    }
}

/// Damaged and hostile containers: a clear error, nothing written, never a long walk.
@Suite struct HostileContainerTests {
    static func box(_ type: String, _ body: [UInt8], size: Int? = nil) -> [UInt8] {
        Bytes.be32(size ?? body.count + 8) + Array(type.utf8) + body
    }

    static let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))

    @Test func boxesPastTheEndAreCorrupt() throws {
        let past = Self.ftyp + Self.box("moov", Self.box("udta", [1, 2, 3]), size: 1000)
        #expect(throws: MediaPrepError.self) { try MP4MetadataStripper.rewrite(ByteReader(past)) }
        let inner = Self.ftyp + Self.box("moov", Self.box("udta", [1, 2, 3], size: 500))
        do {
            _ = try MP4MetadataStripper.rewrite(ByteReader(inner))
            Issue.record("a box past its container's end was accepted")
        } catch let e as MediaPrepError {
            #expect(e.code == .corrupt && e.message.contains("past the end of its 'moov' box"))
        }
        let tiny = Self.ftyp + Self.box("moov", [0, 0, 0, 4] + Array("trak".utf8))  // a size smaller than its header
        #expect(throws: MediaPrepError.self) { try MP4MetadataStripper.rewrite(ByteReader(tiny)) }
        let huge = Self.ftyp + [0, 0, 0, 1] + Array("moov".utf8) + Bytes.be64(Int.max)  // a 64-bit size
        #expect(throws: MediaPrepError.self) { try MP4MetadataStripper.rewrite(ByteReader(huge)) }
    }

    @Test func absurdCountsEndTheWalk() throws {
        // 200,000 empty boxes inside moov: refused at the limit, not walked to the end.
        let empties = (0..<200_000).flatMap { _ in Self.box("trak", []) }
        #expect(throws: MediaPrepError.self) { try MP4MetadataStripper.rewrite(ByteReader(Self.ftyp + Self.box("moov", empties))) }
        // Nesting 50 deep.
        var nested = Self.box("mdia", [])
        for _ in 0..<50 { nested = Self.box("trak", nested) }
        _ = try MP4MetadataStripper.rewrite(ByteReader(Self.ftyp + Self.box("moov", nested)))  // trak in trak is not walked into
    }

    @Test func blankedBoxesKeepTheirPlace() throws {
        let udta = Self.box("udta", Self.box("\u{A9}xyz", Array("+48.8583+002.2945/".utf8)))
        let file = Self.ftyp + Self.box("moov", Self.box("mvhd", [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8] + [UInt8](repeating: 0, count: 88)) + udta)
        let rewrite = try #require(try MP4MetadataStripper.rewrite(ByteReader(file)))
        #expect(rewrite.found == [.location, .dates])
        #expect(rewrite.outputSize == file.count)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (src, dst) = (dir + "/in.mp4", dir + "/out.mp4")
        #expect(FileManager.default.createFile(atPath: src, contents: Data(file)))
        try rewrite.write(from: src, to: dst)
        let out = try FileBytes.read(dst)
        #expect(out.count == file.count && !out.contains(sequence: Array("48.8583".utf8)))
        #expect(try MP4MetadataStripper.rewrite(ByteReader(out)) == nil)  // nothing left
    }

    @Test func audioTagsPastTheEndAreCorrupt() throws {
        let id3 = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0x7F, 0x7F] + [UInt8](repeating: 0, count: 20)
        #expect(throws: MediaPrepError.self) { try AudioTagStripper.id3(ByteReader(id3)) }
        let flac = Array("fLaC".utf8) + [0x84, 0xFF, 0xFF, 0xFF, 1, 2, 3]
        #expect(throws: MediaPrepError.self) { try AudioTagStripper.flac(ByteReader(flac)) }
        let ogg = Array("OggS".utf8) + [0, 2] + [UInt8](repeating: 0, count: 20) + [3, 255, 255, 255]
        #expect(throws: MediaPrepError.self) { try OggCommentStripper.rewrite(ByteReader(ogg)) }
    }

    /// A file that shrinks between planning and copying (or lies about its size) is an error, not a
    /// short file sent as whole, and not a spin.
    @Test func aFileThatShrankIsNotCopied() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/clip.mp4"
        #expect(FileManager.default.createFile(atPath: src, contents: Data(try Fixture.bytes("h264.mp4").prefix(1000))))
        do {
            try FileCopier.copy(from: src, expectedSize: 62_413, to: dir + "/out.mp4")
            Issue.record("copied a file shorter than planned")
        } catch let e as MediaPrepError {
            #expect(e.code == .truncated)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.mp4"))
    }
}

/// The app sends a voice message only from its recorder: a picked song goes as a file.
@Suite struct AudioTheAppsWayTests {
    @Test func musicGoesAsAFileARecordingAsVoice() throws {
        for name in ["private-tagged.mp3", "private-tagged.flac", "private-tagged.opus.ogg", "private-tagged.wav"] {
            let c = SendCheck().check(path: Fixture.path(name))
            #expect(c.kind == .file && c.reasons.first?.hasPrefix("music (an artist tag") == true, "\(name): \(c.reasons)")
        }
        // Recordings: mono and untagged (a memo's title and place do not make it music), or short stereo.
        for name in ["private-memo.m4a", "voice.m4a", "voice.ogg", "voice.flac"] {
            #expect(SendCheck().check(path: Fixture.path(name)).kind == .voice, "\(name)")
        }
        var forced = SendCheck()
        forced.media.audio = .voice
        #expect(forced.check(path: Fixture.path("private-tagged.mp3")).kind == .voice)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("private-tagged.mp3"))
        #expect(item.kind == .file && item.route == .stripped && item.output?.hasSuffix("/private-tagged.mp3") == true)
    }
}


/// A GoPro's GPS track (`gpmd`, five fixes a frame and the camera's serial) rides beside the video: the
/// track and its samples go, in place, and the video's packets stay as they were. Built here:
/// h264.mp4 (its `moov` last) with such a track added to `moov`, its two samples in an `mdat` after it.
@Suite struct SideTrackTests {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { Bytes.be32(body.count + 8) + Array(type.utf8) + body }
    static func full(_ type: String, _ body: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + body) }

    static func withGPSTrack() throws -> (file: [UInt8], samples: Range<Int>) {
        let mp4 = try Fixture.bytes("h264.mp4")
        let moovAt = try #require(mp4.firstRange(of: Array("moov".utf8))).lowerBound - 4
        #expect(Bytes.be(mp4, moovAt, 4) == mp4.count - moovAt)  // the last box
        let sample = Array("DEVC".utf8) + Array("GPS5".utf8) + Bytes.be32(515_012_300) + Bytes.be32(-1_245_600) + Array("SECRET-SERIAL-C3141 ".utf8)
        func trak(offset: Int) -> [UInt8] {
            let stbl = full("stsd", Bytes.be32(1) + box("gpmd", [UInt8](repeating: 0, count: 8))) + full("stts", Bytes.be32(1) + Bytes.be32(2) + Bytes.be32(1000))
                + full("stsc", Bytes.be32(1) + Bytes.be32(1) + Bytes.be32(2) + Bytes.be32(1))
                + full("stsz", Bytes.be32(0) + Bytes.be32(2) + Bytes.be32(sample.count) + Bytes.be32(sample.count)) + full("stco", Bytes.be32(1) + Bytes.be32(offset))
            let hdlr = full("hdlr", Bytes.be32(0) + Array("meta".utf8) + [UInt8](repeating: 0, count: 12) + Array("GoPro MET\0".utf8))
            let mdhd = full("mdhd", Bytes.be32(0) + Bytes.be32(0) + Bytes.be32(1000) + Bytes.be32(2000) + [0x55, 0xC4, 0, 0])
            let tkhd = full("tkhd", [UInt8](repeating: 0, count: 8) + Bytes.be32(9) + [UInt8](repeating: 0, count: 68))
            return box("trak", tkhd + box("mdia", mdhd + hdlr + box("minf", box("stbl", stbl))))
        }
        let moovBody = Array(mp4[(moovAt + 8)...])
        let moovSize = 8 + moovBody.count + trak(offset: 0).count
        let samplesAt = moovAt + moovSize + 8
        let file = Array(mp4[..<moovAt]) + box("moov", moovBody + trak(offset: samplesAt)) + box("mdat", sample + sample)
        return (file, samplesAt..<(samplesAt + 2 * sample.count))
    }

    @Test func aGoProGPSTrackAndItsSamplesGo() throws {
        let (file, samples) = try Self.withGPSTrack()
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(file, "GX010042.mp4", in: dir)
        let source = try MediaProbe.source(path: path)
        #expect(source.probe.kind == .video)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        let out = try FileBytes.read(try #require(item.output, "\(String(describing: item.error))"))
        #expect(out.count == file.count && item.route == .stripped)
        for secret in ["SECRET-SERIAL", "GPS5", "gpmd", "GoPro MET"] { #expect(!out.contains(sequence: Array(secret.utf8)), "\(secret)") }
        #expect(out[samples].allSatisfy { $0 == 0 })
        // The video's samples, in the first `mdat`, byte for byte.
        let mdat = try #require(file.firstRange(of: Array("mdat".utf8))).upperBound
        #expect(out[mdat..<(mdat + 50_000)] == file[mdat..<(mdat + 50_000)])
        let kept = try MediaProbe.source(path: try #require(item.output))
        #expect(kept.probe.videoCodec == "h264" && kept.probe.width == source.probe.width)
        let reasons = SendCheck().check(path: path).reasons
        #expect(reasons.contains { $0.contains("location") && $0.contains("device") }, "\(reasons)")
        // Its tables pointing outside the file: damaged, since its samples could not be found to go.
        var wrong = file
        let stco = try #require(file.lastRange(of: Array("stco".utf8))).upperBound + 8
        wrong.replaceSubrange(stco..<(stco + 4), with: Bytes.be32(file.count))
        #expect(throws: MediaPrepError.self) { try MP4MetadataStripper.rewrite(ByteReader(wrong)) }
    }

    /// An audiobook's chapter list is a text track its sound track names (`tref`/`chap`): it stays,
    /// titles and all; a text track nothing names (a dashcam's subtitles) still goes.
    @Test func anAudiobooksChaptersStay() throws {
        let title = Array("Chapter One: the storm".utf8)
        func trak(id: Int, handler: String, tref: [UInt8] = [], offset: Int = 0) -> [UInt8] {
            let tkhd = Self.full("tkhd", [UInt8](repeating: 0, count: 8) + Bytes.be32(id) + [UInt8](repeating: 0, count: 68))
            let hdlr = Self.full("hdlr", Bytes.be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))
            let stbl = Self.full("stsd", Bytes.be32(1) + Self.box("text", [UInt8](repeating: 0, count: 8)))
                + Self.full("stsc", Bytes.be32(1) + Bytes.be32(1) + Bytes.be32(1) + Bytes.be32(1))
                + Self.full("stsz", Bytes.be32(title.count) + Bytes.be32(1)) + Self.full("stco", Bytes.be32(1) + Bytes.be32(offset))
            return Self.box("trak", tkhd + tref + Self.box("mdia", hdlr + Self.box("minf", Self.box("stbl", stbl))))
        }
        let ftyp = Self.box("ftyp", Array("M4A ".utf8) + Bytes.be32(0))
        func file(chapters: Bool) -> (bytes: [UInt8], text: Range<Int>) {
            let sound = trak(id: 1, handler: "soun", tref: chapters ? Self.box("tref", Self.box("chap", Bytes.be32(2))) : [])
            let moovSize = 8 + sound.count + trak(id: 2, handler: "text").count
            let at = ftyp.count + moovSize + 8
            let bytes = ftyp + Self.box("moov", sound + trak(id: 2, handler: "text", offset: at)) + Self.box("mdat", title)
            return (bytes, at..<(at + title.count))
        }
        let book = file(chapters: true)
        let kept = try MP4MetadataStripper.rewrite(ByteReader(book.bytes))?.applied(to: book.bytes) ?? book.bytes
        #expect(kept == book.bytes)
        let subtitles = file(chapters: false)
        let out = try #require(try MP4MetadataStripper.rewrite(ByteReader(subtitles.bytes))).applied(to: subtitles.bytes)
        #expect(out[subtitles.text].allSatisfy { $0 == 0 } && out.contains(sequence: Array("free".utf8)))
    }

    /// A fragmented recording indexes each fragment's samples in a `traf`: a GPS track's samples go
    /// there too, its `traf` freed when the fragments give their bases; the video's stay byte for byte.
    @Test(arguments: [true, false])
    func aFragmentedRecordingsGPSGoes(explicitBases: Bool) throws {
        let gps = Array("GPS5 51.50123 N 0.12345 W SERIAL-C3141".utf8), video = [UInt8](repeating: 0x65, count: 64)
        func trak(id: Int, handler: String, entry: String) -> [UInt8] {
            let tkhd = Self.full("tkhd", [UInt8](repeating: 0, count: 8) + Bytes.be32(id) + [UInt8](repeating: 0, count: 68))
            let hdlr = Self.full("hdlr", Bytes.be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))
            let stbl = Self.full("stsd", Bytes.be32(1) + Self.box(entry, [UInt8](repeating: 0, count: 8))) + Self.full("stsc", Bytes.be32(0))
                + Self.full("stsz", Bytes.be32(0) + Bytes.be32(0)) + Self.full("stco", Bytes.be32(0))
            return Self.box("trak", tkhd + Self.box("mdia", hdlr + Self.box("minf", Self.box("stbl", stbl))))
        }
        func trex(_ id: Int, size: Int) -> [UInt8] { Self.full("trex", Bytes.be32(id) + Bytes.be32(1) + Bytes.be32(0) + Bytes.be32(size) + Bytes.be32(0)) }
        let head = Self.box("ftyp", Array("iso6".utf8) + Bytes.be32(0))
            + Self.box("moov", trak(id: 1, handler: "vide", entry: "avc1") + trak(id: 2, handler: "meta", entry: "gpmd")
                + Self.box("mvex", trex(1, size: 0) + trex(2, size: gps.count / 2)))
        // Video: one run of two sized samples; GPS: two samples of trex's default size, after them.
        let base: [UInt8] = explicitBases ? [0, 2, 0, 0] : [0, 0, 0, 0]
        func moof(dataAt: Int) -> [UInt8] {
            let v = Self.box("traf", Self.box("tfhd", base + Bytes.be32(1)) + Self.box("trun", [0, 0, 2, 1] + Bytes.be32(2) + Bytes.be32(dataAt) + Bytes.be32(32) + Bytes.be32(32)))
            let g = explicitBases ? Self.box("trun", [0, 0, 0, 1] + Bytes.be32(2) + Bytes.be32(dataAt + video.count)) : Self.box("trun", [0, 0, 0, 0] + Bytes.be32(2))
            return Self.box("moof", Self.box("mfhd", [0, 0, 0, 0] + Bytes.be32(1)) + v + Self.box("traf", Self.box("tfhd", base + Bytes.be32(2)) + g))
        }
        // With bases from the moof, data offsets count from its start; without, the first traf's base is the moof too.
        let moofSize = moof(dataAt: 0).count
        let file = head + moof(dataAt: moofSize + 8) + Self.box("mdat", video + gps)
        let gpsAt = file.count - gps.count
        let rewrite = try #require(try MP4MetadataStripper.rewrite(ByteReader(file)))
        let out = rewrite.applied(to: file)
        #expect(out.count == file.count && rewrite.found.contains(.location))
        #expect(out[gpsAt...].allSatisfy { $0 == 0 } && out[(gpsAt - video.count)..<gpsAt] == file[(gpsAt - video.count)..<gpsAt])
        // Two trafs before; the GPS one freed only where the fragments give their bases.
        #expect(out.ranges(of: Array("traf".utf8)).count == (explicitBases ? 1 : 2))
        // More GPS samples than the file holds: damaged, since they could not be found to go.
        var wrong = file
        let count = try #require(file.lastRange(of: Array("trun".utf8))).upperBound + 4
        wrong.replaceSubrange(count..<(count + 4), with: Bytes.be32(1000))
        #expect(throws: MediaPrepError.self) { try MP4MetadataStripper.rewrite(ByteReader(wrong)) }
    }

    /// A dashcam's NMEA sentences in a top-level box (BlackVue's `gps `, 70mai's `GPS `, DuDuBell's
    /// `gps0`, Datakam's `udat`), its capture time (`IDIT`), Samsung's trailer: blanked like `udta`.
    @Test(arguments: ["gps ", "GPS ", "gps0", "udat", "IDIT", "sefd"])
    func aDashcamsGPSBoxGoes(_ type: String) throws {
        let nmea = Array("[1700000000000]$GPRMC,101010.00,A,5130.07,N,00007.47,W,42.0,0.0,201126,,,A*6B\n".utf8)
        let file = try Fixture.bytes("h264.mp4") + Self.box(type, nmea)
        let rewrite = try #require(try MP4MetadataStripper.rewrite(ByteReader(file)))
        let out = rewrite.applied(to: file)
        #expect(out.count == file.count && !out.contains(sequence: Array("$GPRMC".utf8)))
        #expect(rewrite.found.contains(type == "IDIT" || type == "sefd" ? .dates : .location))
    }
}

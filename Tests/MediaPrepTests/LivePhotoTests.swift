import Foundation
import Testing
@testable import MediaPrep

/// An iPhone Live Photo given as its two files (IMG_0001.JPG and IMG_0001.MOV, one content identifier):
/// by default the still goes and the movie is skipped, said so; with `--motion video` the movie goes as
/// a video message, stripped and made playable as any video, the still its preview.
@Suite struct LivePhotoTests {
    static let id = "8A3F5C2E-1B7D-4E9A-9C61-2F0D3B4A5E6F"

    /// small.jpg with an Exif whose maker note is Apple's, holding the content identifier (tag 17).
    static func still(id: String = Self.id) throws -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let value = Array(id.utf8) + [0]
        // The maker note: "Apple iOS\0", version 1, "MM", an IFD of one entry at 14, its value after it.
        let note = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8) + be16(1)
            + be16(0x0011) + be16(2) + Bytes.be32(value.count) + Bytes.be32(14 + 2 + 12 + 4) + Bytes.be32(0) + value
        // TIFF: IFD0 (one entry: the Exif IFD at 26), the Exif IFD (one entry: MakerNote at 44), the note.
        var tiff = Array("MM".utf8) + [0, 42] + Bytes.be32(8) + be16(1) + be16(0x8769) + be16(4) + Bytes.be32(1) + Bytes.be32(26) + Bytes.be32(0)
        tiff += be16(1) + be16(0x927C) + be16(7) + Bytes.be32(note.count) + Bytes.be32(44) + Bytes.be32(0)
        tiff += note
        let exif = Array("Exif\0\0".utf8) + tiff
        let photo = try Fixture.bytes("small.jpg")
        return [0xFF, 0xD8, 0xFF, 0xE1] + Array(Bytes.be32(exif.count + 2).suffix(2)) + exif + photo.dropFirst(2)
    }

    /// private-android.mp4 (GPS, a phone's name; its `moov` last) with a QuickTime `meta` naming the identifier.
    static func movie(id: String = Self.id) throws -> [UInt8] {
        var mp4 = try Fixture.bytes("private-android.mp4")
        var at = 0, moov: Int? = nil
        while at + 8 <= mp4.count {
            let size = Bytes.be(mp4, at, 4)
            if Bytes.ascii(mp4, at + 4, 4) == "moov" { moov = at }
            guard size >= 8 else { break }
            at += size
        }
        let start = try #require(moov)
        try #require(start + Bytes.be(mp4, start, 4) == mp4.count, "moov is not the last box")
        let key = Array("com.apple.quicktime.content.identifier".utf8)
        let keys = HEIFBuild.full("keys", 0, 0, Bytes.be32(1) + Bytes.be32(8 + key.count) + Array("mdta".utf8) + key)
        let data = HEIFBuild.box("data", Bytes.be32(1) + Bytes.be32(0) + Array(id.utf8))
        let ilst = HEIFBuild.box("ilst", Bytes.be32(8 + data.count) + Bytes.be32(1) + data)
        let meta = HEIFBuild.box("meta", HEIFBuild.full("hdlr", 0, 0, [0, 0, 0, 0] + Array("mdta".utf8) + [UInt8](repeating: 0, count: 13)) + keys + ilst)
        mp4 += meta
        mp4.replaceSubrange(start..<start + 4, with: Bytes.be32(Bytes.be(mp4, start, 4) + meta.count))
        return mp4
    }

    @Test func theIdentifiersAreRead() throws {
        #expect(LivePhoto.identifier(still: try Self.still()) == Self.id)
        #expect(LivePhoto.identifier(movie: ByteReader(try Self.movie())) == Self.id)
        #expect(LivePhoto.identifier(still: try Fixture.bytes("photo.jpg")) == nil)
    }

    static func run(_ motion: MediaOptions.Motion, still: [UInt8], movie: [UInt8]) async throws -> (events: [BatchItem], dir: String) {
        let dir = try Fixture.scratch()
        let s = try Fixture.write(still, "IMG_0001.JPG", in: dir), m = try Fixture.write(movie, "IMG_0001.MOV", in: dir)
        var options = BatchOptions(outputDirectory: dir + "/out", timestamp: 0)
        options.media.motion = motion
        options.jobs = 1
        var items: [BatchItem] = []
        _ = await BatchPreparer(options).run(.list([s, m])) { e in if case .item(let i) = e { items.append(i) } }
        return (items, dir)
    }

    @Test func byDefaultTheStillGoesAndTheMovieIsSkipped() async throws {
        let (items, dir) = try await Self.run(.still, still: try Self.still(), movie: try Self.movie())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #require(items.count == 2)
        #expect(items[0].item.kind == .image && items[0].item.error == nil)
        #expect(items[0].item.reasons.last?.hasPrefix("Live Photo: its 1.0 s of video") == true, "\(items[0].item.reasons)")
        #expect(items[1].item.skipped && items[1].item.output == nil && items[1].reason.contains("not sent (--motion video sends it)"))
    }

    @Test func withMotionVideoTheMovieGoesTheStillItsPreview() async throws {
        let (items, dir) = try await Self.run(.video, still: try Self.still(), movie: try Self.movie())
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #require(items.count == 2)
        let video = items[0].item
        let out = try #require(video.output, "\(video.error?.description ?? "")")
        #expect(video.kind == .video && video.input.hasSuffix("IMG_0001.JPG") && video.durationSeconds == 1)
        let bytes = try FileBytes.read(out)
        for secret in NothingPrivateInMediaTests.secrets where secret != "Exif" {
            #expect(!bytes.contains(sequence: Array(secret.utf8)), "the video still carries \(secret)")
        }
        guard case .video(_, let preview, _)? = video.content else { Issue.record("not a video message"); return }
        #expect(preview == video.preview)
        #expect(items[1].item.skipped && items[1].reason.contains("sent as its video message"))
    }

    /// `check` judges the pair as `prepare` sends it.
    @Test func checkSaysWhatPrepareDoes() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try Fixture.write(try Self.still(), "IMG_0001.JPG", in: dir), m = try Fixture.write(try Self.movie(), "IMG_0001.MOV", in: dir)
        var check = SendCheck()
        check.livePhotos = LivePhoto.pairs([s, m])
        #expect(check.livePhotos == [s: m])
        #expect(check.check(path: s).reasons.last?.hasSuffix("not sent (--motion video sends it)") == true)
        #expect(check.check(path: m).reasons.first?.hasPrefix("the video of the Live Photo") == true)
        check.media.motion = .video
        let still = check.check(path: s)
        #expect(still.input == s && still.kind == .video && still.reasons.first?.hasPrefix("Live Photo: its video") == true)
    }

    /// Two files of one name whose identifiers differ are no pair: each goes as what it is.
    @Test func differentIdentifiersAreNoPair() async throws {
        let (items, dir) = try await Self.run(.video, still: try Self.still(), movie: try Self.movie(id: "00000000-0000-0000-0000-000000000000"))
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(items.map(\.item.kind) == [.image, .video] && items.allSatisfy { !$0.item.skipped })
    }
}

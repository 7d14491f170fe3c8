import Foundation
import Testing
@testable import MediaPrep

/// Motion photos: Google's (an MP4 after the JPEG's EOI, its XMP saying so), Samsung's (after
/// "MotionPhoto_Data" in the JPEG's trailer, or a HEIC's `mpvd` box). By default the still goes and
/// `check` says what was left out; `--motion video` sends the video, stripped like every video, the
/// still its preview. Built here from the fixtures: the video is private-android.mp4 (GPS, a phone).
@Suite struct MotionPhotoTests {
    static func motionPhotos() throws -> [(String, [UInt8])] {
        let video = try Fixture.bytes("private-android.mp4")
        let photo = try Fixture.bytes("small.jpg")
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description GCamera:MotionPhoto=\"1\"/></x:xmpmeta>".utf8)
        let google = [0xFF, 0xD8, 0xFF, 0xE1] + Array(Bytes.be32(xmp.count + 2).suffix(2)) + xmp + photo.dropFirst(2) + video
        let samsung = photo + [0, 0] + Array("MotionPhoto_Data".utf8) + video + Array("SEFH".utf8) + [UInt8](repeating: 0, count: 20) + Array("SEFT".utf8)
        let heic = try Fixture.bytes("orient-gps.heic") + HEIFBuild.box("mpvd", video)
        return [("google.jpg", google), ("samsung.jpg", samsung), ("samsung.heic", heic)]
    }

    @Test func theStillGoesAndCheckSaysWhatWasLeftOut() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, bytes) in try Self.motionPhotos() {
            let path = try Fixture.write(bytes, name, in: dir)
            let source = try MediaProbe.source(path: path, depth: .preparing)
            let motion = try #require(source.motionVideo, "\(name)")
            #expect(motion.seconds.map { abs($0 - 1) < 0.2 } == true, "\(name)")
            #expect(SendCheck().check(path: path).reasons.last == "motion photo: 1.0 s of video not sent (--motion video sends it)", "\(name)")
            let item = AttachmentPreparer(outputDirectory: dir + "/still-" + name, timestamp: 0).prepare(path: path)
            #expect(item.kind == .image && item.error == nil, "\(name)")
            let out = try FileBytes.read(try #require(item.output))
            for secret in NothingPrivateInMediaTests.secrets where secret != "Exif" {
                #expect(!out.contains(sequence: Array(secret.utf8)), "\(name) still carries \(secret)")
            }
        }
        // A JPEG with bytes after EOI that are no movie is no motion photo.
        let junk = try Fixture.bytes("small.jpg") + Array("ftyp not a movie at all".utf8)
        #expect(MotionPhoto.video(in: junk, jpegEnd: try JPEGSource(junk, isWhole: true).tail?.end) == nil)
    }

    @Test func withMotionVideoTheVideoGoesStrippedTheStillItsPreview() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, bytes) in try Self.motionPhotos() {
            let path = try Fixture.write(bytes, name, in: dir)
            var preparer = AttachmentPreparer(outputDirectory: dir + "/video-" + name, timestamp: 0)
            preparer.media.motion = .video
            let item = preparer.prepare(path: path)
            let out = try #require(item.output, "\(name): \(item.error?.description ?? "")")
            #expect(item.kind == .video && item.input == path && item.durationSeconds == 1, "\(name)")
            #expect(item.reasons.first?.hasPrefix("motion photo: 1.0 s of video sent as a video message") == true)
            let sent = try FileBytes.read(out)
            for secret in NothingPrivateInMediaTests.secrets where secret != "Exif" {
                #expect(!sent.contains(sequence: Array(secret.utf8)), "\(name) → video still carries \(secret)")
            }
            // It plays: every packet of the embedded clip's video is there.
            #expect(try Packets.all(out).filter { $0.stream == 0 }.count == Packets.all(Fixture.path("private-android.mp4")).filter { $0.stream == 0 }.count)
            guard case .video(_, let preview, let duration)? = item.content else { Issue.record("\(name): not a video message"); continue }
            #expect(duration == 1 && preview == item.preview && preview.hasPrefix("data:image/jpg;base64,"))
        }
    }
}

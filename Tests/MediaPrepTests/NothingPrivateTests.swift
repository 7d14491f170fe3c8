import Foundation
import Testing
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
        if bytes.starts(with: [0xFF, 0xD8]) { #expect(JPEGMetadata(jpeg: bytes).isEmpty, "\(name): \(JPEGMetadata(jpeg: bytes))") }
    }

    @Test func theFixturesDoCarryMetadata() throws {
        // So the test above tests something: these inputs hold what must go.
        #expect(try Fixture.bytes("photo.jpg").contains(sequence: Array("secret comment".utf8)))
        #expect(try Fixture.bytes("orient-gps.heic").contains(sequence: Array("Test Phone".utf8)))
        #expect(JPEGMetadata(jpeg: try Fixture.bytes("photo.jpg")).gps)
    }
}

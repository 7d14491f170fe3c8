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

    @Test func theFixturesDoCarryMetadata() throws {
        // So the test above tests something: these inputs hold what must go.
        #expect(try Fixture.bytes("photo.jpg").contains(sequence: Array("secret comment".utf8)))
        #expect(try Fixture.bytes("orient-gps.heic").contains(sequence: Array("Test Phone".utf8)))
        #expect(JPEGMetadata(jpeg: try Fixture.bytes("photo.jpg")).gps)
    }
}

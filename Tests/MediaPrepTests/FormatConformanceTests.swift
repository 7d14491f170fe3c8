import Foundation
import Testing
@testable import MediaPrep

/// Every format the registry recognises, held to the same promise: a sample naming its sender is
/// recognised as that format, `check` says what goes, and what `prepare` sends holds none of it. A
/// format is registered with a sample here, or an exemption that says why and which suite holds it.
@Suite struct FormatConformanceTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        var format: MediaFormat
        var name: String
        var bytes: @Sendable () throws -> [UInt8]
        var testDescription: String { "\(format.rawValue): \(name)" }
    }

    /// What a sender's file says about them in these samples.
    static let markers = ["Jane Sender", "Rue de Rivoli", "secret comment", "TestCam", "Test Phone", "Pixel 8", "+48.8583", "Acme", "SN-4417", "C:\\Users"]

    static func fixture(_ format: MediaFormat, _ name: String) -> Sample { Sample(format: format, name: name) { try Fixture.bytes(name) } }

    /// A PNG with an author in a tEXt chunk after its header.
    static func png() throws -> [UInt8] {
        let png = try Fixture.bytes("rgb.png")
        let body = Array("tEXtAuthor\0Jane Sender".utf8)
        let chunk = Bytes.be32(body.count - 4) + body + Bytes.be32(Int(ZipBuild.crc32(body)))
        return Array(png[..<33]) + chunk + Array(png[33...])
    }

    static let samples: [Sample] = [
        fixture(.jpeg, "photo.jpg"), Sample(format: .png, name: "author.png", bytes: png), fixture(.gif, "private-long.gif"),
        fixture(.heic, "private-long.heic"), fixture(.avif, "private-long.avif"), fixture(.jxl, "private-long.jxl"), fixture(.tiff, "private-long.tif"),
        fixture(.mp4, "private-android.mp4"), fixture(.mov, "private-iphone.mov"), fixture(.m4a, "private-long.m4a"),
        fixture(.matroska, "private-tagged.mkv"), fixture(.mp3, "private-tagged.mp3"), fixture(.flac, "private-tagged.flac"),
        fixture(.ogg, "private-tagged.opus.ogg"), fixture(.wav, "private-tagged.wav"), fixture(.wavpack, "tagged.wv"),
        Sample(format: .psd, name: "tagged.psd") { PhotoshopDocumentTests.psd() },
        Sample(format: .avi, name: "tagged.avi") { AVITests.avi() },
        Sample(format: .pdf, name: "contract.pdf") { DocumentTests.pdf() },
        Sample(format: .zip, name: "holiday.zip") { ZipBuild.zip([.init(name: "IMG_0001.jpg", data: try Fixture.bytes("photo.jpg"))]) },
        Sample(format: .officeDocument, name: "report.docx") { DocumentTests.docx() },
        Sample(format: .openDocument, name: "letter.odt") { DocumentTests.odt() },
        Sample(format: .epub, name: "book.epub") { DocumentTests.epub() },
        Sample(format: .tar, name: "holiday.tar") { DocumentTests.tar() },
        Sample(format: .tarGzip, name: "holiday.tar.gz") { try Gzip.compress(DocumentTests.tar()) },
        Sample(format: .html, name: "page.html") { DocumentTests.page },
    ]

    /// Formats without a sample here, and where they are held to the promise instead.
    static let exempt: [MediaFormat: String] = [
        .bmp: "a bitmap has no metadata block; its pixels are re-encoded (PrepareImageTests)",
        .qoi: "its 14-byte header holds its size alone; its pixels are re-encoded (QOITests)",
        .webp: "built in NothingPrivateTests.aWebPSentAsAFileLosesItsExifAndXMP",
        .jp2: "decoded and re-encoded, nothing of the file is sent (FFmpegImageTests)",
        .cameraRaw: "demosaiced and re-encoded by LibRaw, or refused (TIFFTests)",
        .webm: "the Matroska rewrite (private-tagged.mkv above)",
        .xcf: "built in GIMPDocumentTests", .psp: "built in PaintShopProTests", .exr: "built in WorkingImageTests",
        .dpx: "built in WorkingImageTests", .fits: "built in WorkingImageTests", .svg: "built in SVGDocumentTests",
        .svgz: "built in LeakingContainersTests", .dicom: "built in DICOMTests",
        .aiff: "built in AppleAudioTests", .caf: "built in AppleAudioTests", .ape: "built in LosslessAudioTests",
        .tta: "built in LosslessAudioTests", .ac3: "built in FilmSoundTests", .eac3: "built in FilmSoundTests",
        .dts: "built in FilmSoundTests", .truehd: "built in FilmSoundTests", .aac: "ADTS has no tag of its own; an ID3 in front makes it an MP3 here",
        .amr: "AMR holds no tags; a voice note is transcoded (AMRTests)",
        .mpegts: "always transcoded (TransportStreamTests)", .mpegps: "always transcoded (CamcorderAndBroadcastContainerTests)",
        .flv: "always transcoded (CamcorderAndBroadcastContainerTests)", .asf: "always transcoded (CamcorderAndBroadcastContainerTests)",
        .dv: "always transcoded (CamcorderAndBroadcastContainerTests)", .realMedia: "always transcoded (CamcorderAndBroadcastContainerTests)",
        .mxf: "always transcoded (CamcorderAndBroadcastContainerTests)",
    ]

    /// The bytes as a reader would see them: a gzip inflated, a ZIP's members each inflated.
    static func readable(_ d: [UInt8]) throws -> [[UInt8]] {
        if Gzip.isGzip(d) { return [try Gzip.inflate(d, limit: 1 << 26)] }
        if FormatSniffer.sniff(d) == .zip { return [d] + Array(try DocumentTests.members(d).values) }
        return [d]
    }

    @Test func everyRegisteredFormatHasASampleOrSaysWhereItIsHeld() {
        let registered = Set(FormatRegistry.entries.flatMap(\.formats))
        let covered = Set(Self.samples.map(\.format)).union(Self.exempt.keys)
        #expect(registered.subtracting(covered).isEmpty, "no sample: \(registered.subtracting(covered).map(\.rawValue).sorted())")
        #expect(covered.subtracting(registered).isEmpty, "not registered: \(covered.subtracting(registered).map(\.rawValue).sorted())")
    }

    @Test(arguments: samples) func itsSenderDoesNotLeave(_ sample: Sample) throws {
        let bytes = try sample.bytes()
        #expect(FormatSniffer.sniff(bytes) == sample.format || [.zip].contains(FormatSniffer.sniff(bytes)), "recognised as \(FormatSniffer.sniff(bytes))")
        let said = try Self.readable(bytes)
        #expect(said.contains { d in Self.markers.contains { Bytes.contains(d, $0) } || PictureMetadata(jpeg: d).gps || Bytes.contains(d, "Exif") }, "the sample names no one")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(bytes, sample.name, in: dir)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        let out = try FileBytes.read(try #require(item.output, "\(String(describing: item.error))"))
        for part in try Self.readable(out) {
            for marker in Self.markers { #expect(!Bytes.contains(part, marker), "\(marker) left") }
            #expect(!PictureMetadata(jpeg: part).gps)
        }
        let verdict = SendCheck().check(path: path)
        #expect(verdict.verdict != .cannotSend)
        // What `check` says goes is what `prepare` did: a file sent as it came would still name them.
        #expect(item.route != .original, "sent as it came")
    }
}

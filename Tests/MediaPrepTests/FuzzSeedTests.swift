import Foundation
import Testing
@testable import MediaPrep

/// Every registered format has a fuzz seed: a small file of it that the sniff and strip fuzz targets
/// start from (libFuzzer mutates from there, so a format with no seed is one the fuzzer rarely
/// reaches). The seeds are the conformance samples, which carry a sender's metadata, and for the
/// formats held elsewhere the same suites' builders; `scripts/qa/fuzz.sh` writes them by running this
/// suite with `MEDIAPREP_FUZZ_SEEDS` set to its seed folder.
@Suite struct FuzzSeedTests {
    static func fixture(_ name: String) -> @Sendable () throws -> [UInt8] { { try Fixture.bytes(name) } }

    /// Seeds for the formats the conformance suite exempts (its samples give the rest).
    static let exempt: [MediaFormat: @Sendable () throws -> [UInt8]] = [
        .bmp: fixture("image.bmp"), .webp: fixture("p3.webp"), .jp2: fixture("quadrants.jp2"), .webm: fixture("vp9.webm"),
        .qoi: { QOITests.qoi(width: 2, height: 1, pixels: [[220, 20, 30], [20, 40, 230]]) },
        .cameraRaw: {  // a DNG's sensor data under a CR2's header
            var cr2 = TIFFBuilder.rawDNG(width: 32, height: 24) { x, y in (x * 8, y * 8, 128) }
            cr2.replaceSubrange(8..<12, with: Array("CR".utf8) + [2, 0])
            return cr2
        },
        .xcf: { GIMPDocumentTests.xcf() }, .psp: { PaintShopProTests.psp() },
        .exr: { WorkingImageTests.exr(WorkingImageTests.attribute("owner", "string", Array("Jane Sender".utf8))) },
        .dpx: { WorkingImageTests.dpx() }, .fits: { WorkingImageTests.fits() },
        .svg: { SVGDocumentTests.svg(embedding: try Fixture.bytes("orient-6.jpg")) },
        .svgz: { try Gzip.compress(SVGDocumentTests.svg(embedding: try Fixture.bytes("orient-6.jpg"))) },
        .dicom: { DICOMTests.dicom(explicit: true) },
        .aiff: { AppleAudioTests.aiff }, .caf: { AppleAudioTests.caf },
        .ape: { LosslessAudioTests.ape + [UInt8](repeating: 0, count: 56) },
        .tta: { LosslessAudioTests.tta + [16, 0, 0x44, 0xAC, 0, 0, 0x10, 0, 0, 0] + [UInt8](repeating: 0, count: 46) },
        .ac3: { FilmSoundTests.stream(FilmSoundTests.ac3, size: 128, count: 2) },
        .eac3: { FilmSoundTests.stream(FilmSoundTests.eac3, size: 128, count: 2) },
        .dts: { FilmSoundTests.stream(FilmSoundTests.dts, size: 128, count: 2) },
        .truehd: { FilmSoundTests.truehd }, .aac: { SniffTests.adts }, .amr: { AMRTests.memo },
        .mpegts: fixture("camcorder.ts"), .mpegps: fixture("program.mpg"), .flv: fixture("flash.flv"), .asf: fixture("movie.wmv"),
        .dv: { CamcorderAndBroadcastContainerTests.dv }, .realMedia: { CamcorderAndBroadcastContainerTests.realMedia },
        .mxf: { CamcorderAndBroadcastContainerTests.mxf + [UInt8](repeating: 0, count: 48) },
    ]

    /// photo.jpg's Exif (TestCam, GPS) on orient-6.jpg's 8×8 pixels: 0.8 KB where photo.jpg is 437.
    static func taggedJPEG() throws -> [UInt8] {
        let photo = try Fixture.bytes("photo.jpg"), small = try Fixture.bytes("orient-6.jpg")
        let header = JPEGMarkers(photo).metadataSegments(in: photo).flatMap { Array(photo[($0.payload.lowerBound - 4)..<$0.payload.upperBound]) }
        return [0xFF, 0xD8] + header + small.dropFirst(2)
    }

    /// Smaller seeds where the conformance sample holds photo.jpg (over libFuzzer's 256 KB inputs).
    static let smaller: [MediaFormat: @Sendable () throws -> [UInt8]] = [
        .jpeg: taggedJPEG, .pdf: { DocumentTests.pdf(photo: try taggedJPEG()) },
        .zip: { ZipBuild.zip([.init(name: "IMG_0001.jpg", data: try taggedJPEG())]) },
        .officeDocument: { DocumentTests.docx(photo: try taggedJPEG()) },
        .tar: { DocumentTests.tar(photo: try taggedJPEG()) }, .tarGzip: { try Gzip.compress(DocumentTests.tar(photo: try taggedJPEG())) },
    ]

    /// One seed per registered format.
    static var seeds: [(format: MediaFormat, bytes: @Sendable () throws -> [UInt8])] {
        let samples = FormatConformanceTests.samples.map { ($0.format, smaller[$0.format] ?? $0.bytes) }
        return samples + exempt.map { ($0.key, $0.value) }.sorted { $0.0.rawValue < $1.0.rawValue }
    }

    @Test func everyRegisteredFormatHasASeedThatIsRecognisedAsIt() throws {
        let registered = Set(FormatRegistry.entries.flatMap(\.formats))
        var seeded: Set<MediaFormat> = []
        for seed in Self.seeds {
            let bytes = try seed.bytes()
            // A package (Office, OpenDocument, EPUB) is a ZIP to the sniffer; its own reader tells it.
            let told = FormatSniffer.sniff(bytes)
            #expect(told == seed.format || told == .zip, "\(seed.format.rawValue) seed recognised as \(told.rawValue)")
            #expect(bytes.count < 200_000, "\(seed.format.rawValue) seed is \(bytes.count) bytes: libFuzzer reads only 262,144")
            seeded.insert(seed.format)
        }
        #expect(PictureMetadata(jpeg: try Self.taggedJPEG()).gps)
        #expect(registered.subtracting(seeded).isEmpty, "no seed: \(registered.subtracting(seeded).map(\.rawValue).sorted())")
        // Written for scripts/qa/fuzz.sh (sniff and strip targets).
        if let dir = ProcessInfo.processInfo.environment["MEDIAPREP_FUZZ_SEEDS"] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (i, seed) in Self.seeds.enumerated() {
                _ = try Fixture.write(try seed.bytes(), "registry-\(i)-\(seed.format.rawValue)", in: dir)
            }
        }
    }
}

import Foundation
import Testing
@_spi(Fuzz) @testable import MediaPrep
import UploadPlanner

/// Every input a fuzzer crashed on, minimised and kept in testdata/fuzz/ (named TARGET-HASH),
/// replayed through the same entry point: each must now return normally.
@Suite struct FuzzRegressionTests {
    @Test func everyFindingReplaysCleanly() throws {
        let dir = Fixture.dir + "/fuzz"
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(!names.isEmpty)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name)))
            switch name.split(separator: "-").first.map(String.init) ?? "" {
            case "sniff": FuzzEntryPoints.sniff(bytes)
            case "exif": FuzzEntryPoints.exif(bytes)
            case "jpeg":
                FuzzEntryPoints.jpeg(bytes)
                #expect(FuzzEntryPoints.jpegMeasureAgrees(bytes), "\(name)")
            case "png":
                FuzzEntryPoints.png(bytes)
                #expect(FuzzEntryPoints.pngInflateAgrees(bytes), "\(name)")
            case "container": FuzzEntryPoints.container(bytes)
            case "plan": FuzzEntryPoints.plan(bytes)
            case "heif":
                FuzzEntryPoints.heif(bytes)
                #expect(FuzzEntryPoints.heifHeaderAgrees(bytes), "\(name)")
            case "jxl":
                FuzzEntryPoints.jxl(bytes)
                #expect(FuzzEntryPoints.jxlHeaderAgrees(bytes), "\(name)")
            case "webp": FuzzEntryPoints.webp(bytes)
            case "strip": FuzzEntryPoints.strip(bytes)
            case "tiff": FuzzEntryPoints.tiff(bytes)
            default: Issue.record("\(name): unknown target")
            }
        }
    }

    @Test func extremePlannerInputsAreAnswersNotTraps() {
        let p = TransferPlanner()
        #expect(p.plan(size: .min, kind: .file, fileName: "x").method == .rejected)
        #expect(p.plan(size: .max, kind: .file, fileName: "x").method == .rejected)
        #expect(p.plan(size: 1000, kind: .voice, fileName: "x", recipients: .max).method != .smpInline)
        #expect(XFTPChunkPlan.recipientKeys(recipients: .max) == 1 << 40)
        #expect(FileNaming.stamp(.min) == "00000101_000000")
        #expect(FileNaming.stamp(.max) == "99991231_235959")
    }

    @Test func pngDimensionsOverTheSpecAreNotAHeader() {
        var ihdr: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        ihdr += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 8, 6, 0, 0, 0]
        #expect(PNGHeader.size(ihdr) == nil)
    }
}

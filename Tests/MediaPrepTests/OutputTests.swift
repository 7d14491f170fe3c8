import Foundation
import Testing
@testable import MediaPrep

@Suite struct OutputTests {
    @Test func namesAreMadeUniqueNeverOverwritten() throws {
        let dir = try Fixture.scratch()
        let a = try OutputWriter.writeUnique([1, 2, 3], directory: dir, base: "IMG_20261122_120000", ext: "jpg")
        let b = try OutputWriter.writeUnique([4, 5], directory: dir, base: "IMG_20261122_120000", ext: "jpg")
        #expect(a.hasSuffix("/IMG_20261122_120000.jpg"))
        #expect(b.hasSuffix("/IMG_20261122_120000_1.jpg"))
        #expect(try FileBytes.read(a) == [1, 2, 3])
        #expect(try FileBytes.read(b) == [4, 5])
        // No temporary files are left behind.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        #expect(names.sorted() == ["IMG_20261122_120000.jpg", "IMG_20261122_120000_1.jpg"])
    }

    @Test func replacingWriteRefusesTheInput() throws {
        let dir = try Fixture.scratch()
        let input = dir + "/in.jpg"
        try Data([9, 9]).write(to: URL(fileURLWithPath: input))
        #expect(throws: MediaPrepError.self) { try OutputWriter.writeReplacing([1], to: input, protecting: input) }
        #expect(try FileBytes.read(input) == [9, 9])
        try OutputWriter.writeReplacing([7], to: dir + "/out.jpg", protecting: input)
        #expect(try FileBytes.read(dir + "/out.jpg") == [7])
    }

    @Test func attachmentPreparerNamesLikeSimpleX() throws {
        let dir = try Fixture.scratch()
        let prep = AttachmentPreparer(outputDirectory: dir, timestamp: 1_795_348_800)
        let first = prep.prepare(path: Fixture.path("photo.jpg"))
        let second = prep.prepare(path: Fixture.path("small.jpg"))
        #expect(first.output == dir + "/IMG_20261122_120000.jpg")
        #expect(second.output == dir + "/IMG_20261122_120000_1.jpg")
        #expect(first.kind == .image && first.error == nil)
        #expect((first.bytes ?? .max) <= 261_120)
    }

    @Test func badInputWritesNothingAndTheBatchGoesOn() throws {
        let dir = try Fixture.scratch()
        let src = try Fixture.bytes("photo.jpg")
        let cut = dir + "/cut.jpg"
        try Data(src.prefix(src.count / 3)).write(to: URL(fileURLWithPath: cut))
        let outDir = dir + "/out"
        let prep = AttachmentPreparer(outputDirectory: outDir, timestamp: 0)
        let bad = prep.prepare(path: cut)
        let good = prep.prepare(path: Fixture.path("small.jpg"))
        #expect(bad.error?.code == .truncated)
        #expect(bad.output == nil)
        #expect(good.error == nil && good.output != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outDir).count == 1)
        // The input was not touched.
        #expect(try FileBytes.read(cut).count == src.count / 3)
    }
}

/// Names are found in constant time per file, without a cap: `_N` continues from where this
/// process last found one free.
@Suite struct NamingTests {
    @Test func namesContinueWithoutACap() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for n in [0] + Array(1...10_000) {
            let name = n == 0 ? "IMG_x.jpg" : "IMG_x_\(n).jpg"
            #expect(FileManager.default.createFile(atPath: dir + "/" + name, contents: nil))
        }
        // Past the old cap of 10,000 names a base.
        let first = try OutputWriter.writeUnique([1], directory: dir, base: "IMG_x", ext: "jpg")
        #expect(first.hasSuffix("/IMG_x_10001.jpg"))
        for i in 2...200 {
            let next = try OutputWriter.writeUnique([1], directory: dir, base: "IMG_x", ext: "jpg")
            #expect(next.hasSuffix("/IMG_x_\(10_000 + i).jpg"))
        }
    }
}

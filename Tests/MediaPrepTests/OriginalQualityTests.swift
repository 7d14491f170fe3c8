import Foundation
import Testing
@testable import MediaPrep
import UploadPlanner

/// `--quality original`: a photo with its own pixels. A JPEG or PNG is an image message whose file is
/// the photo itself, metadata gone but its colour profile, turned upright in the DCT domain; HEIC,
/// AVIF and JPEG XL go as files of their own bytes, stripped in place.
@Suite struct OriginalQualityTests {
    static func preparer(_ dir: String) -> AttachmentPreparer {
        var p = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        p.media.apply(.original, to: &p.profile)
        return p
    }

    /// The largest difference between two pictures of one size, per sample.
    static func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        guard a.width == b.width, a.height == b.height else { return .max }
        var worst = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let (p, q) = (a.rgba(x: x, y: y), b.rgba(x: x, y: y))
                worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            }
        }
        return worst
    }

    /// Orientations 1–8, whole blocks: the output decodes to the input's pixels shown upright (the
    /// same coefficients; only chroma upsampling's rounding may differ by a level), no Exif left.
    @Test(arguments: 1...8)
    func aJPEGIsTurnedUprightWithoutReencoding(_ n: Int) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = Fixture.path("orient-\(n).jpg")
        let item = Self.preparer(dir).prepare(path: path)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .image && item.route == (n == 1 ? .untouched : .rotated) || (n == 1 && item.route == .stripped))
        let bytes = try FileBytes.read(out)
        let source = try JPEGSource(bytes, isWhole: true)
        #expect(source.orientation == .up && source.metadata.removals.isEmpty)
        let input = try JPEGDecoder.decode(try Fixture.bytes("orient-\(n).jpg"), options: DecodeOptions())
        let upright = Orienter.apply(input.orientation, to: input.pixels)
        let output = try JPEGDecoder.decode(bytes, options: DecodeOptions())
        #expect(Self.maxDifference(upright, output.pixels) <= 2, "orientation \(n)")
        Quadrants.check(output.pixels, tolerance: 8)
    }

    /// Not whole blocks: a 70×50 photo stored turned (Exif 6). The blocks a turn cannot move are
    /// trimmed (never re-encoded): what is left is the upright picture's pixels.
    @Test func aTurnThatCannotBePerfectIsTrimmedNotReencoded() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pixels = [UInt8]()
        for y in 0..<50 { for x in 0..<70 { pixels += [UInt8(x * 3), UInt8(y * 5), UInt8((x + y) % 256)] } }
        let jpeg = try JPEGEncoder().encode(PixelBuffer(width: 70, height: 50, layout: .rgb, storage: pixels), quality: 95)
        let exif = Array("Exif\0\0MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        let tagged = [0xFF, 0xD8, 0xFF, 0xE1] + Array(Bytes.be32(exif.count + 2).suffix(2)) + exif + jpeg.dropFirst(2)
        let path = try Fixture.write(tagged, "turned.jpg", in: dir)
        let item = Self.preparer(dir + "/out").prepare(path: path)
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .rotated && item.reasons.contains { $0.contains("partial edge blocks trimmed") })
        let output = try JPEGDecoder.decode(try FileBytes.read(out), options: DecodeOptions())
        let input = try JPEGDecoder.decode(tagged, options: DecodeOptions())
        let upright = Orienter.apply(.right, to: input.pixels)  // 50×70
        #expect(output.pixels.width <= 50 && output.pixels.width > 50 - 16 && output.pixels.height == 70)
        // The trimmed picture is the upright one less its trimmed columns (on the left after a turn right).
        let cut = upright.width - output.pixels.width
        var worst = 0
        for y in 0..<output.pixels.height {
            for x in 0..<output.pixels.width {
                let (p, q) = (output.pixels.rgba(x: x, y: y), upright.rgba(x: x + cut, y: y))
                worst = max(worst, abs(Int(p.r) - Int(q.r)), abs(Int(p.g) - Int(q.g)), abs(Int(p.b) - Int(q.b)))
            }
        }
        #expect(worst <= 3, "\(worst)")
    }

    /// Over the standard budget, in Display P3: the photo goes whole as an image message, its GPS and
    /// comment gone, its colour profile kept; the message is the app's own (an image with its preview).
    @Test func aLargePhotoGoesWholeAsAnImageWithItsProfile() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["photo.jpg", "p3-photo.jpg"] {
            let item = Self.preparer(dir).prepare(path: Fixture.path(name))
            let out = try #require(item.output, "\(item.error?.description ?? "")")
            let bytes = try FileBytes.read(out)
            let source = try JPEGSource(bytes, isWhole: true)
            #expect(item.kind == .image && item.route == .stripped)
            #expect(!source.metadata.exif && !source.metadata.gps && !source.metadata.comment)
            #expect((source.iccProfile != nil) == (name == "p3-photo.jpg"))
            // The same entropy-coded data: decoded, the same pixels.
            let a = try JPEGDecoder.decode(bytes, options: DecodeOptions()), b = try JPEGDecoder.decode(try Fixture.bytes(name), options: DecodeOptions())
            #expect(a.pixels == b.pixels)
            guard case .image(_, let preview)? = item.content else { Issue.record("not an image message"); continue }
            #expect(preview.hasPrefix("data:image/jpg;base64,") && preview.count <= SimplexLimits.simplex.maxPreviewLength)
        }
    }

    /// A PNG (sticker.png: 590 KB, transparent) goes whole as an image message, the same pixels.
    @Test func aPNGGoesWholeWithItsOwnPixels() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = Self.preparer(dir).prepare(path: Fixture.path("sticker.png"))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .image && item.format == .png && [.untouched, .stripped].contains(item.route))
        let a = try ImageLoader.load(path: out), b = try ImageLoader.load(path: Fixture.path("sticker.png"))
        #expect(a.pixels == b.pixels)
    }

    /// HEIC, AVIF and JPEG XL: files of their own bytes, their metadata stripped in place, the same
    /// pixels decoded; a HEIC's Exif orientation kept so a viewer still turns it.
    @Test(arguments: ["orient-gps.heic", "quadrants.avif", "quadrants.jxl", "private-long.heic"])
    func otherFormatsGoAsFilesOfTheirOwnBytes(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = Self.preparer(dir).prepare(path: Fixture.path(name))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.kind == .file && out.hasSuffix("/" + name))
        let bytes = try FileBytes.read(out)
        for secret in ["Test Phone", "iPhone", "Jane"] { #expect(!bytes.contains(sequence: Array(secret.utf8)), "\(name): \(secret)") }
        let format = FormatSniffer.sniff(bytes)
        let a = try ImageLoader.load(data: bytes, path: nil), b = try ImageLoader.load(data: try Fixture.bytes(name), path: nil)
        #expect(a.pixels == b.pixels && a.orientation == b.orientation, "\(name) (\(format))")
        // Nothing left that names a place, a device, a person or a time (a HEIC keeps an Exif of its orientation alone).
        let left = MetadataRewrite.picture(bytes, jpeg: nil, orientation: a.orientation)?.found ?? []
        #expect(left.isDisjoint(with: [.location, .device, .author, .dates, .comment]), "\(name): \(left.removal)")  // an emptied XMP packet stays
    }
}

import CFFmpeg
import Foundation
import Testing
@testable import MediaPrep

/// HDR clips (HLG as iPhones record, PQ/HDR10) become SDR BT.709 wherever pixels leave them.
@Suite struct HDRTests {
    static let clips = ["hdr-hlg.mov", "hdr-pq.mp4"]

    func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        var sum = 0
        for y in 0..<min(a.height, b.height) {
            for x in 0..<min(a.width, b.width) {
                let p = a.rgba(x: x, y: y), q = b.rgba(x: x, y: y)
                sum += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
            }
        }
        return Double(sum) / Double(3 * min(a.width, b.width) * min(a.height, b.height))
    }

    @Test(arguments: clips) func thumbnailsLookLikeTheSDRScene(_ name: String) throws {
        let scene = try PNGDecoder.decode(try Fixture.bytes("hdr-scene.png")).pixels
        let thumb = try VideoThumbnailer(maxSide: scene.width).thumbnail(path: Fixture.path(name))
        #expect(thumb.mappedFromHDR)
        #expect(thumb.pixels.width == scene.width && thumb.pixels.height == scene.height)
        // The same frame's numbers read as if they were SDR: what previews and thumbnails were before.
        let input = try MediaInput(path: Fixture.path(name))
        let stream = try #require(input.bestStream(AVMEDIA_TYPE_VIDEO))
        let decoder = try FrameDecoder(input: input, stream: stream)
        let frame = try #require(try decoder.next())
        let raw = try FrameConverter.convert(frame, layout: .rgb, width: scene.width, height: scene.height)
        let mapped = meanDifference(thumb.pixels, scene), unmapped = meanDifference(raw, scene)
        #expect(mapped < 35, "\(name): \(mapped) levels from the scene")
        #expect(unmapped > 2 * mapped, "\(name): mapped \(mapped), read as SDR \(unmapped)")
    }

    @Test(arguments: clips) func transcodesAreSDRAndTaggedBT709(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir, timestamp: 0)
        preparer.media.videoMaxBytes = 10_000  // under the clip's own size: re-encoded
        let item = preparer.prepare(path: Fixture.path(name))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .encoded)
        let input = try MediaInput(path: out)
        let stream = try #require(input.bestStream(AVMEDIA_TYPE_VIDEO))
        let par = stream.pointee.codecpar.pointee
        #expect(par.color_primaries == AVCOL_PRI_BT709 && par.color_trc == AVCOL_TRC_BT709 && par.color_space == AVCOL_SPC_BT709)
        let decoder = try FrameDecoder(input: input, stream: stream)
        let frame = try #require(try decoder.next())
        #expect(frame.pointee.format == AV_PIX_FMT_YUV420P.rawValue)  // 8-bit 4:2:0, dithered from 10 bits
    }

    @Test(arguments: clips) func sentAsTheyAreTheyKeepTheirOwnTags(_ name: String) throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path(name))
        let out = try #require(item.output)
        #expect(item.route == .stripped)  // the encoder tag goes; packets and colour tags stay
        #expect(try Packets.all(out) == Packets.all(Fixture.path(name)))
        for path in [out, Fixture.path(name)] {
            let input = try MediaInput(path: path)
            let par = try #require(input.bestStream(AVMEDIA_TYPE_VIDEO)).pointee.codecpar.pointee
            #expect(par.color_primaries == AVCOL_PRI_BT2020 && par.color_space == AVCOL_SPC_BT2020_NCL)
            #expect(par.color_trc == (name.contains("hlg") ? AVCOL_TRC_ARIB_STD_B67 : AVCOL_TRC_SMPTE2084))
        }
        #expect(item.preview?.hasPrefix("data:image/jpg;base64,") == true)
    }
}

/// VP8/VP9 with an alpha channel (WebM's `alpha_mode`): shown on white like a MOV with alpha, not
/// with the colour hidden under its transparent area.
@Suite struct VideoAlphaTests {
    @Test func transparentAreaComesOutWhite() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: Fixture.path("vp9-alpha.webm"))
        let out = try #require(item.output, "\(item.error?.description ?? "")")
        #expect(item.route == .encoded)
        let thumb = try VideoThumbnailer(maxSide: 96).thumbnail(path: out)
        let corner = thumb.pixels.rgba(x: 4, y: 4), centre = thumb.pixels.rgba(x: 48, y: 32)
        #expect(corner.r > 235 && corner.g > 235 && corner.b > 235, "corner \(corner)")  // was the hidden blue
        #expect(centre.b > 200 && centre.r < 40, "centre \(centre)")
    }
}

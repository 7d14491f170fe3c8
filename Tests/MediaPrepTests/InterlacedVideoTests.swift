import CFFmpeg
import Foundation
import Testing
@testable import MediaPrep

/// Interlaced video (a DVD's VOB, a camcorder's 1080i AVCHD) holds two fields 1/50 s apart in each
/// frame: shown or encoded as one picture, every moving edge is a comb. A transcode now deinterlaces
/// (bwdif) and a thumbnail is taken from one field; before, both kept the comb.
@Suite struct InterlacedVideoTests {
    /// How much each row differs from the mean of its neighbours (green channel): a comb scores high.
    static func comb(_ p: PixelBuffer) -> Double {
        let row = p.width * p.layout.channels
        var sum = 0.0, n = 0
        for y in 1..<(p.height - 1) {
            for x in stride(from: 1, to: row, by: p.layout.channels) {
                let above = Double(p.bytes[(y - 1) * row + x]), below = Double(p.bytes[(y + 1) * row + x])
                sum += abs(Double(p.bytes[y * row + x]) - (above + below) / 2)
                n += 1
            }
        }
        return sum / Double(max(1, n))
    }

    @Test func anInterlacedDVDIsMadeProgressive() throws {
        let path = Fixture.path("interlaced.mpg")  // a bar moving 8 px a field, four frames, top field first
        // The fixture is combed: its first frame as decoded, both fields together.
        let input = try MediaInput(path: path)
        let decoder = try FrameDecoder(input: input, stream: try #require(input.bestStream(AVMEDIA_TYPE_VIDEO)))
        let frame = try #require(try decoder.next())
        #expect(cff_frame_interlaced(frame) != 0)
        let whole = Self.comb(try FrameConverter.convert(frame, layout: .rgb))
        #expect(whole > 30, "\(whole)")

        let thumbnail = try VideoThumbnailer(maxSide: 64).thumbnail(path: path)
        #expect(thumbnail.pixels.width == 64 && thumbnail.pixels.height == 64)
        #expect(Self.comb(thumbnail.pixels) < whole / 4, "\(Self.comb(thumbnail.pixels)) against \(whole)")

        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: path)
        let out = try #require(item.output, "\(String(describing: item.error))")
        #expect(item.format == .mp4 && item.route == .encoded)
        // Every frame of the transcode, decoded whole (it is progressive: no field is picked).
        let sent = try MediaInput(path: out)
        let frames = try FrameDecoder(input: sent, stream: try #require(sent.bestStream(AVMEDIA_TYPE_VIDEO)))
        var count = 0
        while let f = try frames.next() {
            count += 1
            #expect(cff_frame_interlaced(f) == 0)
            let c = Self.comb(try FrameConverter.convert(f, layout: .rgb))
            #expect(c < whole / 4, "frame \(count): \(c) against \(whole)")
        }
        #expect(count == 4)
        #expect(SendCheck().check(path: path).reasons.contains("interlaced: made progressive (bwdif), one frame per frame"))
    }

    /// Interlaced H.264 in an MP4 played as it was, both fields at once. The probe decodes no frame, so
    /// FFmpeg's field order stays unknown: the SPS in the `avcC` says the stream is coded as fields,
    /// and the video is transcoded (as it is with `--video original`, it goes as it came).
    @Test func interlacedH264InAnMP4IsTranscoded() throws {
        let path = Fixture.path("interlaced.mp4")  // the same bar, x264 with tff
        #expect(try MediaProbe.probe(path: path).interlaced)
        #expect(try MediaProbe.probe(path: Fixture.path("h264.mp4")).interlaced == false)
        #expect(try MediaProbe.probe(path: Fixture.path("h264.mkv")).interlaced == false)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: path)
        #expect(item.route == .encoded, "\(String(describing: item.error))")
        let sent = try MediaInput(path: try #require(item.output))
        let frames = try FrameDecoder(input: sent, stream: try #require(sent.bestStream(AVMEDIA_TYPE_VIDEO)))
        while let f = try frames.next() { #expect(Self.comb(try FrameConverter.convert(f, layout: .rgb)) < 8) }
        var original = AttachmentPreparer(outputDirectory: dir + "/original", timestamp: 0)
        original.media.video = .original
        #expect(original.prepare(path: path).route == .stripped)
    }
}

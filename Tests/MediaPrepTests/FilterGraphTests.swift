import CFFmpeg
import Testing
@testable import MediaPrep

/// Frames pushed into a filter graph go through it at once, not queued until a pull.
struct FilterGraphTests {
    /// Frames whose buffers count their own release: GIFEncoder's palette pass pushes every frame of
    /// an animation before its one pull, and a queued frame is a whole RGBA canvas held (a 160-frame
    /// 1024² WebP peaked at 734 MB; 233 MB once each frame is let go as palettegen has counted it).
    @Test func aPalettePassHoldsNoFrameItHasCounted() throws {
        let util = try FFmpegLibraries.util()
        let (w, h) = (64, 48)
        let graph = try FilterGraph("[in]palettegen=reserve_transparent=1[out]",
                                    inputs: [("in", "video_size=\(w)x\(h):pix_fmt=\(AV_PIX_FMT_RGBA.rawValue):time_base=1/100:pixel_aspect=1/1")])
        let released = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        released.initialize(to: 0)
        defer { released.deallocate() }
        for i in 0..<6 {
            var frame = util.av_frame_alloc()
            defer { util.av_frame_free(&frame) }
            let f = try #require(frame)
            let bytes = w * h * 4
            let data = try #require(util.av_malloc(bytes)?.assumingMemoryBound(to: UInt8.self))
            data.initialize(repeating: UInt8(truncatingIfNeeded: i * 40), count: bytes)
            let buffer = util.av_buffer_create(data, bytes, { opaque, data in
                opaque?.assumingMemoryBound(to: Int.self).pointee += 1
                free(data)  // av_malloc's memory is malloc's on Linux
            }, released, 0)
            f.pointee.buf.0 = buffer
            f.pointee.data.0 = data
            (f.pointee.linesize.0, f.pointee.width, f.pointee.height) = (Int32(w * 4), Int32(w), Int32(h))
            (f.pointee.format, f.pointee.pts) = (AV_PIX_FMT_RGBA.rawValue, Int64(i * 10))
            try graph.push(f)
            #expect(released.pointee == i + 1, "frame \(i) still held by the graph")
        }
        try graph.push(nil)
        var out = util.av_frame_alloc()
        defer { util.av_frame_free(&out) }
        #expect(try graph.pull(into: try #require(out)), "the palette comes out")
    }
}

import CFFmpeg

/// An animation as a GIF with one palette made for all its frames (libavfilter's palettegen, then
/// paletteuse with Sierra-2-4A dithering), each frame's own delay and the loop count kept, and
/// transparency where GIF can hold it (one palette entry, alpha below 128 is transparent). Two
/// passes over the source, so its frames are never all in memory.
enum GIFEncoder {
    struct Output {
        var data: [UInt8]
        var width: Int
        var height: Int
        var frames: Int
        /// 1: every frame; 2: every other one, each kept frame showing for the dropped one's time too.
        var step: Int
        /// The source's frames and how long they play, in milliseconds.
        var sourceFrames: Int
        var durationMs: Int
        /// False when the encode was stopped past `stopAbove` bytes: `data` is empty, the GIF would
        /// have been larger than `size`.
        var complete = true
        /// Where the frames first passed `stopAbove` bytes: the bytes and how many frames were written.
        var passed: (bytes: Int, frames: Int)?
        /// The GIF's bytes, or for a stopped encode, how many it had already passed.
        var size: Int { complete ? data.count : passed?.bytes ?? 0 }

        /// The whole GIF's bytes, or for one that passed `stopAbove`, its frames' bytes then carried on to
        /// every frame; the same figure whether the encode stopped there or not.
        var projectedSize: Int {
            guard let passed else { return size }
            return Int((Double(passed.bytes) * Double(frames) / Double(max(1, passed.frames))).rounded(.up))
        }
    }

    /// - Parameter stopAbove: past this many bytes of frames the encode stops (the caller only needs
    ///   to know it is larger), with the source's frames and duration counted; with `stops` false it
    ///   carries on, and only notes where it passed them (`Output.passed`).
    /// - Parameter kept: where a try that scales keeps its frames at its size for its second pass and
    ///   for the tries after at that size (`ScaledFrames`); nil scales them in each pass.
    static func encode(_ source: AnimationSource, width: Int, height: Int, step: Int = 1, stopAbove: Int? = nil,
                       stops: Bool = true, kept: ScaledFrames.Keeper? = nil) throws -> Output {
        let ff = try FFmpegLibraries.all()
        let scales = width != source.width || height != source.height
        let frames = TryFrames(source: source, width: width, height: height, step: step, ff: ff,
                               keeper: scales ? kept : nil)
        // What the palette filters take: the source's canvases scaled in the graph, or frames already at
        // this size in palettegen's and paletteuse's own BGRA.
        let scale = scales && !frames.scaledAhead ? "scale=\(width):\(height):flags=lanczos," : ""
        let input = frames.scaledAhead
            ? "video_size=\(width)x\(height):pix_fmt=\(AV_PIX_FMT_BGRA.rawValue):time_base=1/100:pixel_aspect=1/1"
            : "video_size=\(source.width)x\(source.height):pix_fmt=\(AV_PIX_FMT_RGBA.rawValue):time_base=1/100:pixel_aspect=1/1"

        // Pass 1: the palette, and every frame's time in centiseconds (strictly increasing: GIF delays are whole).
        let palettes = try FilterGraph("[in]\(scale)palettegen=reserve_transparent=1[out]", inputs: [("in", input)])
        var times: [Int64] = []
        var elapsed = 0
        var seen = try frames.forEach { ms, selected in
            defer { elapsed += ms }
            guard let selected else { return }
            let cs = max(Int64((Double(elapsed) / 10).rounded()), (times.last ?? -1) + 1)
            times.append(cs)
            try selected(cs, palettes)
        }
        try palettes.push(nil)
        let end = max(Int64((Double(elapsed) / 10).rounded()), (times.last ?? 0) + 1)
        guard let paletteFrame = ff.util.av_frame_alloc() else { throw MediaPrepError(.encodeFailed, "out of memory") }
        var pal: UnsafeMutablePointer<AVFrame>? = paletteFrame
        defer { ff.util.av_frame_free(&pal) }
        guard try palettes.pull(into: paletteFrame) else { throw MediaPrepError(.encodeFailed, "no palette came out of the animation") }

        // Pass 2: each frame mapped to the palette, encoded and muxed into memory.
        let paletteInput = "video_size=\(paletteFrame.pointee.width)x\(paletteFrame.pointee.height):pix_fmt=\(paletteFrame.pointee.format):time_base=1/100:pixel_aspect=1/1"
        let mapping = try FilterGraph("[in]\(scale)null[s];[s][pal]paletteuse=dither=sierra2_4a:diff_mode=rectangle[out]",
                                      inputs: [("in", input), ("pal", paletteInput)])
        try mapping.push(paletteFrame, to: 1)
        try mapping.push(nil, to: 1)
        let writer = try GIFWriter(ff, width: width, height: height, plays: source.plays,
                                   finalDelay: Int(end - (times.last ?? 0)))
        guard let out = ff.util.av_frame_alloc() else { throw MediaPrepError(.encodeFailed, "out of memory") }
        var o: UnsafeMutablePointer<AVFrame>? = out
        defer { ff.util.av_frame_free(&o) }
        var index = 0
        var passed: (bytes: Int, frames: Int)? = nil
        let counted = seen
        do {
            seen = try frames.forEach { _, selected in
                // The source cannot grow between passes; a damaged one is cut.
                guard let selected, index < times.count else { return }
                try selected(times[index], mapping)
                index += 1
                while try mapping.pull(into: out) { try writer.write(out) }
                if passed == nil, let stopAbove, writer.frameBytes > stopAbove {
                    passed = (writer.frameBytes, writer.framesWritten)
                    if stops { throw Stopped() }
                }
            }
        } catch is Stopped {
            return Output(data: [], width: width, height: height, frames: times.count, step: step, sourceFrames: counted,
                          durationMs: elapsed, complete: false, passed: passed)
        }
        try mapping.push(nil)
        while try mapping.pull(into: out) { try writer.write(out) }
        return Output(data: try writer.finish(), width: width, height: height, frames: times.count, step: step,
                      sourceFrames: seen, durationMs: elapsed, passed: passed)
    }

    private struct Stopped: Error {}

    /// `pixels` (RGBA) into `graph` as a frame at `pts`; the frame is freed on every path.
    static func push(_ pixels: PixelBuffer, pts: Int64, into graph: FilterGraph, _ ff: FFmpeg) throws {
        var frame = ff.util.av_frame_alloc()
        defer { ff.util.av_frame_free(&frame) }
        guard let f = frame else { throw MediaPrepError(.encodeFailed, "out of memory") }
        (f.pointee.width, f.pointee.height, f.pointee.format, f.pointee.pts) = (Int32(pixels.width), Int32(pixels.height), AV_PIX_FMT_RGBA.rawValue, pts)
        guard ff.util.av_frame_get_buffer(f, 0) >= 0, let base = f.pointee.data.0 else { throw MediaPrepError(.encodeFailed, "out of memory") }
        let stride = Int(f.pointee.linesize.0), row = pixels.width * 4
        pixels.bytes.withUnsafeBufferPointer { src in
            guard let from = src.baseAddress else { return }
            for y in 0..<pixels.height { (base + y * stride).update(from: from + y * row, count: row) }
        }
        try graph.push(f)  // takes the buffers; the emptied frame is freed above
    }
}

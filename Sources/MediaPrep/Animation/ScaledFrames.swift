import CFFmpeg
import Glibc

/// An animation's frames scaled to one try's size, in the BGRA palettegen and paletteuse take, kept by
/// the first pass that scales them for the second pass and for the tries after at that size: a
/// budget tries 320 px at up to seven frame steps, and scaling was a third of its time (a 512² sticker
/// of 90 frames: libswscale 32 % of `perf` samples). The same swscale call as inside the palette
/// graphs (Lanczos, RGBA to BGRA at once), so the same pixels reach them. One size is kept at a time.
final class ScaledFrames {
    /// What a budget's tries keep between them: the last size scaled.
    final class Keeper {
        fileprivate var current: ScaledFrames?
        private let budget: FrameCacheBudget
        /// Checked between kept frames, as `MeteredAnimation` checks between decoded ones: a try read
        /// from here never reaches the source, and the input's time limit still holds.
        fileprivate let cancellation: CancellationFlag?

        init(budget: FrameCacheBudget = .shared, cancellation: CancellationFlag? = nil) {
            (self.budget, self.cancellation) = (budget, cancellation)
        }

        /// Kept frames a try of this size and step can read: every frame it uses is there.
        fileprivate func usable(_ width: Int, _ height: Int, step: Int) -> ScaledFrames? {
            guard let c = current, c.complete, c.width == width, c.height == height, step % c.step == 0 else { return nil }
            return c
        }

        /// Starts keeping this size in place of the last (its room given back).
        fileprivate func start(_ width: Int, _ height: Int, step: Int) -> ScaledFrames? {
            current = nil
            guard let records = try? ScratchRecords(recordBytes: width * height * 4, budget: budget) else { return nil }
            current = ScaledFrames(width: width, height: height, step: step, records: records)
            return current
        }
    }

    let width: Int, height: Int
    /// Every `step`-th source frame is kept.
    let step: Int
    /// Every source frame's duration, in milliseconds.
    fileprivate var durations: [Int] = []
    fileprivate var complete = false
    /// A frame the pass did not push (a damaged source cut short): what is kept has a gap.
    fileprivate var broken = false
    private let records: ScratchRecords

    private init(width: Int, height: Int, step: Int, records: ScratchRecords) {
        (self.width, self.height, self.step, self.records) = (width, height, step, records)
    }

    private func rows(of f: UnsafePointer<AVFrame>) -> [iovec]? {
        guard let base = f.pointee.data.0, Int(f.pointee.width) == width, Int(f.pointee.height) == height,
              f.pointee.format == AV_PIX_FMT_BGRA.rawValue else { return nil }
        let stride = Int(f.pointee.linesize.0)
        return (0..<height).map { iovec(iov_base: UnsafeMutableRawPointer(base + $0 * stride), iov_len: width * 4) }
    }

    fileprivate func keep(_ f: UnsafePointer<AVFrame>) {
        guard let rows = rows(of: f) else { return records.append([]) }  // a record of the wrong size ends the keeping
        records.append(rows)
    }

    /// Whether all `frames` source frames' durations and every `step`-th frame are kept.
    fileprivate func finish(frames: Int) {
        complete = !broken && records.usable && durations.count == frames && records.count == (frames + step - 1) / step
    }

    /// Kept frame `index` (the source's `index × step`) into `graph` at `pts`.
    fileprivate func push(_ index: Int, pts: Int64, into graph: FilterGraph, _ ff: FFmpeg) throws {
        var frame = ff.util.av_frame_alloc()
        defer { ff.util.av_frame_free(&frame) }
        guard let f = frame else { throw MediaPrepError(.encodeFailed, "out of memory") }
        (f.pointee.width, f.pointee.height, f.pointee.format, f.pointee.pts) = (Int32(width), Int32(height), AV_PIX_FMT_BGRA.rawValue, pts)
        guard ff.util.av_frame_get_buffer(f, 0) >= 0, let rows = rows(of: f) else { throw MediaPrepError(.encodeFailed, "out of memory") }
        try records.read(index, into: rows)
        try graph.push(f)
    }
}

/// A try's frames, pass after pass: each source frame's duration and, for the frames the try uses, a
/// push of its pixels into a palette graph. From the source's canvases (scaled in the graph itself, or
/// ahead of it, then kept), or from frames kept at this size.
final class TryFrames {
    let source: AnimationSource
    let width: Int, height: Int, step: Int
    let ff: FFmpeg
    let keeper: ScaledFrames.Keeper?
    /// The graphs take BGRA at the try's size, scaled here; otherwise the source's RGBA canvases.
    var scaledAhead: Bool { keeper != nil }
    /// Only the first pass keeps what it scales: a second finds it kept, or scales again.
    private var keeping = true

    init(source: AnimationSource, width: Int, height: Int, step: Int, ff: FFmpeg, keeper: ScaledFrames.Keeper?) {
        (self.source, self.width, self.height, self.step, self.ff, self.keeper) = (source, width, height, step, ff, keeper)
    }

    /// Calls `body` with each source frame's duration and, for a frame the try uses, how to push it;
    /// returns the source frames seen.
    func forEach(_ body: (Int, ((Int64, FilterGraph) throws -> Void)?) throws -> Void) throws -> Int {
        let (ff, step) = (self.ff, self.step)
        if let kept = keeper?.usable(width, height, step: step) {
            for (i, ms) in kept.durations.enumerated() {
                try keeper?.cancellation?.check()
                guard i % step == 0 else { try body(ms, nil); continue }
                try body(ms) { pts, graph in try kept.push(i / kept.step, pts: pts, into: graph, ff) }
            }
            return kept.durations.count
        }
        var seen = 0
        guard let keeper else {
            try source.forEachFrame { pixels, ms in
                defer { seen += 1 }
                guard seen % step == 0 else { return try body(ms, nil) }
                try body(ms) { pts, graph in try GIFEncoder.push(pixels, pts: pts, into: graph, ff) }
            }
            return seen
        }
        let input = "video_size=\(source.width)x\(source.height):pix_fmt=\(AV_PIX_FMT_RGBA.rawValue):time_base=1/100:pixel_aspect=1/1"
        let scaler = try FilterGraph("[in]scale=\(width):\(height):flags=lanczos,format=bgra[out]", inputs: [("in", input)])
        let filling = keeping ? keeper.start(width, height, step: step) : nil
        keeping = false
        try source.forEachFrame { pixels, ms in
            defer { seen += 1 }
            filling?.durations.append(ms)
            guard seen % step == 0 else { return try body(ms, nil) }
            var pushed = false
            try body(ms) { pts, graph in
                var frame = ff.util.av_frame_alloc()
                defer { ff.util.av_frame_free(&frame) }
                guard let f = frame else { throw MediaPrepError(.encodeFailed, "out of memory") }
                try GIFEncoder.push(pixels, pts: pts, into: scaler, ff)
                guard try scaler.pull(into: f) else { throw MediaPrepError(.encodeFailed, "the scaler kept a frame") }
                filling?.keep(f)
                try graph.push(f)
                pushed = true
            }
            if !pushed { filling?.broken = true }
        }
        filling?.finish(frames: seen)
        return seen
    }
}

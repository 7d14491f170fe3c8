import CFFmpeg

/// An APNG or GIF through FFmpeg's decoders, which compose each frame onto the canvas (APNG's
/// blend and dispose ops, GIF's disposal) and hand out whole RGBA canvases.
final class FFmpegAnimation: AnimationSource {
    let width: Int
    let height: Int
    let plays: Int
    private let path: String
    /// What FFmpeg reads instead of the file: the file changed first (`apngFrames`), or already read whole (an AVIF sequence).
    private let data: [UInt8]?
    private let maxPixels: Int

    init(path: String, data: [UInt8]? = nil, width: Int, height: Int, plays: Int, maxPixels: Int) throws {
        guard width > 0, height > 0 else { throw MediaPrepError(.invalidDimensions, "the animation has no size") }
        guard width * height <= maxPixels else { throw MediaPrepError(.tooManyPixels, "\(width)×\(height) is over the \(maxPixels)-pixel limit") }
        (self.path, self.data, self.width, self.height, self.plays, self.maxPixels) = (path, data, width, height, plays, maxPixels)
    }

    /// An APNG without its text, Exif and time chunks, when it has any: FFmpeg 5.1's APNG demuxer
    /// stops at a chunk between a frame's `fcTL` and its data ("Not yet implemented"), where
    /// exiftool writes them, and the file was refused as holding no complete frame (browsers and
    /// Pillow play it). Nil when there is nothing to take out, or it is not a whole PNG.
    ///
    /// And a 1-bit greyscale APNG (valid; browsers and Pillow play it), which FFmpeg 5.1's APNG decoder
    /// does not implement, as the 1-bit palette APNG it is the same as: palette black and white, its
    /// pixel bytes untouched, a greyscale `tRNS` made the palette's and `sBIT`/`bKGD` left out.
    static func apngFrames(_ png: [UInt8]) -> [UInt8]? {
        let chunks = PNGChunks.chunks(png)
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.body.count == 13, chunks.last?.type == "IEND" else { return nil }
        let monochrome = png[ihdr.body.lowerBound + 8] == 1 && png[ihdr.body.lowerBound + 9] == 0
        guard monochrome || chunks.contains(where: { PNGStripper.metadata.contains($0.type) }) else { return nil }
        var out = Array(png[0..<8])
        for c in chunks where !PNGStripper.metadata.contains(c.type) {
            if monochrome {
                switch c.type {
                case "IHDR":
                    var body = Array(png[c.body])
                    body[9] = 3
                    out += PNGStripper.chunk("IHDR", body) + PNGStripper.chunk("PLTE", [0, 0, 0, 255, 255, 255])
                    continue
                case "tRNS" where c.body.count >= 2:
                    out += PNGStripper.chunk("tRNS", png[c.body.lowerBound + 1] & 1 == 0 ? [0] : [255, 0])
                    continue
                case "sBIT", "bKGD", "PLTE": continue
                default: break
                }
            }
            out += png[(c.body.lowerBound - 8)..<(c.body.upperBound + 4)]
        }
        return out
    }

    /// The frames and size of a file's one video track, when it has one track and more than a frame
    /// (an AVIF sequence with transparency has a second: its alpha, which FFmpeg 5.1 does not join).
    static func singleTrack(data: [UInt8], path: String) throws -> (frames: Int, width: Int, height: Int)? {
        let input = try MediaInput(data: data, name: path)
        defer { withExtendedLifetime(input) {} }  // its streams are its context's
        let tracks = input.streams.filter { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }
        guard tracks.count == 1, let t = tracks.first, t.pointee.nb_frames > 1, let par = t.pointee.codecpar else { return nil }
        return (Int(t.pointee.nb_frames), Int(par.pointee.width), Int(par.pointee.height))
    }

    func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
        let input = try data.map { try MediaInput(data: $0, name: path) } ?? MediaInput(path: path)
        guard let stream = input.bestStream(AVMEDIA_TYPE_VIDEO) else { throw MediaPrepError(.corrupt, "no animation in this file") }
        let decoder = try FrameDecoder(input: input, stream: stream, maxPixels: maxPixels)
        let tb = stream.pointee.time_base
        var index = 0
        while let frame = try decoder.next() {
            // A frame of another size would be a damaged file: the canvas is fixed by the header.
            let canvas = try FrameConverter.convert(frame, layout: .rgba, width: width, height: height)
            let duration = cff_frame_duration(frame)
            let ms = tb.num > 0 && duration > 0 ? Int((Double(duration) * Double(tb.num) / Double(tb.den) * 1000).rounded()) : 100
            try body(canvas, ms)
            index += 1
        }
        if index == 0 { throw MediaPrepError(.truncated, "the animation holds no complete frame") }
    }
}

/// The few animation facts read from the bytes themselves (FFmpeg does not report them).
enum AnimationHeaders {
    /// Whether an ISO file says it is an AVIF image sequence (brand `avis`, major or compatible) and
    /// holds a movie (`moov`) beside its still: what browsers and `avifenc` make of an animation.
    static func avifSequence(_ d: [UInt8]) -> Bool {
        guard d.count >= 16, Bytes.ascii(d, 4, 4) == "ftyp" else { return false }
        let end = min(d.count, Bytes.be(d, 0, 4))
        let brands = Swift.stride(from: 8, to: end - 3, by: 4).filter { $0 != 12 }.map { Bytes.ascii(d, $0, 4) }
        guard brands.contains("avis") else { return false }
        return PictureBoxes.children(d, 0..<d.count, topLevel: true)?.boxes.contains { $0.type == "moov" } == true
    }

    /// An APNG's acTL chunk (frames, plays), if it comes before the first IDAT and names more than one frame.
    static func apng(_ data: [UInt8]) -> AnimationInfo? {
        var at = 8
        while at + 8 <= data.count {
            let length = data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[at + 4..<at + 8], as: UTF8.self)
            if type == "IDAT" || length > data.count { return nil }
            if type == "acTL", length >= 8, at + 16 <= data.count {
                func be32(_ o: Int) -> Int { data[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
                let frames = be32(at + 8)
                return frames > 1 ? AnimationInfo(frames: frames, plays: be32(at + 12)) : nil
            }
            at += 12 + length
        }
        return nil
    }

    /// How many times a GIF plays: its NETSCAPE2.0 loop count N repeats N more times (0: forever);
    /// with none it plays once.
    static func gifPlays(_ data: [UInt8]) -> Int { GIFBlocks.walk(data)?.plays(in: data) ?? 1 }
}

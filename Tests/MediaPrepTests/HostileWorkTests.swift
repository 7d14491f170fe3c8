import Foundation
import Testing
@testable import MediaPrep

/// HEIF files built here around one coded tile of a committed fixture: derived items (`grid`,
/// `iovl`) whose references repeat and loop, as scripts/qa/make-hostile.py writes them.
enum HEIFBuild {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { Bytes.be32(8 + body.count) + Array(type.utf8) + body }
    static func full(_ type: String, _ version: UInt8, _ flags: Int, _ body: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(Bytes.be32(flags).suffix(3)) + body)
    }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    /// The first coded item of a HEIF fixture: its type, its decoder configuration box and its bytes.
    static func tile(_ name: String) throws -> (type: String, config: [UInt8], data: [UInt8]) {
        let d = try Fixture.bytes(name)
        let items = try #require(HEIFItems.of(d))
        let (id, type) = try #require(items.types.first { ["hvc1", "av01"].contains($0.value) })
        let data = items.ranges(of: id).flatMap { d[$0] }
        let tag = Array((type == "hvc1" ? "hvcC" : "av1C").utf8)
        let at = try #require((4..<d.count - 4).first { Array(d[$0..<$0 + 4]) == tag })
        return (type, Array(d[(at - 4)..<(at - 4 + Bytes.be(d, at - 4, 4))]), data)
    }

    struct Derived {
        var type: String
        var data: [UInt8]
        var refs: [Int]
        var size: (Int, Int)
    }

    static func grid(_ rows: Int, _ cols: Int, _ w: Int, _ h: Int) -> [UInt8] { [0, 0, UInt8(rows - 1), UInt8(cols - 1)] + be16(w) + be16(h) }
    static func overlay(_ layers: Int, _ w: Int, _ h: Int) -> [UInt8] { [0, 0] + [UInt8](repeating: 0, count: 8) + be16(w) + be16(h) + [UInt8](repeating: 0, count: 4 * layers) }

    /// A HEIF of the tile (item 1, `tileSize`) and `graph`'s derived items, `primary` its primary image.
    static func file(brand: String, tile: (type: String, config: [UInt8], data: [UInt8]), tileSize: (Int, Int),
                     graph: [Int: Derived], primary: Int) -> [UInt8] {
        let ids = graph.keys.sorted()
        var props = [tile.config, full("ispe", 0, 0, Bytes.be32(tileSize.0) + Bytes.be32(tileSize.1))]
        var assoc: [(Int, [Int])] = [(1, [1, 2])]
        var idat: [UInt8] = [], locations: [(Int, Int, Int)] = []
        for id in ids {
            let g = graph[id]!
            props.append(full("ispe", 0, 0, Bytes.be32(g.size.0) + Bytes.be32(g.size.1)))
            assoc.append((id, [props.count]))
            locations.append((id, idat.count, g.data.count))
            idat += g.data
        }
        let iinf = full("iinf", 0, 0, be16(ids.count + 1) + ([(1, tile.type)] + ids.map { ($0, graph[$0]!.type) }).flatMap { id, type in
            full("infe", 2, 0, be16(id) + be16(0) + Array(type.utf8) + [0])
        })
        let iref = full("iref", 0, 0, ids.flatMap { id in box("dimg", be16(id) + be16(graph[id]!.refs.count) + graph[id]!.refs.flatMap(be16)) })
        let ipma = full("ipma", 0, 1, Bytes.be32(assoc.count) + assoc.flatMap { id, p in be16(id) + [UInt8(p.count)] + p.flatMap { be16(0x8000 | $0) } })
        let iprp = box("iprp", box("ipco", props.flatMap { $0 }) + ipma)
        let ftyp = box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1".utf8) + Array(brand.utf8))
        func meta(_ mdat: Int) -> [UInt8] {
            let entries: [(Int, Int, Int, Int)] = [(1, 0, mdat, tile.data.count)] + locations.map { ($0.0, 1, $0.1, $0.2) }
            var table: [UInt8] = [0x44, 0x00] + be16(entries.count)
            for (id, method, offset, length) in entries {
                table += be16(id) + be16(method)
                table += be16(0) + be16(1)
                table += Bytes.be32(offset) + Bytes.be32(length)
            }
            let iloc = full("iloc", 1, 0, table)
            let hdlr = full("hdlr", 0, 0, [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
            return full("meta", 0, 0, hdlr + full("pitm", 0, 0, be16(primary)) + iinf + iloc + box("idat", idat) + iref + iprp)
        }
        let offset = ftyp.count + meta(0).count + 8
        return ftyp + meta(offset) + box("mdat", tile.data)
    }
}

/// What a small file asks a decoder to do is counted before it is done, and the same answer comes
/// from `probe`, `check` and `prepare`: HEIF derivation graphs, animations' frames × canvas, tables a
/// container claims; and what a header cannot show is metered as it is decoded.
@Suite struct HostileWorkTests {
    /// probe, check and prepare of `bytes`: each one's error code (nil: it went).
    static func verdicts(_ bytes: [UInt8], _ name: String) throws -> [MediaPrepError.Code?] {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(bytes, name, in: dir)
        var probe: MediaPrepError.Code? = nil
        do { _ = try MediaProbe.probe(path: path) } catch let e as MediaPrepError { probe = e.code }
        let check = SendCheck().check(path: path)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out"))?.isEmpty ?? true || item.error == nil, "\(name): something written")
        return [probe, check.error?.code, item.error?.code]
    }

    @Test func heifGraphsAreCountedAndLoopsRefused() throws {
        let hevc = try HEIFBuild.tile("orient-gps.heic")
        let items = try #require(HEIFItems.of(try Fixture.bytes("orient-gps.heic")))
        let size = try #require(items.sizes.first { items.types[$0.key] == "hvc1" }?.value)
        func heic(_ graph: [Int: HEIFBuild.Derived], primary: Int) -> [UInt8] {
            HEIFBuild.file(brand: "heic", tile: hevc, tileSize: size, graph: graph, primary: primary)
        }
        let (w, h) = size
        // A good 2×2 grid goes.
        let good = heic([2: .init(type: "grid", data: HEIFBuild.grid(2, 2, 2 * w, 2 * h), refs: [1, 1, 1, 1], size: (2 * w, 2 * h))], primary: 2)
        #expect(try Self.verdicts(good, "good.heic") == [nil, nil, nil])
        // A grid of 100×100 references to one overlay of 1,000 layers: ten million decodes (it ran for minutes).
        let overlays = heic([2: .init(type: "iovl", data: HEIFBuild.overlay(1000, w, h), refs: [Int](repeating: 1, count: 1000), size: (w, h)),
                             3: .init(type: "grid", data: HEIFBuild.grid(100, 100, 100 * w, 100 * h), refs: [Int](repeating: 2, count: 10_000),
                                      size: (100 * w, 100 * h))], primary: 3)
        #expect(overlays.count < 40_000)
        let cost = try #require(try HEIFItems.of(overlays)?.decodeCost(overlays, limit: .max / 4))
        #expect(cost > 10_000 * 1000 * HEIFItems.minimumItemCost)
        #expect(try Self.verdicts(overlays, "overlays.heic") == [.tooManyPixels, .tooManyPixels, .tooManyPixels])
        // A grid's claimed canvas is its own, even behind a derived item whose description is cut short.
        let behindShort = heic([2: .init(type: "iovl", data: [0], refs: [1], size: (w, h)),
                                3: .init(type: "grid", data: HEIFBuild.grid(1, 2, 60_000, 60_000), refs: [1, 1], size: (2 * w, h))], primary: 3)
        #expect(try #require(try HEIFItems.of(behindShort)?.decodeCost(behindShort, limit: .max / 4)) >= 60_000 * 60_000)
        // An overlay of 65,535 references to one tile.
        let wide = heic([2: .init(type: "iovl", data: HEIFBuild.overlay(65_535, w, h), refs: [Int](repeating: 1, count: 65_535), size: (w, h))], primary: 2)
        #expect(try Self.verdicts(wide, "wide.heic") == [.tooManyPixels, .tooManyPixels, .tooManyPixels])
        // A grid that names itself, and two overlays that name each other (libheif crashed on both).
        let selfish = heic([2: .init(type: "grid", data: HEIFBuild.grid(1, 2, 2 * w, h), refs: [1, 2], size: (2 * w, h))], primary: 2)
        #expect(try Self.verdicts(selfish, "self.heic") == [.corrupt, .corrupt, .corrupt])
        let loop = heic([2: .init(type: "iovl", data: HEIFBuild.overlay(1, w, h), refs: [3], size: (w, h)),
                         3: .init(type: "iovl", data: HEIFBuild.overlay(1, w, h), refs: [2], size: (w, h))], primary: 2)
        #expect(try Self.verdicts(loop, "loop.heic") == [.corrupt, .corrupt, .corrupt])
        // Found by fuzzing: a `dimg` header claiming 4 MB inside its `iref`. libheif skips the size and
        // reads the references that follow (here the grid naming itself), and recursed for 39 s
        // through 900 MB; the walk reads them as libheif does.
        var fuzzed = heic([2: .init(type: "grid", data: HEIFBuild.grid(1, 2, 2 * w, h), refs: [1, 2], size: (2 * w, h))], primary: 2)
        let dimg = try #require((4..<fuzzed.count - 4).first { Array(fuzzed[$0..<$0 + 4]) == Array("dimg".utf8) })
        fuzzed.replaceSubrange((dimg - 4)..<dimg, with: Bytes.be32(0x0040_0010))
        #expect(HEIFItems.of(fuzzed)?.derivedFrom[2] == [1, 2])
        #expect(try Self.verdicts(fuzzed, "fuzzed.heic") == [.corrupt, .corrupt, .corrupt])
        // Found by fuzzing: the loop behind a `meta` whose `hdlr` is named "drh\0", which libheif reads
        // all the same (a crash: its stack ran out).
        var renamed = loop
        let hdlr = try #require((4..<renamed.count - 4).first { Array(renamed[$0..<$0 + 4]) == Array("hdlr".utf8) })
        renamed.replaceSubrange(hdlr..<hdlr + 4, with: Array("drh".utf8) + [0])
        #expect(try Self.verdicts(renamed, "renamed.heic") == [.corrupt, .corrupt, .corrupt])
    }

    /// quadrants.jxl (a bare codestream, 64×48) with its SizeHeader, the 9 bits after FF 0A, rewritten
    /// to claim `side`×`side`: the rest of the stream follows the new header bit for bit.
    static func jxlClaiming(_ side: Int) throws -> [UInt8] {
        let d = try Fixture.bytes("quadrants.jxl")
        func bit(_ i: Int) -> Int { Int(d[2 + i / 8] >> (i % 8)) & 1 }
        var bits: [Int] = [0, 0, 1]                                    // not small; ysize_minus_1 as Bits(18)
        bits += (0..<18).map { (side - 1) >> $0 & 1 } + [1, 0, 0]      // ratio 1: square
        bits += (9..<((d.count - 2) * 8)).map(bit)
        var out: [UInt8] = [0xFF, 0x0A]
        for at in stride(from: 0, to: bits.count, by: 8) {
            out.append(UInt8(bits[at..<min(at + 8, bits.count)].enumerated().reduce(0) { $0 | $1.element << $1.offset }))
        }
        return out
    }

    /// libjxl 0.7 decodes a frame whole, 5.8 bytes a pixel with its output, and its memory manager
    /// sees none of it: the header is held against 300 MB for a file under 1 MB (an 11 KB flat
    /// 9000×9000 took 490 MB), the same verdict from all three.
    @Test func aSmallJPEGXLClaimingTooMuchIsRefusedFromItsHeader() throws {
        let big = try Self.jxlClaiming(9000)
        #expect(big.count < 2000)
        #expect(throws: MediaPrepError.self) { _ = try JXLDecoder.header(big, maxPixels: 100_000_000) }
        #expect(try Self.verdicts(big, "big.jxl") == [.tooManyPixels, .tooManyPixels, .tooManyPixels])
        // The rewritten header is read as written: a claim within the limit gets past it to the frame.
        let within = try Self.jxlClaiming(1000)
        #expect(try JXLDecoder.header(within, maxPixels: 100_000_000).width == 1000)
        // The limit is the file's: the same 81 MP in a file of 1 MB or more may cost 1 GB.
        #expect(throws: Never.self) { try JXLDecoder.admit(9000, 9000, channels: 3, hdr: false, fileBytes: 1_000_000) }
        #expect(throws: MediaPrepError.self) { try JXLDecoder.admit(9000, 9000, channels: 3, hdr: false, fileBytes: 999_999) }
        #expect(throws: MediaPrepError.self) { try JXLDecoder.admit(10_000, 10_000, channels: 4, hdr: true, fileBytes: 50_000_000) }
        // A phone's 24.9 MP photo in under 1 MB decodes (165 MB measured).
        #expect(throws: Never.self) { try JXLDecoder.admit(5760, 4320, channels: 3, hdr: false, fileBytes: 960_569) }
    }

    /// An AVIF grid of many small tiles: each tile costs a decoder's set-up however small it is.
    @Test func anAVIFGridOfTinyTilesIsRefused() throws {
        let av1 = try HEIFBuild.tile("quadrants.avif")
        let n = 100
        let avif = HEIFBuild.file(brand: "avif", tile: av1, tileSize: (64, 48), graph: [
            2: .init(type: "grid", data: HEIFBuild.grid(n, n, n * 64, n * 48), refs: [Int](repeating: 1, count: n * n), size: (n * 64, n * 48))], primary: 2)
        #expect(try Self.verdicts(avif, "tiles.avif") == [.tooManyPixels, .tooManyPixels, .tooManyPixels])
    }

    /// An animated WebP of `frames` frames of 1×1 on a `canvas`² canvas (each frame a lossless 1×1).
    static func animatedWebP(canvas: Int, frames: Int) -> [UInt8] {
        func le24(_ v: Int) -> [UInt8] { Array(Bytes.le32(v).prefix(3)) }
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + Bytes.le32(body.count) + body + (body.count % 2 == 1 ? [0] : []) }
        // A 1×1 VP8L picture: 14-bit sides, no transform, no cache, five one-symbol prefix codes.
        var bits: [Int] = []
        func put(_ v: Int, _ n: Int) { for i in 0..<n { bits.append(v >> i & 1) } }
        put(0, 14); put(0, 14); put(0, 1); put(0, 3); put(0, 1); put(0, 1); put(0, 1)
        for symbol in [255, 0, 0, 255, 0] { put(1, 1); put(0, 1); put(1, 1); put(symbol, 8) }
        let packed = stride(from: 0, to: bits.count, by: 8).map { i in UInt8(bits[i..<min(i + 8, bits.count)].enumerated().reduce(0) { $0 | $1.element << $1.offset }) }
        let frame = chunk("VP8L", [0x2F] + packed)
        let anmf = chunk("ANMF", le24(0) + le24(0) + le24(0) + le24(0) + le24(100) + [0] + frame)
        let body = Array("WEBP".utf8) + chunk("VP8X", [0x02, 0, 0, 0] + le24(canvas - 1) + le24(canvas - 1)) + chunk("ANIM", [0, 0, 0, 0, 0, 0])
            + [[UInt8]](repeating: anmf, count: frames).flatMap { $0 }
        return Array("RIFF".utf8) + Bytes.le32(body.count) + body
    }

    @Test func animationsAreCountedFramesTimesCanvas() throws {
        // 255 frames of a 4096² canvas took 15 GB and never ended; 100,000 frames of 1×1 ran on too.
        #expect(try Self.verdicts(Self.animatedWebP(canvas: 4096, frames: 255), "canvas.webp") == [.tooManyPixels, .tooManyPixels, .tooManyPixels])
        #expect(try Self.verdicts(Self.animatedWebP(canvas: 1, frames: 10_000), "frames.webp") == [.tooManyPixels, .tooManyPixels, .tooManyPixels])
        // Small ones go, as GIFs.
        #expect(try Self.verdicts(Self.animatedWebP(canvas: 64, frames: 8), "small.webp") == [nil, nil, nil])
        #expect(AnimationCost.decodeCost(frames: 255, width: 4096, height: 4096) == 255 * 4096 * 4096)
        #expect(AnimationCost.decodeCost(frames: 3, width: 1, height: 1) == 3 * AnimationCost.minimumFrameCost)
        #expect(AnimationCost.decodeCost(frames: .max, width: .max, height: 2) == .max)
    }

    /// A source that gives more frames than its header said: the meter stops the pass.
    final class EndlessAnimation: AnimationSource {
        let width = 64, height = 64, plays = 0
        var given = 0
        func forEachFrame(_ body: (PixelBuffer, Int) throws -> Void) throws {
            while given < 1_000_000 {
                given += 1
                try body(PixelBuffer(width: 64, height: 64, layout: .rgba, storage: [UInt8](repeating: 0, count: 64 * 64 * 4)), 100)
            }
        }
    }

    @Test func theMeterStopsAPassItsHeaderDidNotSay() throws {
        let endless = EndlessAnimation()
        let metered = MeteredAnimation(endless, cancellation: nil, maxPixels: 100 * AnimationCost.minimumFrameCost)
        #expect(throws: MediaPrepError.self) { try metered.forEachFrame { _, _ in } }
        #expect(endless.given == 101)
        // Past the time one input may take, the pass stops at the next frame.
        let flag = CancellationFlag(input: nil, timeLimit: 0.000_001)
        flag.startClock()
        usleep(1000)
        let timed = MeteredAnimation(EndlessAnimation(), cancellation: flag)
        do {
            try timed.forEachFrame { _, _ in }
            Issue.record("no timeout")
        } catch let e as MediaPrepError {
            #expect(e.code == .timeout && !e.isEnvironmental)
        }
    }

    /// The time limit ends a picture's preparation with `timeout`, exit 1, nothing written; without
    /// one (and by default) the same file goes.
    @Test func aPictureOverItsTimeLimitIsRefused() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var preparer = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0)
        preparer.run.timeLimit = 0.000_001
        let item = preparer.prepare(path: Fixture.path("anim-sticker.webp"))
        #expect(item.error?.code == .timeout && item.output == nil)
        #expect((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out"))?.isEmpty ?? true)
        preparer.run.timeLimit = RunContext.defaultTimeLimit
        #expect(preparer.prepare(path: Fixture.path("anim-sticker.webp")).error == nil)
    }

    /// An `stco` claiming 2^31 entries is past what FFmpeg allocates a table: the file's fault
    /// (exit 1), not the machine's (75, which an engine would retry for ever).
    @Test func aTableClaimingGigabytesIsCorruptNotOutOfMemory() throws {
        var mp4 = try Fixture.bytes("h264.mp4")
        let at = try #require((0..<mp4.count - 4).first { Array(mp4[$0..<$0 + 4]) == Array("stco".utf8) })
        mp4.replaceSubrange((at + 8)..<(at + 12), with: Bytes.be32(1 << 31))
        let v = try Self.verdicts(mp4, "stco.mp4")
        #expect(v == [.corrupt, .corrupt, .corrupt])
    }

    /// A 1-bit greyscale APNG (valid, played by browsers; FFmpeg 5.1's decoder does not implement it)
    /// becomes a GIF of its frames, as `check` said it would.
    @Test func aOneBitGreyscaleAPNGBecomesAGIF() throws {
        func zlibStored(_ data: [UInt8]) -> [UInt8] {
            var (a, b) = (1, 0)
            for x in data { a = (a + Int(x)) % 65521; b = (b + a) % 65521 }
            let n = data.count
            return [0x78, 0x01, 0x01, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8(~n >> 8 & 0xFF)] + data + Bytes.be32(b << 16 | a)
        }
        func fctl(_ seq: Int) -> [UInt8] { Bytes.be32(seq) + Bytes.be32(64) + Bytes.be32(64) + Bytes.be32(0) + Bytes.be32(0) + [0, 1, 0, 5, 0, 0] }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += PNGStripper.chunk("IHDR", Bytes.be32(64) + Bytes.be32(64) + [1, 0, 0, 0, 0]) + PNGStripper.chunk("acTL", Bytes.be32(3) + Bytes.be32(0))
        var seq = 0
        for f in 0..<3 {
            let row: [UInt8] = [0] + [UInt8](repeating: UInt8(truncatingIfNeeded: 0xF0 >> f), count: 8)
            let rows = [[UInt8]](repeating: row, count: 64).flatMap { $0 }
            png += PNGStripper.chunk("fcTL", fctl(seq)); seq += 1
            if f == 0 { png += PNGStripper.chunk("IDAT", zlibStored(rows)) } else { png += PNGStripper.chunk("fdAT", Bytes.be32(seq) + zlibStored(rows)); seq += 1 }
        }
        png += PNGStripper.chunk("IEND", [])
        #expect(try Self.verdicts(png, "mono.png") == [nil, nil, nil])
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let item = AttachmentPreparer(outputDirectory: dir, timestamp: 0).prepare(path: try Fixture.write(png, "mono.png", in: dir))
        #expect(item.format == .gif && item.route == .encoded && item.width == 64)
        let frames = try #require(item.output.map { try FFmpegImageDecoder.decode(path: $0, format: .gif, countFrames: true) })
        #expect(frames.frameCount == 3)
        // Black and white where the bits said, the first frame's left half of each byte white.
        let p = frames.image.pixels
        #expect(p.bytes[0] == 255 && p.bytes[4 * p.layout.channels] == 0)
    }
}

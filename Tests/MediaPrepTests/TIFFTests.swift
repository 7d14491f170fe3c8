import Foundation
import Testing
@testable import MediaPrep

/// TIFFs and BigTIFFs written here byte by byte: RGB rows in one uncompressed strip, then each IFD
/// after its values (where libtiff puts it), with any extra tags and a GPS IFD. Little-endian.
enum TIFFBuilder {
    struct Entry {
        let tag: Int, type: Int, count: Int, bytes: [UInt8]
    }

    static func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
    static func short(_ tag: Int, _ v: [Int]) -> Entry { Entry(tag: tag, type: 3, count: v.count, bytes: v.flatMap { le($0, 2) }) }
    static func long(_ tag: Int, _ v: [Int]) -> Entry { Entry(tag: tag, type: 4, count: v.count, bytes: v.flatMap { le($0, 4) }) }
    static func ascii(_ tag: Int, _ s: String) -> Entry { Entry(tag: tag, type: 2, count: s.utf8.count + 1, bytes: Array(s.utf8) + [0]) }
    static func doubles(_ tag: Int, _ v: [Double]) -> Entry {
        Entry(tag: tag, type: 12, count: v.count, bytes: v.flatMap { le(Int(truncatingIfNeeded: $0.bitPattern), 8) })
    }
    static func rationals(_ tag: Int, _ v: [(Int, Int)]) -> Entry {
        Entry(tag: tag, type: 5, count: v.count, bytes: v.flatMap { le($0.0, 4) + le($0.1, 4) })
    }

    /// A `width`×`height` RGB image whose pixel (x, y) is (x·7, y·5, x+y) mod 256.
    static func pixels(_ width: Int, _ height: Int) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b): (Int, Int, Int) = (x * 7 % 256, y * 5 % 256, (x + y) % 256)
                out += [UInt8(r), UInt8(g), UInt8(b)]
            }
        }
        return out
    }

    static func undefined(_ tag: Int, _ bytes: [UInt8]) -> Entry { Entry(tag: tag, type: 7, count: bytes.count, bytes: bytes) }

    /// - Parameter inks: CMYK samples instead of the RGB pattern (photometric 5, four samples a pixel).
    static func make(big: Bool, width: Int, height: Int, orientation: Int = 1, extra: [Entry] = [], gps: [Entry] = [],
                     claimed: (width: Int, height: Int)? = nil, stripAt: Int? = nil, inks: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = big ? Array("II".utf8) + le(43, 2) + le(8, 2) + le(0, 2) + le(0, 8) : Array("II".utf8) + le(42, 2) + le(0, 4)
        let pixelsAt = out.count
        let samples = inks ?? pixels(width, height)
        out += samples
        func ifd(_ entries: [Entry]) -> Int { Self.ifd(entries, into: &out, big: big) }
        let channels = inks == nil ? 3 : 4
        var entries = [long(256, [claimed?.width ?? width]), long(257, [claimed?.height ?? height]),
                       short(258, [Int](repeating: 8, count: channels)), short(259, [1]), short(262, [inks == nil ? 2 : 5]),
                       long(273, [stripAt ?? pixelsAt]), short(274, [orientation]), short(277, [channels]), long(278, [height]),
                       long(279, [samples.count]), short(284, [1])] + extra
        if !gps.isEmpty { entries.append(long(34853, [ifd(gps)])) }
        let first = ifd(entries)
        out.replaceSubrange(big ? 8..<16 : 4..<8, with: le(first, big ? 8 : 4))
        return out
    }

    /// Appends an IFD of `entries` (values too long to fit inline first) and returns its offset.
    static func ifd(_ entries: [Entry], into out: inout [UInt8], big: Bool = false) -> Int {
        let inline = big ? 8 : 4
        var fields: [(Entry, [UInt8])] = []
        for e in entries.sorted(by: { $0.tag < $1.tag }) {
            if e.bytes.count <= inline {
                fields.append((e, e.bytes + [UInt8](repeating: 0, count: inline - e.bytes.count)))
            } else {
                if out.count % 2 == 1 { out.append(0) }
                fields.append((e, le(out.count, inline)))
                out += e.bytes
            }
        }
        if out.count % 2 == 1 { out.append(0) }
        let at = out.count
        out += le(fields.count, big ? 8 : 2)
        for (e, value) in fields { out += le(e.tag, 2) + le(e.type, 2) + le(e.count, big ? 8 : 4) + value }
        out += le(0, inline)
        return at
    }

    /// A DNG as phones and converters write one: its first IFD an 8×6 RGB thumbnail (orientation
    /// there), SubIFDs holding 16×12 sensor data (CFA) and, unless `preview` is false, a 32×24 RGB
    /// preview. With `thumbnail` false the first IFD is the sensor data itself, as Android's
    /// DngCreator writes it without a thumbnail.
    /// With `dngVersion` false it is laid out as a Nikon NEF is: no DNGVersion, a thumbnail first and
    /// the sensor data in a SubIFD.
    static func dng(orientation: Int = 1, preview: Bool = true, thumbnail: Bool = true, dngVersion: Bool = true) -> [UInt8] {
        var out = Array("II".utf8) + le(42, 2) + le(0, 4)
        func image(_ w: Int, _ h: Int, _ samples: [UInt8], photometric: Int, channels: Int, extra: [Entry]) -> [Entry] {
            let at = out.count
            out += samples
            return [long(256, [w]), long(257, [h]), short(258, [Int](repeating: 8, count: channels)), short(259, [1]),
                    short(262, [photometric]), long(273, [at]), short(277, [channels]), long(278, [h]), long(279, [samples.count]),
                    short(284, [1])] + extra
        }
        let cfa = image(16, 12, [UInt8](repeating: 90, count: 16 * 12), photometric: 32803, channels: 1,
                        extra: [long(254, [0]), short(33421, [2, 2]), Entry(tag: 33422, type: 1, count: 4, bytes: [0, 1, 1, 2])])
        let dngTags = (dngVersion ? [Entry(tag: 50706, type: 1, count: 4, bytes: [1, 4, 0, 0])] : [ascii(271, "NIKON CORPORATION")])
            + [short(274, [orientation])]
        guard thumbnail else {
            let first = ifd(cfa + dngTags, into: &out)
            out.replaceSubrange(4..<8, with: le(first, 4))
            return out
        }
        var subs = [ifd(cfa, into: &out)]
        if preview { subs.append(ifd(image(32, 24, pixels(32, 24), photometric: 2, channels: 3, extra: [long(254, [1])]), into: &out)) }
        let thumb = image(8, 6, [UInt8](repeating: 200, count: 8 * 6 * 3), photometric: 2, channels: 3, extra: [long(254, [1])])
        let first = ifd(thumb + dngTags + [Entry(tag: 330, type: 4, count: subs.count, bytes: subs.flatMap { le($0, 4) })], into: &out)
        out.replaceSubrange(4..<8, with: le(first, 4))
        return out
    }

    /// A DNG of sensor data alone, as Android's DngCreator writes one without a thumbnail: a 12-bit
    /// RGGB mosaic in 16-bit samples of the picture `colour` gives (sRGB; each pixel keeps the one
    /// channel its filter passes, made linear), a sensor whose colours are sRGB's own (ColorMatrix1 is
    /// XYZ to linear sRGB), neutral white balance, black 64, white 4095; a camera and a date in it.
    /// - Parameter tile: the mosaic stored in tiles of this side (its width and height a multiple of it).
    static func rawDNG(width: Int, height: Int, orientation: Int = 1, tile: Int? = nil, colour: (Int, Int) -> (Int, Int, Int)) -> [UInt8] {
        var out = Array("II".utf8) + le(42, 2) + le(0, 4)
        let at = out.count
        let linear = (0..<256).map { v in
            let c = Double(v) / 255
            return 64 + Int(((c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)) * 4000).rounded())
        }
        out.reserveCapacity(out.count + width * height * 2 + 1024)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = colour(x, y)
                let s = linear[y % 2 == 0 ? (x % 2 == 0 ? r : g) : (x % 2 == 0 ? g : b)]
                out.append(UInt8(s & 0xFF))
                out.append(UInt8(s >> 8))
            }
        }
        var layout = [long(273, [at]), long(278, [height]), long(279, [width * height * 2])]
        if let t = tile {
            let rows = Array(out[at...])
            out.removeSubrange(at...)
            var offsets: [Int] = []
            for ty in stride(from: 0, to: height, by: t) {
                for tx in stride(from: 0, to: width, by: t) {
                    offsets.append(out.count)
                    for y in ty..<ty + t { out += rows[((y * width + tx) * 2)..<((y * width + tx + t) * 2)] }
                }
            }
            layout = [long(322, [t]), long(323, [t]), long(324, offsets), long(325, [Int](repeating: t * t * 2, count: offsets.count))]
        }
        let xyzToSRGB = [32406, -15372, -4986, -9689, 18758, 415, 557, -2040, 10570]
        let entries = layout + [long(254, [0]), long(256, [width]), long(257, [height]), short(258, [16]), short(259, [1]), short(262, [32803]),
                       short(274, [orientation]), short(277, [1]),
                       short(284, [1]), short(33421, [2, 2]), Entry(tag: 33422, type: 1, count: 4, bytes: [0, 1, 1, 2]),
                       Entry(tag: 50706, type: 1, count: 4, bytes: [1, 4, 0, 0]), short(50714, [64]), long(50717, [4095]),
                       Entry(tag: 50721, type: 10, count: 9, bytes: xyzToSRGB.flatMap { le($0, 4) + le(10000, 4) }),
                       rationals(50728, [(1, 1), (1, 1), (1, 1)]), short(50778, [21]),
                       ascii(271, "TestCam"), ascii(306, "2026:06:01 10:00:00")]
        let first = ifd(entries, into: &out)
        out.replaceSubrange(4..<8, with: le(first, 4))
        return out
    }

    /// What names the sender and where: a camera, a date, GeoTIFF's tie point, keys and datum text, and GPS.
    static let privateTags: [Entry] = [
        ascii(271, "TestCam"), ascii(272, "Test Phone"), ascii(306, "2026:06:01 10:00:00"),
        doubles(33922, [0, 0, 0, 2.2945, 48.8583, 0]), short(34735, [1, 1, 0, 1, 2048, 0, 1, 4326]),
        ascii(34737, "WGS 84 near Rue de Rivoli|"),
    ]
    static let gpsTags: [Entry] = [ascii(1, "N"), rationals(2, [(48, 1), (51, 1), (2988, 100)]), ascii(3, "E"), rationals(4, [(2, 1), (17, 1), (402, 100)])]
}

@Suite struct TIFFTests {
    /// The fixture ImageMagick wrote, from its file and from memory.
    @Test func theFixtureDecodesThroughLibtiff() throws {
        Quadrants.check(try ImageLoader.load(path: Fixture.path("image.tiff")).pixels, tolerance: 2)
        Quadrants.check(try ImageLoader.load(data: try Fixture.bytes("image.tiff"), path: nil).pixels, tolerance: 2)
    }

    /// BigTIFF went out as an unknown file, metadata and all (FFmpeg reads no BigTIFF); both kinds now
    /// decode through libtiff to the same pixels, from memory and from a file.
    @Test(arguments: [false, true]) func aTIFFOfEitherKindDecodesToItsPixels(big: Bool) throws {
        let data = TIFFBuilder.make(big: big, width: 40, height: 24)
        #expect(FormatSniffer.sniff(data) == .tiff)
        let fromMemory = try ImageLoader.load(data: data, path: nil)
        #expect(fromMemory.pixels.layout == .rgb && fromMemory.pixels.bytes == TIFFBuilder.pixels(40, 24))
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + (big ? "/big.tif" : "/classic.tif")
        try Data(data).write(to: URL(fileURLWithPath: path))
        #expect(try ImageLoader.load(path: path).pixels == fromMemory.pixels)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.kind == .image && item.error == nil && (item.width, item.height) == (40, 24), "\(String(describing: item.error))")
    }

    /// A TIFF's own Orientation tag (FFmpeg's decoder ignored it: a scan turned on its side was sent turned).
    @Test(arguments: [false, true]) func aTIFFTurnedByItsOrientationTagIsSentUpright(big: Bool) throws {
        let data = TIFFBuilder.make(big: big, width: 40, height: 24, orientation: 6)
        let decoded = try ImageLoader.load(data: data, path: nil)
        #expect(decoded.orientation == .right && decoded.pixels.bytes == TIFFBuilder.pixels(40, 24))  // rows as stored, turned later
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(data).write(to: URL(fileURLWithPath: dir + "/turned.tif"))
        let probe = try MediaProbe.source(path: dir + "/turned.tif")
        #expect((probe.probe.width, probe.probe.height) == (24, 40))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/turned.tif")
        #expect((item.width, item.height) == (24, 40), "\(String(describing: item.error))")
        // Turned clockwise: the stored top-left pixel ends at the top right.
        let out = try ImageLoader.load(path: try #require(item.output)).pixels
        let corner = out.rgba(x: 23, y: 0), stored = (r: 0, g: 0, b: 0)
        #expect(abs(Int(corner.r) - stored.r) < 12 && abs(Int(corner.g) - stored.g) < 12 && abs(Int(corner.b) - stored.b) < 12, "\(corner)")
    }

    /// A long TIFF or BigTIFF sent as a file keeps its bytes in place but loses its camera, its date, its
    /// GPS IFD and its GeoTIFF tags (a map's or a drone's position, to the metre); its pixels stay.
    @Test(arguments: [false, true]) func aLongTIFFSentAsAFileLosesWhereItWasMade(big: Bool) throws {
        let input = TIFFBuilder.make(big: big, width: 16, height: 400, extra: TIFFBuilder.privateTags, gps: TIFFBuilder.gpsTags)
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/long.tif"
        try Data(input).write(to: URL(fileURLWithPath: path))
        let (preparer, check) = NothingPrivateTests.sendingLongPicturesAsFiles(into: dir + "/out")
        let verdict = check.check(path: path)
        #expect(verdict.verdict == .afterPreparation && verdict.reasons.last?.hasSuffix("removed (pixels untouched)") == true, "\(verdict.reasons)")
        // A TIFF that is a file for being long is not called a raw DNG (the probe says why a picture is a file).
        #expect(!verdict.reasons.contains { $0.contains("DNG") }, "\(verdict.reasons)")
        let item = preparer.prepare(path: path)
        #expect(item.kind == .file && item.route == .stripped, "\(String(describing: item.error))")
        let out = try FileBytes.read(try #require(item.output))
        #expect(out.count == input.count)
        let tiePoint = TIFFBuilder.privateTags[3].bytes, latitude = TIFFBuilder.gpsTags[1].bytes
        for secret in [Array("TestCam".utf8), Array("Test Phone".utf8), Array("2026:06:01".utf8), Array("Rivoli".utf8), tiePoint, latitude] {
            #expect(input.contains(sequence: secret) && !out.contains(sequence: secret), "\(String(decoding: secret, as: UTF8.self))")
        }
        let rewrite = try #require(MetadataRewrite.tiff(input))
        #expect(rewrite.found.contains(.location) && rewrite.found.contains(.device) && rewrite.found.contains(.dates))
        #expect(try ImageLoader.load(data: out, path: nil).pixels.bytes == TIFFBuilder.pixels(16, 400))
    }

    /// A print TIFF's inks through its own CMYK profile, as a CMYK JPEG's: libtiff's RGBA would have
    /// multiplied 255 − ink by 255 − black (half black as 127 gray) while `check` said the profile was
    /// applied; ImageMagick's SWOP TIFF was 21 levels off on average against Little CMS, 0.97 now.
    @Test func aCMYKTIFFGoesThroughItsProfile() throws {
        let profile = try #require(try JPEGSource(try Fixture.bytes("cmyk-profile.jpg"), isWhole: true).iccProfile)
        let patches: [[UInt8]] = [[255, 0, 0, 0], [0, 255, 0, 0], [0, 0, 255, 0], [0, 0, 0, 128], [0, 0, 0, 0], [60, 40, 40, 10]]
        var inks: [UInt8] = []
        for y in 0..<16 {
            for x in 0..<24 { inks += patches[(y / 8) * 3 + x / 8] }
        }
        let data = TIFFBuilder.make(big: false, width: 24, height: 16, extra: [TIFFBuilder.undefined(34675, profile)], inks: inks)
        let decoded = try ImageLoader.load(data: data, path: nil)
        let throughProfile = try CMYKConverter.toRGB(inks, width: 24, height: 16, profile: profile, adobeInverted: false)
        #expect(decoded.pixels == throughProfile)
        // Half black: the fixture's profile gives 187 gray where the naive product gives 127.
        let halfBlack = decoded.pixels.rgba(x: 0, y: 8)
        #expect(halfBlack.r > 170 && halfBlack.g > 170 && halfBlack.b > 170, "\(halfBlack)")
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(data).write(to: URL(fileURLWithPath: dir + "/print.tif"))
        #expect(SendCheck().check(path: dir + "/print.tif").reasons.contains { $0.hasPrefix("colours converted from") })
        // The same inks without a profile: libtiff's product, and nothing said about colours.
        let plain = try ImageLoader.load(data: TIFFBuilder.make(big: false, width: 24, height: 16, inks: inks), path: nil)
        #expect(plain.pixels.rgba(x: 0, y: 8).g == 127 && plain.iccProfile == nil)
    }

    /// Cut short or lying about its size: an error with its code, nothing sent, no memory taken first.
    @Test func aDamagedOrHostileBigTIFFIsRefused() throws {
        let whole = TIFFBuilder.make(big: true, width: 40, height: 24)
        let ifd = Int(whole[8]) | Int(whole[9]) << 8  // IFD0 at the end, as libtiff writes it
        // Cut inside its directory; cut inside its pixels (no directory at all); a strip said to run past the end.
        for (bytes, what) in [(Array(whole.prefix(ifd + 10)), "cut in its directory"), (Array(whole.prefix(200)), "cut in its pixels"),
                              (TIFFBuilder.make(big: true, width: 40, height: 24, stripAt: whole.count - 100), "a strip past the end")] {
            do {
                _ = try ImageLoader.load(data: bytes, path: nil)
                Issue.record("\(what): decoded")
            } catch let e as MediaPrepError {
                #expect([.truncated, .corrupt].contains(e.code) && e.message.hasPrefix("TIFF data is damaged: "), "\(what): \(e)")
            }
        }
        // 100,000 × 100,000 claimed over 2,880 bytes of pixels: refused from the header.
        let claims = TIFFBuilder.make(big: true, width: 40, height: 24, claimed: (100_000, 100_000))
        #expect(throws: MediaPrepError(.tooManyPixels, "100000×100000 is over the 100000000-pixel limit")) {
            try ImageLoader.load(data: claims, path: nil)
        }
    }
}

/// DNG (phones' raw modes, cameras, Adobe's converter): its first directory is a thumbnail, so the
/// largest image libtiff renders among its SubIFDs is decoded. Before, an 8×6 thumbnail went out for a
/// photo with a full-size preview inside.
@Suite struct DNGTests {
    @Test func theLargestPreviewIsDecodedNotTheThumbnail() throws {
        let decoded = try TIFFDecoder.decode(TIFFBuilder.dng())
        #expect(decoded.pixels.width == 32 && decoded.pixels.height == 24)
        #expect(decoded.pixels.layout == .rgb && decoded.pixels.bytes == TIFFBuilder.pixels(32, 24))
        // The first directory's orientation holds for the preview too.
        let turned = try TIFFDecoder.decode(TIFFBuilder.dng(orientation: 6))
        #expect(turned.orientation == .right && turned.pixels.width == 32)

        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(TIFFBuilder.dng(orientation: 6)).write(to: URL(fileURLWithPath: dir + "/raw.dng"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/raw.dng")
        #expect(item.kind == .image && item.width == 24 && item.height == 32, "\(String(describing: item.error))")
    }

    /// Without a preview the thumbnail is what there is. Sensor data LibRaw cannot render (here: no
    /// CFA pattern) goes as a document, its camera, date and GPS zeroed (before: refused as damaged).
    @Test func withoutAPreviewTheThumbnailAndWithoutEitherAFile() throws {
        let thumbnail = try TIFFDecoder.decode(TIFFBuilder.dng(preview: false))
        #expect(thumbnail.pixels.width == 8 && thumbnail.pixels.height == 6)
        #expect(throws: TIFFDecoder.rawOnly) { try TIFFDecoder.decode(TIFFBuilder.dng(thumbnail: false)) }

        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var raw = TIFFBuilder.dng(thumbnail: false)
        let tags = [TIFFBuilder.ascii(271, "TestCam"), TIFFBuilder.ascii(306, "2026:06:01 10:00:00")]
        // The same sensor data with a camera and a date in its only directory.
        raw = { var out = Array(raw.prefix(8)) + Array(raw[8..<(8 + 16 * 12)])
            let cfa = [TIFFBuilder.long(256, [16]), TIFFBuilder.long(257, [12]), TIFFBuilder.short(258, [8]), TIFFBuilder.short(259, [1]),
                       TIFFBuilder.short(262, [32803]), TIFFBuilder.long(273, [8]), TIFFBuilder.short(277, [1]), TIFFBuilder.long(278, [12]),
                       TIFFBuilder.long(279, [16 * 12]), TIFFBuilder.short(284, [1]),
                       TIFFBuilder.Entry(tag: 50706, type: 1, count: 4, bytes: [1, 4, 0, 0])] + tags
            let first = TIFFBuilder.ifd(cfa, into: &out)
            out.replaceSubrange(4..<8, with: TIFFBuilder.le(first, 4))
            return out }()
        try Data(raw).write(to: URL(fileURLWithPath: dir + "/sensor.dng"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/sensor.dng")
        let out = try FileBytes.read(try #require(item.output, "\(String(describing: item.error))"))
        #expect(item.kind == .file && item.route == .stripped && out.count == raw.count)
        #expect(!out.contains(sequence: Array("TestCam".utf8)) && !out.contains(sequence: Array("2026:06:01".utf8)))
        #expect(SendCheck().check(path: dir + "/sensor.dng").reasons.first?.hasPrefix("a DNG of raw sensor data only") == true)
    }

    /// Four quadrants: red, green, blue, and a light gray.
    static func quadrant(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (Int, Int, Int) {
        switch (x < w / 2, y < h / 2) {
        case (true, true): (200, 40, 40)
        case (false, true): (40, 200, 40)
        case (true, false): (40, 40, 200)
        case (false, false): (180, 180, 180)
        }
    }

    /// Sensor data alone (Android's DngCreator without a thumbnail) is demosaiced by LibRaw and goes
    /// as a picture, upright, with nothing of its tags; before, it went as a file no chat shows.
    @Test(arguments: [1, 6]) func aDNGOfSensorDataAloneIsDemosaicedIntoAPicture(orientation: Int) throws {
        let (w, h) = (64, 48)
        let raw = TIFFBuilder.rawDNG(width: w, height: h, orientation: orientation) { Self.quadrant($0, $1, w, h) }
        #expect(throws: TIFFDecoder.rawOnly) { try TIFFDecoder.decode(raw) }
        let decoded = try RawDecoder.decode(raw, options: DecodeOptions())
        let turned = orientation == 6
        #expect((decoded.pixels.width, decoded.pixels.height) == (turned ? (h, w) : (w, h)) && decoded.orientation == .up)
        // Each quadrant's middle, where it was once turned (orientation 6: a quarter turn clockwise).
        for (qx, qy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (sx, sy) = (qx * w / 2 + w / 4, qy * h / 2 + h / 4)
            let (x, y) = turned ? (h - 1 - sy, sx) : (sx, sy)
            let got = decoded.pixels.rgba(x: x, y: y)
            let want = Self.quadrant(sx, sy, w, h)
            // LibRaw brightens to its own white point, so the channels' order is what is held, and their distance.
            let channels = [Int(got.r), Int(got.g), Int(got.b)], wanted = [want.0, want.1, want.2]
            #expect(channels.firstIndex(of: channels.max() ?? 0) == wanted.firstIndex(of: wanted.max() ?? 0) || Set(wanted).count == 1,
                    "quadrant \(qx),\(qy): \(channels) for \(wanted)")
            #expect(Set(wanted).count > 1 ? (channels.max() ?? 0) - (channels.min() ?? 0) > 80 : (channels.max() ?? 0) - (channels.min() ?? 0) < 24,
                    "quadrant \(qx),\(qy): \(channels) for \(wanted)")
        }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(raw).write(to: URL(fileURLWithPath: dir + "/sensor.dng"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/sensor.dng")
        #expect(item.kind == .image && (item.width, item.height) == (turned ? (h, w) : (w, h)), "\(String(describing: item.error))")
        let out = try FileBytes.read(try #require(item.output))
        // Flat quadrants go as a lossless PNG, a photo as JPEG: either way re-encoded pixels alone.
        #expect([.jpeg, .png].contains(FormatSniffer.sniff(out)))
        #expect(!out.contains(sequence: Array("TestCam".utf8)) && !out.contains(sequence: Array("2026:06:01".utf8)))
        #expect(SendCheck().check(path: dir + "/sensor.dng").reasons.first?.hasPrefix("a DNG of raw sensor data, demosaiced by LibRaw") == true)
    }

    /// LibRaw 0.20 dies of SIGSEGV in its directory parser when a DNG's CFAPattern claims 36 bytes (one
    /// changed byte, found by mutating DNGs): it runs in a child process, so the file is refused as
    /// damaged and the batch goes on. (A LibRaw without that bug refuses it otherwise, or renders it.)
    @Test func aDNGThatCrashesLibRawIsRefusedNotTheProcess() throws {
        var raw = TIFFBuilder.rawDNG(width: 64, height: 48) { Self.quadrant($0, $1, 64, 48) }
        let ifd = Int(raw[4]) | Int(raw[5]) << 8 | Int(raw[6]) << 16 | Int(raw[7]) << 24
        let count = Int(raw[ifd]) | Int(raw[ifd + 1]) << 8
        let entry = try #require((0..<count).map { ifd + 2 + 12 * $0 }.first { Int(raw[$0]) | Int(raw[$0 + 1]) << 8 == 33422 })
        raw[entry + 4] = 36  // CFAPattern: 36 bytes where there are 4
        do {
            _ = try RawDecoder.decode(raw, options: DecodeOptions())
        } catch let e as MediaPrepError {
            #expect([.corrupt, .unsupportedFormat, .decodeFailed].contains(e.code), "\(e)")
        }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(raw).write(to: URL(fileURLWithPath: dir + "/crash.dng"))
        try Data(TIFFBuilder.rawDNG(width: 64, height: 48) { Self.quadrant($0, $1, 64, 48) }).write(to: URL(fileURLWithPath: dir + "/good.dng"))
        let items = [dir + "/crash.dng", dir + "/good.dng"].map { AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: $0) }
        #expect(items[0].error != nil || items[0].kind == .file || items[0].kind == .image)
        #expect(items[1].kind == .image && items[1].error == nil)
    }

    /// Camera raws in their makers' own formats are told by their magic (CR2 was taken for a TIFF, CR3
    /// for an MP4 and refused as holding no video, ORF, RW2 and RAF for unknown files sent with their
    /// GPS). Each goes to LibRaw; one it cannot read is refused, never sent with its metadata.
    @Test func cameraRawsAreToldAndNeverLeaveAsTheyAre() throws {
        func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
        let cr2 = [0x49, 0x49, 0x2A, 0x00, 0x10, 0, 0, 0] + bytes("CR") + [2, 0]
        let cr3 = [0, 0, 0, 0x18] + bytes("ftypcrx ") + [0, 0, 0, 1] + bytes("crx isom")
        let magics: [[UInt8]] = [cr2, cr3, bytes("IIRO\u{08}\0\0\0"), bytes("MMOR\0\0\0\u{08}"), [0x49, 0x49, 0x55, 0x00, 0x08, 0, 0, 0],
                                 bytes("FUJIFILMCCD-RAW 0201FF383501"),
                                 [0x49, 0x49, 0x2A, 0x00, 0x08, 0x0A, 0, 0] + bytes("IIIICwaR"),  // Phase One IIQ
                                 [0x49, 0x49, 0x1A, 0, 0, 0] + bytes("HEAPCCDR"),  // Canon CRW
                                 [0x00] + bytes("MRM") + [0, 0, 0x0A, 0x0C],  // Minolta MRW
                                 bytes("FOVb") + [2, 0, 2, 0]]  // Sigma X3F
        for m in magics { #expect(FormatSniffer.sniff(m + [UInt8](repeating: 0, count: 64)) == .cameraRaw, "\(m.prefix(12))") }
        #expect(FormatSniffer.sniff(bytes("FOVbased rendering: notes")) == .unknown)  // text, not a Sigma raw
        #expect(FormatSniffer.sniff(TIFFBuilder.make(big: false, width: 4, height: 4)) == .tiff)
        #expect(MediaFormat.cameraRaw.isImage)

        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Not a raw LibRaw reads, with a location in it: refused, and nothing written.
        let fake = bytes("IIRO\u{08}\0\0\0") + bytes("GPS 48.8583 N 2.2945 E TestCam serial 0042") + [UInt8](repeating: 0, count: 4096)
        try Data(fake).write(to: URL(fileURLWithPath: dir + "/photo.orf"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/photo.orf")
        #expect(item.output == nil && item.error != nil, "\(String(describing: item.output))")
        #expect(item.error?.message.contains("metadata") == true, "\(String(describing: item.error))")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out")) ?? []).isEmpty)
        #expect(SendCheck().check(path: dir + "/photo.orf").verdict == .cannotSend)
    }

    /// A raw laid out as a TIFF that is no DNG (Nikon's NEF, Sony's ARW, Pentax's PEF) holds a thumbnail
    /// libtiff renders and sensor data in a SubIFD: it was sent as its 8×6 thumbnail. It goes to LibRaw
    /// now, and one LibRaw cannot read (this made-up one) is refused, as any camera raw.
    @Test func aTIFFShapedCameraRawIsNotSentAsItsThumbnail() throws {
        let nef = TIFFBuilder.dng(preview: false, dngVersion: false)
        #expect(throws: TIFFDecoder.cameraRaw) { try TIFFDecoder.decode(nef) }
        #expect(try TIFFDecoder.decode(TIFFBuilder.dng(preview: false)).pixels.width == 8)  // a DNG still shows its thumbnail
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(nef).write(to: URL(fileURLWithPath: dir + "/photo.nef"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/photo.nef")
        #expect(item.output == nil || (item.width ?? 0) > 8, "sent as \(String(describing: item.width))×\(String(describing: item.height))")
        if let e = item.error { #expect(e.message.contains("camera raw"), "\(e)") }
        let verdict = SendCheck().check(path: dir + "/photo.nef")
        #expect(verdict.verdict == .cannotSend ? verdict.reasons.contains { $0.contains("camera raw") } : verdict.reasons.first?.hasPrefix("a camera raw photo") == true,
                "\(verdict.reasons)")
    }

    /// The probe (and so `check`) opens a raw photo for its sizes alone; the demosaic waits for
    /// `prepare`, and the batch's pixel budget is charged what it will hold. Before, the probe
    /// demosaiced it, outside the budget, and reported the halved picture's size.
    @Test(arguments: [1, 6]) func theProbeReadsARawsSizesAndPrepareDemosaicsIt(orientation: Int) throws {
        let (w, h) = (3400, 2000)
        let raw = TIFFBuilder.rawDNG(width: w, height: h, orientation: orientation) { Self.quadrant($0, $1, w, h) }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(raw).write(to: URL(fileURLWithPath: dir + "/sensor.dng"))
        let source = try MediaProbe.source(path: dir + "/sensor.dng")
        let turned = orientation == 6
        #expect(source.firstFrame == nil && source.demosaiced)
        #expect((source.probe.width, source.probe.height) == (turned ? (h, w) : (w, h)) && source.probe.kind == .image)
        // Halved on load: the sensor's 2 bytes a sample and 14 bytes a pixel of the 1700×1000 picture.
        #expect(source.decodedPixels(profile: .simplex) == w * h / 2 + 1700 * 1000 * 14 / 4)
        let prepared = try ImagePreparer().prepare(source: source)
        // Four flat quadrants: a lossless PNG at the halved decode's own size, turned upright.
        #expect((prepared.width, prepared.height) == (turned ? (1000, 1700) : (1700, 1000)) && prepared.format == .png,
                "\(prepared.width)×\(prepared.height) \(prepared.format)")
        // Bytes handed over in memory (the library's `prepare(data:)`) take the same way.
        let fromMemory = try ImagePreparer().prepare(data: raw, path: nil)
        #expect((fromMemory.width, fromMemory.height) == (prepared.width, prepared.height))
    }

    /// LibRaw's process is held to what its demosaic should need (`RLIMIT_DATA` over what it was forked
    /// with): an allocation past it fails in its process, never the machine's.
    @Test func libRawsProcessIsHeldToItsMemoryAllowance() throws {
        let raw = TIFFBuilder.rawDNG(width: 3400, height: 2000) { Self.quadrant($0, $1, 3400, 2000) }
        let child = try RawDecoder.childMemory(raw, allowance: 8 << 20)
        #expect(child.forkedWith > 0 && child.limit == child.forkedWith + (8 << 20), "\(child)")
        let header = try RawDecoder.header(raw, maxPixels: 100_000_000)
        #expect(RawDecoder.memoryAllowance(header, half: true) == 2 * (3400 * 2000 * 2 + 1700 * 1000 * 11) + (256 << 20))
        #expect(try RawDecoder.decode(raw, header: header, options: DecodeOptions()).pixels.width == 1700)
    }

    /// LibRaw reads zeros past the end of a raw's data and renders them: exiftool's own samples (real
    /// makers' headers, the sensor data stripped) went out black (CR3), white (NEF) or striped (RW2).
    /// A raw that cannot hold a bit a sample of its sensor is refused as cut off, before any demosaic.
    @Test func aRawTooSmallForItsSensorIsRefusedAsCutOff() throws {
        var raw = TIFFBuilder.rawDNG(width: 64, height: 48) { Self.quadrant($0, $1, 64, 48) }
        let ifd = Int(raw[4]) | Int(raw[5]) << 8 | Int(raw[6]) << 16 | Int(raw[7]) << 24
        let count = Int(raw[ifd]) | Int(raw[ifd + 1]) << 8
        for (tag, value) in [(256, 3400), (257, 2000), (278, 2000)] {  // the header says 3400×2000; 6 KB of data follow
            let entry = try #require((0..<count).map { ifd + 2 + 12 * $0 }.first { Int(raw[$0]) | Int(raw[$0 + 1]) << 8 == tag })
            raw.replaceSubrange((entry + 8)..<(entry + 12), with: TIFFBuilder.le(value, 4))
        }
        #expect(throws: MediaPrepError.self) { try RawDecoder.header(raw, maxPixels: 100_000_000) }
        do { _ = try RawDecoder.header(raw, maxPixels: 100_000_000) } catch let e as MediaPrepError {
            #expect(e.code == .truncated, "\(e)")
        }
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(raw).write(to: URL(fileURLWithPath: dir + "/cut.dng"))
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: dir + "/cut.dng")
        #expect(item.output == nil && item.error != nil, "sent as \(String(describing: item.kind))")
        #expect(SendCheck().check(path: dir + "/cut.dng").verdict == .cannotSend)
        // A whole one holds 12 bits a sample.
        #expect(try RawDecoder.header(TIFFBuilder.rawDNG(width: 64, height: 48) { Self.quadrant($0, $1, 64, 48) }, maxPixels: 100_000_000).width == 64)
    }

    /// Shrunk on load as a JPEG is: a mosaic twice the view on both sides is read a 2×2 block a pixel.
    @Test func aLargeMosaicIsHalvedOnLoadWhileItKeepsTheView() throws {
        let raw = TIFFBuilder.rawDNG(width: 3400, height: 2000) { Self.quadrant($0, $1, 3400, 2000) }
        let decoded = try RawDecoder.decode(raw, options: DecodeOptions())
        #expect((decoded.pixels.width, decoded.pixels.height) == (1700, 1000))
        // Held to the pixel limit before any sample is read.
        #expect(throws: MediaPrepError.self) { try RawDecoder.decode(raw, options: DecodeOptions(maxPixels: 3400 * 1999)) }
        #expect(throws: MediaPrepError.self) { try RawDecoder.decode(Array(raw.prefix(raw.count / 2)), options: DecodeOptions()) }
    }
}

/// A TIFF too large to be sent at its own size is halved on load a band of rows at a time, never held
/// whole (a 12 KB 10000×10000 1-bit TIFF took 686 MB in `check` and 703 MB in `prepare`), and `probe`
/// and `check` read its tags alone.
@Suite struct TIFFShrinkOnLoadTests {
    /// A `width`×`height` 1-bit TIFF in one strip (the hard case: libtiff decodes a strip from its
    /// start for each band): its left half black, its right half white.
    static func bilevel(width: Int, height: Int) -> [UInt8] {
        let rowBytes = width / 8
        let row = [UInt8](repeating: 0, count: rowBytes / 2) + [UInt8](repeating: 0xFF, count: rowBytes - rowBytes / 2)
        let entries: [(Int, Int, Int)] = [(256, 4, width), (257, 4, height), (258, 3, 1), (259, 3, 1), (262, 3, 1), (273, 4, 0),
                                          (277, 3, 1), (278, 4, height), (279, 4, rowBytes * height)]
        let dataAt = 8 + 2 + 12 * entries.count + 4
        var out = Array("II".utf8) + TIFFBuilder.le(42, 2) + TIFFBuilder.le(8, 4) + TIFFBuilder.le(entries.count, 2)
        for (tag, type, value) in entries {
            out += TIFFBuilder.le(tag, 2) + TIFFBuilder.le(type, 2) + TIFFBuilder.le(1, 4)
            out += type == 3 ? TIFFBuilder.le(value, 2) + [0, 0] : TIFFBuilder.le(tag == 273 ? dataAt : value, 4)
        }
        out += [0, 0, 0, 0]
        for _ in 0..<height { out += row }
        return out
    }

    @Test func itIsHalvedABandAtATime() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Fixture.write(Self.bilevel(width: 6000, height: 4000), "scan.tif", in: dir)
        let source = try MediaProbe.source(path: path, depth: .headers(wholeUpTo: 0))
        #expect(source.tiff != nil && source.firstFrame == nil && source.probe.width == 6000 && !source.probe.hasAlpha)
        var options = DecodeOptions()
        (options.minimumWidth, options.minimumHeight) = (1600, 1067)
        let shrunk = try TIFFDecoder.decode(try InputFile(path), options: options)
        #expect(shrunk.pixels.width == 3000 && shrunk.pixels.height == 2000 && shrunk.sourceWidth == 6000)
        #expect(shrunk.pixels.rgba(x: 10, y: 10).r == 0 && shrunk.pixels.rgba(x: 1499, y: 1999).r == 0)
        #expect(shrunk.pixels.rgba(x: 1500, y: 0).r == 255 && shrunk.pixels.rgba(x: 2999, y: 1000).g == 255)
        // Without a minimum, as before: whole.
        #expect(try TIFFDecoder.decode(try InputFile(path)).pixels.width == 6000)
        let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
        #expect(item.error == nil && (item.width ?? 0) * (item.height ?? 0) <= ImageProfile.simplex.maxSentPixels && item.format == .jpeg)
        let out = try ImageLoader.load(path: try #require(item.output))
        #expect(out.pixels.rgba(x: 5, y: 5).r < 20 && out.pixels.rgba(x: out.pixels.width - 5, y: 5).r > 235)
    }
}

/// What LibRaw cannot read is found by `check` as by `prepare`: a tiled uncompressed DNG opens but its
/// sensor data does not unpack (`check` said it goes), and a DNG LibRaw does not take at all goes as a
/// file in `probe` as in `check` and `prepare` (`probe` said it was refused).
@Suite struct RawAdmissionTests {
    @Test func checkAndPrepareAgreeOnWhatLibRawReads() throws {
        let dir = try Fixture.scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plain = try Fixture.write(TIFFBuilder.rawDNG(width: 64, height: 48) { x, _ in (x * 4, 128, 255 - x * 4) }, "plain.dng", in: dir)
        let tiled = try Fixture.write(TIFFBuilder.rawDNG(width: 64, height: 48, tile: 16) { x, _ in (x * 4, 128, 255 - x * 4) }, "tiled.dng", in: dir)
        for path in [plain, tiled] {
            let check = SendCheck().check(path: path)
            let item = AttachmentPreparer(outputDirectory: dir + "/out", timestamp: 0).prepare(path: path)
            var probe: MediaPrepError.Code? = nil
            do { _ = try MediaProbe.probe(path: path) } catch let e as MediaPrepError { probe = e.code }
            #expect(check.error?.code == item.error?.code && probe == item.error?.code, "\(path): \(String(describing: check.error)) \(String(describing: item.error))")
            #expect((check.verdict == .cannotSend) == (item.error != nil))
        }
    }
}

import CJpeg
import FoundationEssentials
import Glibc
import UploadPlanner

/// One call per parser that sees untrusted bytes, for the libFuzzer targets in `Fuzz/`
/// (`scripts/fuzz.sh`). Each swallows typed errors: only a crash, a hang or a leak is a finding.
@_spi(Fuzz) public enum FuzzEntryPoints {
    /// Small enough that libFuzzer's 2 GB RSS limit is never the finding.
    static let pixels = 4_000_000

    public static func sniff(_ d: [UInt8]) {
        _ = FormatSniffer.sniff(d)
        _ = JPEGMarkers(d).metadataSegments(in: d)
        _ = PNGHeader.size(d)
        _ = LinkFinder.candidates(in: String(decoding: d, as: UTF8.self))
        _ = HTMLHead(bytes: d, contentType: nil)
    }

    public static func exif(_ d: [UInt8]) {
        _ = ExifOrientation.fromTIFF(d[...])
        _ = PictureMetadata.hasGPS(d[...])
        // The same bytes as the body of a JPEG's APP1 block.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(truncatingIfNeeded: (d.count + 8) >> 8), UInt8(truncatingIfNeeded: d.count + 8)]
            + Array("Exif\0\0".utf8) + d.prefix(65_000) + [0xFF, 0xD9]
        _ = ExifOrientation.fromJPEG(jpeg)
        _ = PictureMetadata(jpeg: jpeg)
    }

    public static func jpeg(_ d: [UInt8]) {
        guard let h = try? JPEGHeader(d) else { return }
        // The checks every plan makes before decoding: a refused header is never decoded.
        let scaled = JPEGDecoder.decodedSize(h, options: DecodeOptions(minimumWidth: 64, minimumHeight: 64))
        guard (try? JPEGDecoder.checkHeader(h, fileBytes: d.count, decoded: scaled.width * scaled.height, limit: pixels)) != nil,
              h.width * h.height <= pixels * 4 else { return }
        if let small = try? JPEGDecoder.decode(d, options: DecodeOptions(maxPixels: pixels, minimumWidth: 64, minimumHeight: 64)).pixels {
            // A hill-climb candidate, scaled straight into planes in bands on two threads, at any shape.
            _ = try? Resizer.resizeToPlanes(small, width: max(1, small.width * 3 / 4), height: max(1, small.height * 3 / 4 + 1),
                                            fullChroma: small.width % 2 == 0, threads: 2)
            _ = try? Resizer.resize(small, width: max(1, small.width / 3), height: max(1, small.height * 2 / 3), threads: 2)
        }
        // On two threads: a progressive file's luma and chroma scans decoded at once (ProgressiveSplit).
        var split = DecodeOptions(maxPixels: pixels)
        split.threads = 2
        _ = try? JPEGDecoder.decode(d, options: split)
        // Halved by Lanczos from raw planes (PlaneHalving), on both sides of the band ring: a DCT
        // scale of 1/2 for anything from 32×32 (the seeds are 64×48).
        var halved = DecodeOptions(maxPixels: pixels, minimumWidth: 16, minimumHeight: 16)
        (halved.threads, halved.lanczosShrink) = (2, true)
        _ = try? JPEGDecoder.decode(d, options: halved)
        // The same with the view and the climb's candidates made beside it (PlanesBeside), of any shape.
        if let h = try? JPEGHeader(d) {
            let (w, ht) = JPEGDecoder.decodedSize(h, options: halved)
            let sides = [ClimbSize(long: max(w, ht), width: w, height: ht),
                         ClimbSize(long: 1, width: max(1, w * 4 / 5 | 1), height: max(1, ht * 4 / 5 | 1))]
            _ = try? JPEGDecoder.decodeWhileResizing(d, options: halved, candidates: sides) { w, h in (max(1, w / 2 + 1), max(1, h / 3)) }
        }
        _ = try? JPEGDecoder.decode(d, options: DecodeOptions(maxPixels: pixels), lumaOnly: true)
        // From the file as it goes (the shim's file source, as `prepare` reads a large baseline file),
        // its head ending anywhere: one file a process, rewritten each run.
        if let parsed = try? JPEGSource(d) {
            let path = "/tmp/mediaprep-fuzz-\(getpid()).jpg"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            let written = fd >= 0 && PosixIO.writeAll(fd, d)
            if fd >= 0 { close(fd) }
            if written, let file = try? InputFile(path) {
                _ = try? JPEGDecoder.decode(Array(d.prefix(d.count / 3)), file: file, parsed: parsed,
                                            options: DecodeOptions(maxPixels: pixels, minimumWidth: 16, minimumHeight: 16))
            }
            unlink(path)
        }
        for o in ExifOrientation.allCases { _ = try? JPEGRotator.upright(d, orientation: o) }
        _ = JPEGStripper.strip(d)
        // Whole: the walk through the scans to EOI, and the strip that cuts at it.
        if let whole = try? JPEGSource(d, isWhole: true), let out = JPEGStripper.strip(d, markers: whole.markers, tail: whole.tail) {
            precondition(out.count <= d.count + 2, "a strip never grows a file")
        }
    }

    public static func png(_ d: [UInt8]) {
        _ = PNGHeader.decodeCost(d)
        if let stripped = PNGStripper.strip(d) {
            // What `check` reports comes from the walk the stripper cuts by.
            precondition(PictureMetadata(png: d).changesFile == (stripped != d), "check and the stripper disagree on a PNG")
        }
        if let (w, h) = PNGHeader.size(d), w * h > pixels { return }
        if let p = try? PNGDecoder.decode(d, options: DecodeOptions(maxPixels: pixels)).pixels {
            // Scaled a band at a time on two threads (`BandedScale`), in whatever layout it came.
            _ = try? Resizer.resize(p, width: max(1, p.width * 2 / 3), height: max(1, p.height * 3 / 4 + 1), threads: 2)
        }
        // Scaled beside its rows, the decoder taking rows over when it finishes first (`RowPipeline`).
        if let r = try? PNGDecoder.decodeWhileResizing(d, options: DecodeOptions(maxPixels: pixels), to: { w, h in (max(1, w / 2), max(1, h / 2)) }) {
            _ = try? r.scaled?.pixels()
        }
        // Shrink-on-load, both sides of the band ring: to a third and to a quarter of the size.
        _ = try? PNGDecoder.decodeShrinking(d, options: DecodeOptions(maxPixels: pixels)) { w, h in
            ((max(1, w / 3), max(1, h / 3)), (max(1, w / 4), max(1, h / 4)))
        }
    }

    /// Whether a measured quality (`JPEGMeasure`) is what libjpeg writes for whatever `d` decodes to:
    /// its tables give the same file in one pass, and the file is the measure plus its stuffed zeros.
    /// The quality and the chroma layout come from the input's last bytes. The fuzz target traps otherwise.
    public static func jpegMeasureAgrees(_ d: [UInt8]) -> Bool {
        guard let h = try? JPEGHeader(d), h.width * h.height <= pixels,
              let image = try? JPEGDecoder.decode(d, options: DecodeOptions(maxPixels: pixels, minimumWidth: 64, minimumHeight: 64)).pixels,
              let encoder = try? JPEGEncoder() else { return true }
        let quality = Int(d.last ?? 0) % 100 + 1
        guard let planes = try? encoder.planes(image, fullChroma: (d.dropLast().last ?? 0) & 1 == 1),
              let m = try? JPEGEncoder.measure(planes, quality: quality),
              let twoPass = try? encoder.encode(planes, quality: quality),
              let onePass = try? encoder.encode(planes, quality: quality, tables: m.tables) else { return false }
        // Measured together with a neighbour, on two threads (the DCT once, the rows split): the same.
        let other = quality < 100 ? quality + 1 : quality - 1
        guard let together = try? JPEGEncoder.measure(planes, qualities: [other, quality], threads: 2),
              together.count == 2, together[1].lower == m.lower, together[1].dataBytes == m.dataBytes else { return false }
        // And written in two parts joined at the bit (`JPEGEncoder.encodeSplit`): the same file.
        if let split = together[1].split {
            guard let parts = try? JPEGEncoder.encodeSplit(planes, measured: together[1], split), parts == twoPass else { return false }
        }
        return onePass == twoPass && m.lower + Self.stuffedZeros(twoPass) == twoPass.count
    }

    /// Whether `cjpeg_optimal_table` builds libjpeg's table from these 257 counts, and that table's
    /// longest code; nil when libjpeg fails on them (a code longer than 32 bits).
    static func optimalTableMatchesLibjpeg(_ counts: [Int]) -> (same: Bool, longest: Int)? {
        guard counts.count == 257 else { return (false, 0) }
        var ours = cjpeg_tables(), theirs = cjpeg_tables()
        let c = counts.map { CLong($0) }
        let rc = c.withUnsafeBufferPointer { cjpeg_optimal_table_check($0.baseAddress, &ours, &theirs) }
        if rc < 0 { return nil }
        let bits = withUnsafeBytes(of: theirs.bits.0) { Array($0) }
        return (rc == 1, bits.lastIndex { $0 > 0 } ?? 0)
    }

    /// Whether our two-block DCT gives libjpeg's integers for blocks `a` and `b` (64 bytes each).
    static func dctMatchesLibjpeg(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == 64, b.count == 64 else { return false }
        return a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in cjpeg_dct_agrees(pa.baseAddress, pb.baseAddress) == 1 } }
    }

    /// The zero bytes stuffed after each 0xFF of a baseline file's one scan (after its SOS, before EOI).
    static func stuffedZeros(_ jpeg: [UInt8]) -> Int {
        guard jpeg.count > 4, let sos = (0..<(jpeg.count - 3)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }) else { return -1 }
        let start = sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
        guard start < jpeg.count - 2 else { return -1 }
        var n = 0
        for i in start..<(jpeg.count - 3) where jpeg[i] == 0xFF && jpeg[i + 1] == 0x00 { n += 1 }
        return n
    }

    /// Whether the row reader's outcome with the image data inflated at once (libdeflate, read back as
    /// stored blocks) is consistent with libpng inflating as it reads, on `d` with its CRCs made right
    /// (else the first way is never taken): pixels libpng gives must come out the same, and a failure
    /// the first way must be one libpng has too. (libdeflate may accept a stream zlib refuses: such a
    /// PNG is never sent as it is, see `DecodeOptions.sentAsItIs`.) The fuzz target traps otherwise.
    public static func pngInflateAgrees(_ d: [UInt8]) -> Bool {
        guard let (w, h) = PNGHeader.size(d), w * h <= pixels else { return true }
        let fixed = PNGChunks.fixingCRCs(d)
        func outcome(_ first: Bool) -> String {
            do {
                let rows = try PNGRowReader.with(fixed, inflateFirst: first, minimumInflated: 0) { r -> [UInt8] in
                    var band = [UInt8](repeating: 0, count: r.width * r.channels * r.height)
                    try band.withUnsafeMutableBufferPointer { b in
                        if let base = b.baseAddress { try r.read(r.height, intoBand: base) }
                    }
                    try r.finish()
                    return band
                }
                return rows.map { "\($0.count) \($0.hashValue)" } ?? "declined"
            } catch {
                return "failed \((error as? MediaPrepError)?.code.rawValue ?? "")"
            }
        }
        let first = outcome(true), usual = outcome(false)
        if usual.hasPrefix("failed") { return !first.hasPrefix("failed") || first == usual }
        return first == usual
    }

    /// HEIC/HEIF/AVIF through libheif: brands, boxes, colour, Exif and the decode itself.
    public static func heif(_ d: [UInt8]) {
        _ = try? HEIFDecoder.decode(d, format: .heic, maxPixels: pixels)
    }

    /// Whether the header alone (what probing reads) says what the decode then gives: orientation and
    /// alpha. The fuzz target traps otherwise.
    public static func heifHeaderAgrees(_ d: [UInt8]) -> Bool {
        guard let r = try? HEIFDecoder.decode(d, format: .heic, maxPixels: pixels) else { return true }
        guard let h = try? HEIFDecoder.header(d, format: .heic, maxPixels: pixels) else { return false }
        return h.orientation == r.orientation && h.hasAlpha == (r.pixels.layout == .rgba)
    }

    public static func jxl(_ d: [UInt8]) {
        _ = try? JXLDecoder.decode(d, maxPixels: pixels)
    }

    /// Whether the header alone gives the size the decode shows. The fuzz target traps otherwise.
    public static func jxlHeaderAgrees(_ d: [UInt8]) -> Bool {
        guard let r = try? JXLDecoder.decode(d, maxPixels: pixels) else { return true }
        guard let h = try? JXLDecoder.header(d, maxPixels: pixels) else { return false }
        return h.width == r.image.pixels.width && h.height == r.image.pixels.height && h.hasAlpha == (r.image.pixels.layout == .rgba)
    }

    /// Animated WebP through libwebpdemux (every frame composed), a still one through libwebp (whole and
    /// shrunk on load), its RIFF chunks, APNG/GIF headers, and the GIF and PNG metadata strippers
    /// (every GIF and PNG passes through them).
    public static func webp(_ d: [UInt8]) {
        _ = PictureMetadata(webp: d)
        _ = WebPChunks.iccProfile(d)
        if !WebPAnimation.isAnimated(d) {
            var options = DecodeOptions(maxPixels: pixels)
            _ = try? WebPDecoder.decode(d, options: options)
            (options.minimumWidth, options.minimumHeight) = (8, 8)
            _ = try? WebPDecoder.decode(d, options: options)
        }
        _ = AnimationHeaders.apng(d)
        _ = AnimationHeaders.gifPlays(d)
        if let stripped = GIFStripper.strip(d), let before = GIFBlocks.walk(d) {
            // What goes out walks to its trailer, every frame kept.
            let after = GIFBlocks.walk(stripped.data)
            precondition(after?.end == .trailer(stripped.data.count - 1) && after?.frames == before.frames, "a stripped GIF lost its shape")
        }
        guard let a = try? WebPAnimation(d, maxPixels: pixels) else { return }
        var frames = 0
        try? a.forEachFrame { _, _ in frames += 1 }
    }

    /// TIFF and BigTIFF through libtiff (from memory, and its orientation), a DNG of sensor data alone
    /// through LibRaw as the probe hands it on, and the in-place rewrite of their IFDs, which never moves a byte.
    public static func tiff(_ d: [UInt8]) {
        do { _ = try TIFFDecoder.decode(d, options: DecodeOptions(maxPixels: pixels)) } catch let e as MediaPrepError where e == TIFFDecoder.rawOnly || e == TIFFDecoder.cameraRaw {
            _ = try? RawDecoder.decode(d, options: DecodeOptions(maxPixels: pixels))
        } catch {}
        _ = TIFFReader(d[...])?.ifd0Entries
        if let rewrite = MetadataRewrite.tiff(d) { precondition(rewrite.outputSize == d.count, "a TIFF rewrite changed the file's size") }
    }

    public static func container(_ d: [UInt8]) {
        // The structure checks the probe runs before FFmpeg: they only ever refuse, never trap.
        let reader = ByteReader(d)
        _ = try? ContainerEnd.isoBMFF(d)
        _ = try? ContainerEnd.riff(d)
        _ = try? ContainerEnd.png(d)
        _ = try? ContainerEnd.matroska(reader)
        _ = try? ContainerEnd.ogg(reader)
        _ = try? ContainerEnd.wavData(reader)
        _ = try? ContainerEnd.oggPages(reader, maxPages: 1_000)
        _ = try? ContainerEnd.flacFrames(reader)
        _ = try? ContainerEnd.mp3Stream(reader)
        for format in [MediaFormat.ac3, .eac3, .dts] { _ = try? ContainerEnd.frameStream(reader, format: format) }
        _ = GIFBlocks.walk(d)
        _ = H264Interlacing.isInterlaced(avcC: d)
        _ = H264Interlacing.frameMBsOnly(sps: d)
        guard !d.isEmpty, var r = try? MediaProbe.probeAV(data: d) else { return }
        if r.kind == .video, let input = try? MediaInput(data: d) {
            var t = VideoThumbnailer(maxSide: 64)
            t.maxDecodedFrames = 20
            _ = try? t.thumbnail(input: input, path: "fuzz")
        }
        r.path = ""
    }

    /// The metadata walkers over every container they rewrite (MP4/MOV box tree, Matroska elements,
    /// ID3/APE/Lyrics3, FLAC blocks, RIFF chunks, Ogg pages; a long picture's segments, chunks, HEIF
    /// items, JPEG XL boxes, TIFF IFDs and GIF blocks), and the rewrite they plan checked for sanity:
    /// a HEIF, JPEG XL or TIFF rewrite never grows the file (it only cuts what follows the last box).
    public static func strip(_ d: [UInt8]) {
        let reader = ByteReader(d)
        // Every rewrite the registry holds, so a format registered is a format fuzzed; a working
        // document is rewritten in place (an SVGZ and a TAR.GZ are compressed again, a TAR's members may change size).
        var rewrites: [MetadataRewrite] = []
        var formats: [MediaFormat] = []
        for entry in FormatRegistry.entries where entry.rewrite != nil { formats += entry.formats.filter { !formats.contains($0) } }
        for format in formats {
            guard let rewrite = try? FormatRegistry.rewrite(reader, format: format) else { continue }
            precondition(!format.isDocument || format == .svgz || rewrite.outputSize == d.count, "a document's in-place rewrite changed its size")
            rewrites.append(rewrite)
        }
        let jpeg = try? JPEGSource(d, isWhole: true)
        if let picture = MetadataRewrite.picture(d, jpeg: jpeg, orientation: jpeg?.orientation ?? .right) {
            if [.heic, .avif, .jxl, .tiff].contains(FormatSniffer.sniff(d)), jpeg == nil {
                precondition(picture.outputSize <= d.count, "an in-place rewrite grew the file")
            }
            rewrites.append(picture)
        }
        for rewrite in rewrites {
            var at = 0
            for piece in rewrite.pieces {
                if case .source(let r) = piece { precondition(r.lowerBound >= at && r.upperBound <= d.count, "rewrite reads outside the file"); at = r.upperBound }
            }
            _ = rewrite.found.removal
        }
        _ = MetadataKeys.holdsNothing(d[...], type: "meta")
        _ = ID3Frames.classify(d)
        _ = VorbisComments.classify(d, from: 0)
    }

    /// The document walkers: a TAR's headers and pax records, an HTML page's tags, each package family's
    /// XML parts, and (through one file a process) a ZIP read and written by libzip, a PDF by qpdf.
    public static func document(_ d: [UInt8]) {
        if let tar = try? TarRewrite.rewrite(ByteReader(d)) {
            var at = 0
            for piece in tar.pieces {
                if case .source(let r) = piece { precondition(r.lowerBound >= at && r.upperBound <= d.count, "a TAR rewrite reads outside the file"); at = r.upperBound }
            }
        }
        _ = try? TarRewrite.gzip(ByteReader(d))
        if let html = try? MetadataRewrite.html(ByteReader(d)) { precondition(html.outputSize == d.count, "an HTML rewrite changed the page's length") }
        for (name, family) in [("word/document.xml", PackageFamily.office), ("_rels/.rels", .office), ("[Content_Types].xml", .office),
                               ("docProps/core.xml", .office), ("xl/comments1.xml", .office), ("content.xml", .openDocument),
                               ("META-INF/manifest.xml", .openDocument), ("OEBPS/content.opf", .epub), ("OEBPS/p.xhtml", .epub)] {
            _ = PackageParts.clean(name, d, family, removed: ["docProps/custom.xml", "Thumbnails/thumbnail.png"])
        }
        let format = FormatSniffer.sniff(d)
        guard format == .zip || format == .pdf else { return }
        let input = "/tmp/mediaprep-fuzz-\(getpid()).\(format.rawValue)", output = input + ".out"
        unlink(output)
        defer { unlink(output) }
        guard (try? Data(d).write(to: URL(fileURLWithPath: input))) != nil else { return }
        if format == .pdf {
            _ = try? PDFCleaner.rewrite(path: input, size: d.count)
            try? PDFCleaner.write(from: input, to: output)
        } else {
            _ = try? ZipPackageCleaner.inspect(path: input, size: d.count)
            try? ZipPackageCleaner.write(from: input, to: output)
        }
    }

    public static func plan(_ d: [UInt8]) {
        var b = d[...]
        func take(_ n: Int) -> UInt64 { let v = b.prefix(n).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }; b = b.dropFirst(n); return v }
        let size = Int64(bitPattern: take(8))
        let kind = UploadContentKind.allCases[Int(take(1)) % UploadContentKind.allCases.count]
        let recipients = Int(truncatingIfNeeded: Int16(truncatingIfNeeded: take(2)))
        let flags = take(1)
        let name = String(decoding: b.prefix(300), as: UTF8.self)
        let plan = TransferPlanner(xftpAvailable: flags & 1 == 0).plan(size: size, kind: kind, fileName: name, recipients: recipients,
                                                                      encrypted: flags & 2 != 0)
        _ = plan.json.serialized
        _ = plan.summary
        _ = FileNaming.name(kind: kind, unixSeconds: size, ext: name)
        // The JSON a client could send back: decoded, re-encoded.
        if let m = try? JSONDecoder().decode(ComposedMessage.self, from: Data(d)) { _ = m.json.serialized }
    }
}

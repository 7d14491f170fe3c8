import CDeflate
import CPng

/// A PNG's image data inflated in one call by libdeflate (2.2–3.2× zlib's speed on the hard corpus's
/// PNGs: their six IDAT streams 145 → 50 ms), for libpng to read back as stored blocks
/// (`cpng_reader_open_inflated`), each row unfiltered by the shim just before (Paeth in SSE2 lanes);
/// transforms and every other rule stay libpng's.
///
/// Only for a whole, non-interlaced file whose every chunk's CRC is right and whose data inflates to
/// exactly its filtered rows; anything else is decoded the usual way, which reports what is wrong.
/// It costs the inflated rows in memory while the image is decoded (about the image's size).
struct PNGInflate {
    /// The filtered rows (each its filter byte, then `rowSize - 1` bytes); the reader unfilters them in place.
    var rows: [UInt8]
    let rowSize: Int
    /// Bytes a pixel for the filters (1 below 8 bits a pixel).
    let bytesPerPixel: Int
    /// Where the first IDAT chunk starts and where the chunk after the last one does.
    let head: Int
    let tail: Int
    /// The rows' Adler-32, when libpng checks it (0 otherwise: `cpng_inflated_needs_adler`).
    let adler: UInt32

    /// Below this many inflated bytes zlib's time is small beside loading libdeflate.
    static let minimumBytes = 1 << 20

    init?(_ file: [UInt8], maxBytes: Int, minimumBytes: Int = Self.minimumBytes) {
        let chunks = PNGChunks.chunks(file)
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.body.count == 13, chunks.last?.type == "IEND",
              let first = chunks.firstIndex(where: { $0.type == "IDAT" }),
              let last = chunks.lastIndex(where: { $0.type == "IDAT" }),
              chunks[first...last].allSatisfy({ $0.type == "IDAT" }) else { return nil }
        let b = ihdr.body.lowerBound
        func be32(_ o: Int) -> Int { Int(file[o]) << 24 | Int(file[o + 1]) << 16 | Int(file[o + 2]) << 8 | Int(file[o + 3]) }
        let (width, height, depth, colour, interlace) = (be32(b), be32(b + 4), Int(file[b + 8]), file[b + 9], file[b + 12])
        let channels: Int
        switch colour {
        case 0, 3: channels = 1
        case 2: channels = 3
        case 4: channels = 2
        case 6: channels = 4
        default: return nil
        }
        guard interlace == 0, [1, 2, 4, 8, 16].contains(depth), width > 0, height > 0, width <= 1 << 24, height <= 1 << 24 else { return nil }
        let rowBytes = (width * depth * channels + 7) / 8
        let (expected, overflow) = height.multipliedReportingOverflow(by: 1 + rowBytes)
        guard !overflow, expected >= minimumBytes, expected <= maxBytes, let deflate = try? Deflate.table() else { return nil }
        // Every chunk's CRC (libpng will not check the synthetic stream's).
        guard chunks.allSatisfy({ PNGChunks.crc($0.body, in: file, deflate) == UInt32(truncatingIfNeeded: be32($0.body.upperBound)) }) else {
            return nil
        }
        var stream: [UInt8] = []
        stream.reserveCapacity(chunks[first...last].reduce(0) { $0 + $1.body.count })
        for c in chunks[first...last] { stream += file[c.body] }
        guard let decompressor = deflate.libdeflate_alloc_decompressor() else { return nil }
        defer { deflate.libdeflate_free_decompressor(decompressor) }
        var ok = false
        let rows = [UInt8](unsafeUninitializedCapacity: expected) { out, count in
            var actual = 0
            let rc = stream.withUnsafeBufferPointer { s in
                deflate.libdeflate_zlib_decompress(decompressor, s.baseAddress, s.count, out.baseAddress, expected, &actual)
            }
            ok = rc.rawValue == UInt32(cdeflate_success()) && actual == expected
            count = ok ? expected : 0
        }
        guard ok else { return nil }
        self.rows = rows
        rowSize = 1 + rowBytes
        bytesPerPixel = max(1, depth * channels / 8)
        head = chunks[first].body.lowerBound - 8
        tail = chunks[last].body.upperBound + 4
        adler = cpng_inflated_needs_adler() == 0 ? 0 : rows.withUnsafeBufferPointer { deflate.libdeflate_adler32(1, $0.baseAddress, $0.count) }
    }
}

extension PNGChunks {
    /// The CRC a chunk whose body is `body` should carry: over its type and its body.
    static func crc(_ body: Range<Int>, in data: [UInt8], _ deflate: cdeflate) -> UInt32 {
        data.withUnsafeBufferPointer { f in f.baseAddress.map { deflate.libdeflate_crc32(0, $0 + body.lowerBound - 4, body.count + 4) } ?? 0 }
    }

    /// `data` with every whole chunk's CRC made right (the fuzz target's way into `PNGInflate`).
    static func fixingCRCs(_ data: [UInt8]) -> [UInt8] {
        guard let deflate = try? Deflate.table() else { return data }
        var out = data
        for c in chunks(data) {
            let crc = crc(c.body, in: data, deflate)
            for k in 0..<4 { out[c.body.upperBound + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * UInt32(k))) }
        }
        return out
    }
}

/// libdeflate's entry points, loaded the first time a PNG is inflated whole.
enum Deflate {
    private static let loaded: Result<DynamicTable.Shared<cdeflate>, MediaPrepError> = Trace.noteTime("loaded libdeflate") {
        DynamicTable.load(cdeflate_libraries(), cdeflate_symbols(), as: cdeflate.self, failing: .codecUnavailable, "libdeflate is").map(DynamicTable.Shared.init)
    }
    static func table() throws -> cdeflate { try loaded.get().table }
}

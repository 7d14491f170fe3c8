import Glibc

/// A progressive JPEG cut into two streams that libjpeg can decode at once, one per core: the luma's
/// scans and the chroma's, each with every table and marker before and between them (a scan of
/// every component's DC goes in both). Huffman decoding runs a scan at a time and is most of a
/// progressive decode: elephants-3840.jpg (8.5 MB, 8.3 MP, 1/2 scale) takes `djpeg` 0.22 s whole,
/// 0.18 s for its luma scans alone and 0.08 s for its chroma scans.
///
/// Only a file whose every coefficient is complete (each component's 64 coefficients refined down
/// to their last bit), so that one output pass over the joined coefficients is exactly the usual
/// decode; anything else (a scan cut short, a marker out of place, no EOI) is decoded the usual way.
struct ProgressiveSplit: Sendable {
    /// (start, length) pairs, flattened, for `cjpeg_reader_open_split`.
    let luma: [UInt]
    let chroma: [UInt]

    /// Only worth a thread when the chroma scans carry at least this share of the entropy-coded
    /// bytes (elephants-3840.jpg: 26 %); a file whose chroma is nearly all DC gains nothing.
    static let minChromaShare = 0.1

    /// - Parameter markers: the file's segments up to its first scan header (`JPEGSource`).
    init?(_ data: [UInt8], markers: JPEGMarkers) {
        // The frame's component ids (SOF2: precision, height, width, count, then id, sampling, table).
        guard let frame = markers.segments.first(where: { $0.marker == 0xC2 }), frame.payload.count >= 6 + 9,
              data[frame.payload.lowerBound + 5] == 3, let scan = markers.segments.last, scan.marker == 0xDA else { return nil }
        let components = (0..<3).map { data[frame.payload.lowerBound + 6 + 3 * $0] }
        let first = components[0]
        let end = data.count
        var luma: [UInt] = [], chroma: [UInt] = []
        func add(_ range: Range<Int>, luma l: Bool, chroma c: Bool) {
            if l { luma += [UInt(range.lowerBound), UInt(range.count)] }
            if c { chroma += [UInt(range.lowerBound), UInt(range.count)] }
        }
        // Everything before the first scan header goes to both.
        let sos = scan.payload.lowerBound - 4
        guard sos > 2 else { return nil }
        add(0..<sos, luma: true, chroma: true)
        // Per component, the coefficients refined to their last bit.
        var complete = [[Bool]](repeating: [Bool](repeating: false, count: 64), count: 3)
        var lumaBytes = 0, chromaBytes = 0, scans = 0
        var i = sos
        while true {
            guard i + 2 <= end, data[i] == 0xFF else { return nil }
            let marker = data[i + 1]
            if marker == 0xD9 {  // EOI ends both
                add(i..<i + 2, luma: true, chroma: true)
                break
            }
            guard i + 4 <= end else { return nil }
            let length = Int(data[i + 2]) << 8 | Int(data[i + 3])
            guard length >= 2, i + 2 + length <= end else { return nil }
            let header = i..<i + 2 + length
            switch marker {
            case 0xDA:
                scans += 1
                guard scans <= 500 else { return nil }  // the decoder's own limit (CJPEG_MAX_SCANS)
                let count = Int(data[i + 4])
                guard count >= 1, count <= 3, length == 6 + 2 * count else { return nil }
                let ids = (0..<count).map { data[i + 5 + 2 * $0] }
                let p = i + 5 + 2 * count
                let (ss, se, al) = (Int(data[p]), Int(data[p + 1]), Int(data[p + 2] & 0x0F))
                guard ss <= se, se <= 63 else { return nil }
                var inLuma = false, inChroma = false
                for id in ids {
                    guard let c = components.firstIndex(of: id) else { return nil }
                    if id == first { inLuma = true } else { inChroma = true }
                    if al == 0 { for k in ss...se { complete[c][k] = true } }
                }
                let dataEnd = Self.endOfScan(data, from: header.upperBound)
                guard dataEnd > header.upperBound else { return nil }
                add(i..<dataEnd, luma: inLuma, chroma: inChroma)
                if inLuma && !inChroma { lumaBytes += dataEnd - i }
                if inChroma && !inLuma { chromaBytes += dataEnd - i }
                i = dataEnd
            case 0xC4, 0xDB, 0xDD, 0xFE, 0xE0...0xEF:  // tables, restart interval, comments, APPn
                add(header, luma: true, chroma: true)
                i = header.upperBound
            default:
                return nil  // another frame, DNL, anything unexpected: the usual decode
            }
        }
        guard complete.allSatisfy({ $0.allSatisfy { $0 } }),
              Double(chromaBytes) >= Self.minChromaShare * Double(lumaBytes + chromaBytes) else { return nil }
        self.luma = luma
        self.chroma = chroma
    }

    /// Where a scan's entropy-coded data ends: at the first marker that is neither a stuffed 0xFF00
    /// nor a restart marker (0xFF fill bytes before a marker belong to it). The end of the data if none.
    static func endOfScan(_ data: [UInt8], from start: Int) -> Int {
        data.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress, start < b.count else { return b.count }
            var i = start
            while i < b.count {
                // memchr: the data is megabytes, an 0xFF comes about once in 256 bytes.
                guard let hit = memchr(base + i, 0xFF, b.count - i) else { return b.count }
                var j = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                while j < b.count, b[j] == 0xFF { j += 1 }
                guard j < b.count else { return b.count }
                if b[j] == 0x00 || (0xD0...0xD7).contains(b[j]) { i = j + 1; continue }
                return j - 1
            }
            return b.count
        }
    }
}

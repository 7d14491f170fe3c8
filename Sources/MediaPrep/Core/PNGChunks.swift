/// The few PNG chunks read by hand: eXIf for orientation, IEND to tell truncation from damage.
enum PNGChunks {
    /// The chunks wholly in `data` (body and CRC), through IEND.
    static func chunks(_ data: [UInt8]) -> [(type: String, body: Range<Int>)] { walk(data, wholeOnly: true) }

    /// Chunks in order while their 8-byte headers are in `data`; unless `wholeOnly`, the last one's
    /// body may run past its end (a file's head).
    /// - Parameter last: the chunk type the walk ends with.
    private static func walk(_ data: [UInt8], wholeOnly: Bool, through last: String = "IEND") -> [(type: String, body: Range<Int>)] {
        var out: [(String, Range<Int>)] = []
        var i = 8
        while i + 8 <= data.count {
            let len = Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
            let type = String(decoding: data[(i + 4)..<(i + 8)], as: UTF8.self)
            let end = i + 8 + len
            if wholeOnly && end + 4 > data.count { break }
            out.append((type, (i + 8)..<end))
            if type == last || type == "IEND" { break }
            i = end + 4
        }
        return out
    }

    /// The chunks before the image data that `head` holds (IHDR, PLTE, tRNS, iCCP, eXIf…), through the first IDAT.
    static func beforeImageData(_ head: [UInt8]) -> [(type: String, body: Range<Int>)] { walk(head, wholeOnly: false, through: "IDAT") }

    static func hasEnd(_ data: [UInt8]) -> Bool { chunks(data).contains { $0.type == "IEND" } }

    /// Whether `head` reaches the first IDAT chunk's header: every chunk before the image data is in it.
    static func reachesImageData(_ head: [UInt8]) -> Bool { beforeImageData(head).contains { $0.type == "IDAT" } }

    static func exifOrientation(_ data: [UInt8]) -> ExifOrientation {
        for c in chunks(data) {
            if c.type == "eXIf" { return ExifOrientation.fromTIFF(data[c.body]) }
            if c.type == "IDAT" { break }  // eXIf must come before image data
        }
        return .up
    }
}

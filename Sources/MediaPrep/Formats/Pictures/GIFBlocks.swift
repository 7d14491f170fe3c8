/// A GIF's blocks (image descriptors with their data, extensions, the trailer) walked in one place:
/// for the probe, which refuses a file cut inside a block (FFmpeg drops the frame it cuts and plays
/// the rest, so a file cut mid-animation would go as if whole), and for `GIFStripper`.
enum GIFBlocks {
    enum Block {
        /// An image descriptor with its local colour table and LZW data.
        case image(Range<Int>)
        /// An extension (label: 0xF9 graphic control, 0xFE comment, 0xFF application, …) with its sub-blocks.
        case `extension`(label: UInt8, Range<Int>)
    }

    /// How the walk ended.
    enum End: Equatable {
        /// At the trailer (0x3B), at this offset; anything after it is not read.
        case trailer(Int)
        /// At the end of the data, between blocks: the trailer is missing, no block is cut.
        case endOfData
        /// Inside a block: the data stops before the block does.
        case cut(block: Int)
        /// At a byte that starts no block: the decoders stop there too.
        case strayByte(at: Int)
    }

    struct Walk {
        /// Offset of the first block: after the header, screen descriptor and global colour table.
        let start: Int
        let blocks: [Block]
        let end: End
        var frames: Int { blocks.reduce(0) { if case .image = $1 { $0 + 1 } else { $0 } } }

        /// How many times it plays: the NETSCAPE2.0 extension's loop count N repeats N more times
        /// (0: forever); with none it plays once. Read from the extension, not from bytes that happen
        /// to spell its name in a frame or a comment.
        func plays(in d: [UInt8]) -> Int {
            for case .extension(0xFF, let r) in blocks where r.count >= 19 && GIFBlocks.applicationID(d, r) == "NETSCAPE2.0" && d[r.lowerBound + 15] == 1 {
                let n = Int(d[r.lowerBound + 16]) | Int(d[r.lowerBound + 17]) << 8
                return n == 0 ? 0 : n + 1
            }
            return 1
        }
    }

    /// An application extension's identifier and authentication code ("NETSCAPE2.0", "XMP DataXMP").
    static func applicationID(_ d: [UInt8], _ r: Range<Int>) -> String {
        r.lowerBound + 14 <= r.upperBound ? String(decoding: d[(r.lowerBound + 3)..<(r.lowerBound + 14)], as: UTF8.self) : ""
    }

    /// Nil when the data is not a GIF or stops inside its header or global colour table.
    static func walk(_ d: [UInt8]) -> Walk? {
        guard d.count >= 13, d.starts(with: Array("GIF8".utf8)) else { return nil }
        var at = 13
        if d[10] & 0x80 != 0 { at += 3 << (Int(d[10] & 7) + 1) }  // global colour table
        guard at <= d.count else { return nil }
        let start = at
        var blocks: [Block] = []
        /// The end of the sub-block chain starting at `i`, or nil if it runs off the end.
        func subBlocks(_ i: Int) -> Int? {
            var j = i
            while j < d.count {
                let n = Int(d[j])
                j += 1
                if n == 0 { return j }
                j += n
            }
            return nil
        }
        while at < d.count {
            switch d[at] {
            case 0x3B:
                return Walk(start: start, blocks: blocks, end: .trailer(at))
            case 0x2C:
                var data = at + 10
                if data <= d.count, d[at + 9] & 0x80 != 0 { data += 3 << (Int(d[at + 9] & 7) + 1) }  // local colour table
                // The LZW minimum code size, then the data's sub-blocks.
                guard data < d.count, let next = subBlocks(data + 1) else { return Walk(start: start, blocks: blocks, end: .cut(block: at)) }
                blocks.append(.image(at..<next))
                at = next
            case 0x21:
                guard at + 2 <= d.count, let next = subBlocks(at + 2) else { return Walk(start: start, blocks: blocks, end: .cut(block: at)) }
                blocks.append(.extension(label: d[at + 1], at..<next))
                at = next
            default:
                return Walk(start: start, blocks: blocks, end: .strayByte(at: at))
            }
        }
        return Walk(start: start, blocks: blocks, end: .endOfData)
    }
}

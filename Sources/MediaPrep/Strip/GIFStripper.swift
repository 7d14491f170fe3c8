/// An animated GIF sent as its own frames without what it says about itself: comment extensions and
/// application extensions other than the loop count (NETSCAPE2.0, ANIMEXTS1.0), such as XMP
/// ("XMP DataXMP") and ICC profiles. Every frame's bytes are copied as they are.
enum GIFStripper {
    struct Result {
        var data: [UInt8]
        /// What was cut out, as `check` reports it ("comment", "XMP", …); empty when nothing was.
        var removed: [String]
    }

    /// Nil when the block structure cannot be walked (the file then goes as it is, as before).
    static func strip(_ d: [UInt8]) -> Result? {
        guard d.count >= 13, d.starts(with: Array("GIF8".utf8)) else { return nil }
        var at = 13
        if d[10] & 0x80 != 0 { at += 3 << (Int(d[10] & 7) + 1) }  // global colour table
        guard at <= d.count else { return nil }
        var out = Array(d[0..<at])
        var removed: [String] = []
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
                out.append(0x3B)
                return Result(data: out, removed: removed)
            case 0x2C:
                guard at + 10 <= d.count else { return nil }
                var end = at + 10
                if d[at + 9] & 0x80 != 0 { end += 3 << (Int(d[at + 9] & 7) + 1) }  // local colour table
                guard end < d.count, let next = subBlocks(end + 1) else { return nil }  // LZW code size, data
                out += d[at..<next]
                at = next
            case 0x21:
                guard at + 2 <= d.count, let next = subBlocks(at + 2) else { return nil }
                let label = d[at + 1]
                var keep = true
                if label == 0xFE {
                    keep = false
                    if !removed.contains("comment") { removed.append("comment") }
                } else if label == 0xFF {
                    let id = at + 3 + 11 <= d.count ? String(decoding: d[(at + 3)..<(at + 14)], as: UTF8.self) : ""
                    if id != "NETSCAPE2.0" && id != "ANIMEXTS1.0" {
                        keep = false
                        let kind = id.hasPrefix("XMP Data") ? "XMP" : id.hasPrefix("ICCRGBG1") ? "ICC profile" : "application data"
                        if !removed.contains(kind) { removed.append(kind) }
                    }
                }
                if keep { out += d[at..<next] }
                at = next
            default:
                return nil
            }
        }
        return nil  // no trailer
    }
}

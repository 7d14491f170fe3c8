/// An animated GIF sent as its own frames without what it says about itself: comment extensions and
/// application extensions other than the loop count (NETSCAPE2.0, ANIMEXTS1.0), such as XMP
/// ("XMP DataXMP") and ICC profiles, and whatever follows the trailer. Every frame's bytes are
/// copied as they are.
enum GIFStripper {
    struct Result {
        var data: [UInt8]
        /// What was cut out, as `check` reports it: comments, XMP, an ICC profile, other application
        /// data, and the bytes after the trailer (or from a byte that starts no block on), which no
        /// decoder reads.
        var found: PictureMetadata
        var isUnchanged: Bool { found.isEmpty }
    }

    /// Nil when the block structure cannot be walked to its end (a file cut inside a block, which
    /// the probe refuses). A file that ends between blocks, or at a byte that starts none, keeps
    /// what its decoders show: the blocks up to there, and the trailer it lacked.
    static func strip(_ d: [UInt8]) -> Result? { GIFBlocks.walk(d).flatMap { strip(d, walk: $0) } }

    /// The same from a walk already made (the probe's).
    static func strip(_ d: [UInt8], walk: GIFBlocks.Walk) -> Result? {
        if case .cut = walk.end { return nil }
        var out = Array(d[0..<walk.start])
        var found = PictureMetadata(blocks: "application extensions")
        for block in walk.blocks {
            switch block {
            case .image(let r):
                out += d[r]
            case .extension(let label, let r):
                var keep = true
                if label == 0xFE {
                    keep = false
                    found.comment = true
                } else if label == 0xFF {
                    let id = GIFBlocks.applicationID(d, r)
                    if id != "NETSCAPE2.0" && id != "ANIMEXTS1.0" {
                        keep = false
                        if id.hasPrefix("XMP Data") { found.xmp = true } else if id.hasPrefix("ICCRGBG1") { found.iccProfile = true } else { found.other = true }
                    }
                }
                if keep { out += d[r] }
            }
        }
        out.append(0x3B)
        found.trailingBytes = switch walk.end {
        case .trailer(let at): d.count - at - 1
        case .strayByte(let at): d.count - at
        default: 0
        }
        return Result(data: out, found: found)
    }
}

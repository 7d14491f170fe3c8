/// MP4, MOV, M4A and 3GP without what identifies the sender: `udta`, `meta` (QuickTime Keys, iTunes
/// `ilst`), `uuid` (XMP and camera blocks), a dashcam's GPS boxes and leftover `free` space become
/// zero-filled `free` boxes of the same size, and the creation and modification times of `mvhd`/`tkhd`/`mdhd` are zeroed. No box
/// moves, so no chunk offset changes: streams, display matrix, edit lists and faststart layout stay
/// byte for byte, and the cost is one copy of the file (chosen over a remux, which rewrites the index).
package enum MP4MetadataStripper {
    /// Boxes walked into; everything else is kept as it is, unread.
    private static let containers: [String: Set<String>] = ["": ["moov"], "moov": ["trak"], "trak": ["mdia"]]
    /// Boxes blanked at each level walked: metadata (`meco` is ISO's other `meta`), free space, and
    /// what cameras add beside the movie, which no player reads (exiftool's QuickTime tables).
    private static let metadata: [String: Set<String>] = [
        "": Set(["udta", "meta", "meco", "uuid", "free", "skip", "junk"]).union(cameraBoxes.keys),
        "moov": ["udta", "meta", "meco", "uuid", "free", "skip", "gps "],
        // Not a track's `uuid`: Google's spherical video (v1) says there that the picture is 360°.
        "trak": ["udta", "meta", "meco", "free", "skip"], "mdia": ["udta", "meta", "free", "skip"],
    ]
    /// Top-level boxes of cameras and phones, and what they hold: dashcams' GPS (BlackVue's `gps `
    /// NMEA sentences and Novatek's table `3gf `, 70mai's `GPS `, DuDuBell's and VSYS's `gps0` and
    /// `gsen` and their capture time `IDIT`, Datakam's NMEA log `udat`), a Parrot drone's telemetry
    /// (`prrt`, `ardt`), Samsung's trailer (`sefd`: its capture time), HTC's and Kodak's camera blocks
    /// (`_htc`, `frea`), a thumbnail (`thum`, `thm `: a JPEG with its own Exif).
    private static let cameraBoxes: [String: PrivateFields] = [
        "gps ": .location, "3gf ": .other, "GPS ": .location, "gps0": .location, "gsen": .other, "IDIT": .dates,
        "udat": .location, "prrt": .location, "ardt": .device, "sefd": .dates, "_htc": .device, "frea": .device,
        "thum": .other, "thm ": .other,
    ]
    /// Headers whose version-dependent creation and modification times are zeroed.
    private static let timed: [String: String] = ["moov": "mvhd", "trak": "tkhd", "mdia": "mdhd"]
    /// A hostile file's box count or depth cannot make the walk long (a real phone clip has ~60 boxes).
    static let maxBoxes = 100_000
    /// What a metadata box's start is searched for, to name what it held (cover art is large, its key is not).
    static let scanBytes = 262_144

    /// The rewrite, or nil when the file carries nothing to remove; a box past its container's end or
    /// a walk past the limits is `corrupt`.
    package static func rewrite(_ r: ByteReader) throws -> MetadataRewrite? {
        var walk = Walk(reader: r)
        try walk.boxes(0..<r.size, parent: "", depth: 0)
        var end = r.size
        if let junk = walk.junk {
            // Bytes after the last box, which players skip: a tag a tagger appended (ID3v1, APEv2,
            // Lyrics3, as on any audio file: an M4A went out with its title and artist), or anything
            // else; cut unless it is only zeros. A top-level box ('mdat', 'moov'…) claiming more than
            // is left is a cut file, unless what follows the last whole box is exactly such a tag.
            let (audio, tags, _) = try AudioTagStripper.tagged(r)
            if audio.lowerBound == 0, audio.upperBound == junk.at, audio.upperBound < r.size {
                (end, walk.found) = (junk.at, walk.found.union(tags.isEmpty ? .other : tags))
            } else if let cut = junk.cut {
                throw cut
            } else if try r.read(junk.at, min(r.size - junk.at, 65_536)).contains(where: { $0 != 0 }) || r.size - junk.at > 65_536 {
                (end, walk.found) = (junk.at, walk.found.union(.other))
            }
        }
        guard end < r.size || !walk.edits.isEmpty else { return nil }
        return MetadataRewrite(sourceSize: end, edits: walk.edits, found: walk.found).cuttingAfter(fileSize: r.size)
    }

    /// A `free` box's header for a box of `size` bytes whose header was `header` bytes long.
    static func freeHeader(_ size: Int, header: Int) -> [UInt8] {
        header == 8 ? Bytes.be32(size) + Array("free".utf8) : [0, 0, 0, 1] + Array("free".utf8) + Bytes.be64(size)
    }

    /// The edit that turns `box`, whose header is `header` bytes long, into a zero-filled `free` box of its size.
    static func freed(_ box: Range<Int>, header: Int) -> (Range<Int>, [MetadataRewrite.Piece]) {
        (box, [.bytes(freeHeader(box.count, header: header)), .zeros(box.count - header)])
    }

    private struct Walk {
        let reader: ByteReader
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        var count = 0
        /// Tracks `moov` names as chapter lists (`SideTrack.chapterTracks`), which stay.
        var chapters: Set<Int> = []
        /// The side tracks' IDs, whose fragments go too, and `trex` sample sizes (`TrackFragments`).
        var sideTracks: Set<Int> = []
        var defaultSizes: [Int: Int] = [:]
        var fragmentBoxes = 0
        /// Where the top-level boxes stop before the file does, and the error if that is a cut.
        var junk: (at: Int, cut: MediaPrepError?)? = nil

        mutating func boxes(_ range: Range<Int>, parent: String, depth: Int) throws {
            var at = range.lowerBound
            while at < range.upperBound {
                let left = range.upperBound - at
                if left < 8 {
                    if parent.isEmpty { junk = (at, nil); return }  // a few stray bytes after the last box
                    throw MediaPrepError(.corrupt, "'\(parent)' box ends inside a box header at offset \(at)")
                }
                let h = try reader.exactly(at, min(16, left), "a box header at offset \(at)")
                let type = Bytes.ascii(h, 4, 4)
                var size = Bytes.be(h, 0, 4), header = 8
                if size == 1 {
                    guard h.count == 16 else { throw MediaPrepError(.corrupt, "'\(type)' box at offset \(at) has no room for its 64-bit size") }
                    (size, header) = (Bytes.be(h, 8, 8), 16)
                    guard size >= 0 else { throw MediaPrepError(.corrupt, "'\(type)' box at offset \(at) claims an impossible size") }
                } else if size == 0 {
                    size = left  // to the end of its container
                }
                guard size >= header, size <= left else {
                    // A top-level box past the file's end: the file was cut (a moov at the end is then gone too),
                    // unless its type is no type at all: junk after the last box, which players skip.
                    // So is a type no file has at its top level: bytes appended after the last box.
                    if parent.isEmpty && (!ContainerEnd.isBoxType(h[4..<8]) || !ContainerEnd.isTopLevelBox(type)) { junk = (at, nil); return }
                    if parent.isEmpty && size >= header {
                        junk = (at, MediaPrepError(.truncated, "the file is cut off: its '\(type)' box at offset \(at) claims \(size) bytes, \(left) are left"))
                        return
                    }
                    let container = parent.isEmpty ? "the file" : "its '\(parent)' box"
                    throw MediaPrepError(.corrupt, "'\(type)' box at offset \(at) claims \(size) bytes, past the end of \(container)")
                }
                count += 1
                guard count <= MP4MetadataStripper.maxBoxes, depth < 8 else {
                    throw MediaPrepError(.corrupt, "more than \(MP4MetadataStripper.maxBoxes) boxes, or nested too deep: not a video a phone made")
                }
                let box = at..<at + size, body = at + header..<at + size
                if parent.isEmpty, type == "moov" {
                    chapters = try SideTrack.chapterTracks(reader, body)
                    defaultSizes = try TrackFragments.defaultSizes(reader, body)
                }
                if parent == "moov", type == "trak", let side = try SideTrack(reader, body, chapters: chapters) {
                    // A track no player shows (GoPro's GPS, a drone's, a timecode): gone, box and samples.
                    found.formUnion(side.found)
                    edits.append(MP4MetadataStripper.freed(box, header: header))
                    edits += side.samples.map { ($0, [.zeros($0.count)]) }
                    if let id = side.id { sideTracks.insert(id) }
                } else if parent.isEmpty, type == "moof", !sideTracks.isEmpty {
                    // The side tracks' samples of a fragmented recording, indexed here rather than in their `trak`.
                    let f = try TrackFragments(reader, moof: box, body: body, side: sideTracks, defaults: defaultSizes, boxes: &fragmentBoxes)
                    edits += f.trafs.map { MP4MetadataStripper.freed($0.box, header: $0.header) }
                    edits += f.samples.map { ($0, [.zeros($0.count)]) }
                } else if MP4MetadataStripper.containers[parent]?.contains(type) == true {
                    try boxes(body, parent: type, depth: depth + 1)
                } else if MP4MetadataStripper.metadata[parent]?.contains(type) == true {
                    try blank(box, header: header, type: type)
                } else if MP4MetadataStripper.timed[parent] == type {
                    try zeroTimes(body, type: type)
                }
                at += size
            }
        }

        /// The box becomes `free` of the same size, every byte of its content zero.
        mutating func blank(_ box: Range<Int>, header: Int, type: String) throws {
            let body = box.lowerBound + header..<box.upperBound
            guard !body.isEmpty else { return }
            let head = try reader.read(body.lowerBound, min(body.count, MP4MetadataStripper.scanBytes))
            if type == "free" || type == "skip" {
                // Padding is kept; old metadata left in free space by an editor is not.
                guard head.contains(where: { $0 != 0 }) else { return }
                found.insert(.other)
            } else if let fields = MP4MetadataStripper.cameraBoxes[type] {
                guard head.contains(where: { $0 != 0 }) else { return }
                found.formUnion(fields)
            } else {
                // A muxer's empty `udta`/`meta` (a handler and an empty item list) says nothing.
                if head.count == body.count, MetadataKeys.holdsNothing(head[...], type: type) { return }
                found.formUnion(MetadataKeys.classify(head, container: type))
            }
            edits.append(MP4MetadataStripper.freed(box, header: header))
        }

        /// Version 0: 32-bit creation and modification times after version and flags; version 1: 64-bit.
        mutating func zeroTimes(_ body: Range<Int>, type: String) throws {
            let head = try reader.read(body.lowerBound, 20)
            guard let version = head.first else { return }
            let width = version == 1 ? 16 : 8
            guard head.count >= 4 + width else { throw MediaPrepError(.corrupt, "'\(type)' box is too short for its times") }
            guard head[4..<4 + width].contains(where: { $0 != 0 }) else { return }
            found.insert(.dates)
            edits.append((body.lowerBound + 4..<body.lowerBound + 4 + width, [.zeros(width)]))
        }
    }
}

/// Names what a metadata block held from the keys inside it (QuickTime `©xyz`, Keys
/// `com.apple.quicktime.location.ISO6709`, XMP `exif:GPSLatitude`, ID3 frame names, Vorbis comment names).
enum MetadataKeys {
    private static let needles: [(PrivateFields, [String])] = [
        (.location, ["\u{A9}xyz", "iso6709", "gps", "loci", "location"]),
        (.device, ["\u{A9}mak", "\u{A9}mod", "\u{A9}swr", ".make", ".model", ".software", "com.android.version",
                   "manufacturer", "tiff:make", "tiff:model"]),
        (.author, ["\u{A9}aut", "\u{A9}art", "auth", ".author", "artist", "dc:creator", "\u{A9}wrt"]),
        (.dates, ["\u{A9}day", "creationdate", "createdate", "datetime", "yrrc"]),
        (.title, ["\u{A9}nam", "\u{A9}alb", "titl", ".title"]),
        (.comment, ["\u{A9}cmt", "\u{A9}des", "dscp", ".comment", ".description"]),
        (.coverArt, ["covr"]),
        (.xmp, ["x:xmpmeta", "xmp_"]),
    ]

    /// What `bytes` (the start of a `udta`, `meta` or `uuid` box) names; `.other` when nothing known.
    static func classify(_ bytes: [UInt8], container: String) -> PrivateFields {
        var found: PrivateFields = []
        for (field, keys) in needles where keys.contains(where: { contains(bytes, $0) }) { found.insert(field) }
        return found.isEmpty && bytes.contains(where: { $0 != 0 }) ? .other : found
    }

    /// True when a `udta` or `meta` box's content is only handlers, padding and empty lists.
    static func holdsNothing(_ body: ArraySlice<UInt8>, type: String, depth: Int = 0) -> Bool {
        let b = Array(body)
        // ISO's `meta` is a full box (version and flags first); QuickTime's starts with its children.
        var at = type == "meta" && Bytes.ascii(b, 4, 4) != "hdlr" ? 4 : 0
        while at + 8 <= b.count {
            let size = Bytes.be(b, at, 4), child = Bytes.ascii(b, at + 4, 4)
            guard size >= 8, at + size <= b.count else { return false }
            switch child {
            case "hdlr", "free", "skip": break
            case "ilst" where size == 8: break
            case "keys" where size == 16 && Bytes.be(b, at + 12, 4) == 0: break
            case "meta" where depth < 2: if !holdsNothing(b[at + 8..<at + size], type: "meta", depth: depth + 1) { return false }
            default: return false
            }
            at += size
        }
        return at == b.count
    }

    /// QuickTime's `©` is the single byte 0xA9 in a box type, not UTF-8's two.
    private static func contains(_ bytes: [UInt8], _ key: String) -> Bool {
        guard key.hasPrefix("\u{A9}") else { return Bytes.contains(bytes, key) }
        let rest = Array(key.dropFirst().utf8)
        return bytes.indices.dropLast(rest.count).contains { i in
            bytes[i] == 0xA9 && rest.indices.allSatisfy { j in bytes[i + 1 + j] | 0x20 == rest[j] | 0x20 }
        }
    }
}

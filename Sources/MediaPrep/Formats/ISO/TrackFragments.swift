/// A fragmented MP4's side-track samples (`SideTrack`). A camera or phone that records in fragments
/// (`moof` + `mdat`, crash-safe) indexes each fragment's samples in a `traf`, not in the `trak`'s
/// tables, so freeing the `trak` left them all: ffmpeg's fragmented MP4 of a clip with GPS subtitles
/// and a timecode kept both in its `mdat`s. Each side track's `traf` now has its samples zeroed where
/// they lie, and becomes a `free` box when no other track's data is found from where it ends.
struct TrackFragments {
    /// A side track's `traf` boxes (whole box, header length), to become `free`.
    private(set) var trafs: [(box: Range<Int>, header: Int)] = []
    /// Where the side tracks' samples lie.
    private(set) var samples: [Range<Int>] = []

    /// `trex` default sample sizes by track ID (`moov`/`mvex`): what a `trun` without sizes of its own uses.
    static func defaultSizes(_ r: ByteReader, _ moov: Range<Int>) throws -> [Int: Int] {
        let limit = MP4MetadataStripper.maxBoxes
        guard let mvex = try SideTrack.child(r, moov, "mvex", limit: limit) else { return [:] }
        var sizes: [Int: Int] = [:]
        try SideTrack.eachChild(r, mvex, limit: limit) { type, body, _ in
            if type == "trex", body.count >= 24 {
                let b = try r.read(body.lowerBound, 24)
                if b.count == 24 { sizes[Bytes.be(b, 4, 4)] = Bytes.be(b, 16, 4) }
            }
            return true
        }
        return sizes
    }

    /// Boxes all of a file's fragments may hold: three hours in one-second fragments of three
    /// tracks take about 130,000; a file of tiny boxes cannot make the walk long.
    static let maxBoxes = 1_000_000

    /// The side tracks' parts of the `moof` box at `moof`, whose body is `body`. Every track's `traf`
    /// is read in order: without an explicit base, a fragment's data starts where the one before it
    /// ended (ISO/IEC 14496-12, 8.8.7). A side track's samples outside the file, or not to be found,
    /// are damage: they could not be made to go.
    /// - Parameter boxes: boxes walked so far in the file's fragments (`maxBoxes` at most).
    init(_ r: ByteReader, moof: Range<Int>, body: Range<Int>, side: Set<Int>, defaults: [Int: Int], boxes: inout Int) throws {
        func damaged(_ what: String) -> MediaPrepError { MediaPrepError(.corrupt, "a fragment of a side track \(what)") }
        func counted() throws {
            boxes += 1
            if boxes > Self.maxBoxes { throw MediaPrepError(.corrupt, "more than \(Self.maxBoxes) boxes in its fragments: not a recording") }
        }
        let limit = MP4MetadataStripper.maxBoxes
        var previousEnd: Int? = moof.lowerBound  // nil once a track's data has no known end
        var explicitBases = true
        var sideTrafs: [(box: Range<Int>, header: Int)] = []
        try SideTrack.eachChild(r, body, limit: limit) { type, traf, trafHeader in
            try counted()
            guard type == "traf" else { return true }
            guard let tfhd = try SideTrack.child(r, traf, "tfhd", limit: limit), tfhd.count >= 8 else { throw damaged("has no 'tfhd'") }
            let h = try r.read(tfhd.lowerBound, min(tfhd.count, 40))
            let flags = Bytes.be(h, 1, 3), track = Bytes.be(h, 4, 4), isSide = side.contains(track)
            var base = previousEnd, defaultSize = defaults[track], at = 8
            if flags & 0x1 != 0 {
                guard h.count >= at + 8 else { throw damaged("has a short 'tfhd'") }
                base = Bytes.be(h, at, 8)
                at += 8
            } else if flags & 0x20000 != 0 {
                base = moof.lowerBound
            } else {
                explicitBases = false
            }
            at += (flags & 0x2 != 0 ? 4 : 0) + (flags & 0x8 != 0 ? 4 : 0)
            if flags & 0x10 != 0 {
                guard h.count >= at + 4 else { throw damaged("has a short 'tfhd'") }
                defaultSize = Bytes.be(h, at, 4)
            }
            var cursor = base
            try SideTrack.eachChild(r, traf, limit: limit) { type, trun, _ in
                try counted()
                guard type == "trun" else { return true }
                let head = try r.read(trun.lowerBound, min(trun.count, 12))
                guard head.count >= 8 else { throw damaged("has a short 'trun'") }
                let runFlags = Bytes.be(head, 1, 3), count = Bytes.be(head, 4, 4)
                var fields = 8, start = cursor
                if runFlags & 0x1 != 0 {
                    guard head.count >= 12 else { throw damaged("has a short 'trun'") }
                    start = base.map { $0 + Int(Int32(truncatingIfNeeded: Bytes.be(head, 8, 4))) }
                    fields += 4
                }
                if runFlags & 0x4 != 0 { fields += 4 }
                let stride = [0x100, 0x200, 0x400, 0x800].filter { runFlags & $0 != 0 }.count * 4
                guard count <= SideTrack.maxSamples, trun.count >= fields + count * stride else { throw damaged("has a 'trun' shorter than its samples") }
                var length: Int? = nil
                if runFlags & 0x200 != 0, count * stride <= SideTrack.maxTableBytes {
                    let table = try r.read(trun.lowerBound + fields, count * stride)
                    let skip = runFlags & 0x100 != 0 ? 4 : 0
                    length = (0..<count).reduce(0) { $0 + Bytes.be(table, $1 * stride + skip, 4) }
                } else if runFlags & 0x200 == 0, let d = defaultSize {
                    length = d * count
                }
                if isSide {
                    guard let s = start, let n = length else { throw damaged("has samples whose place is not given") }
                    guard s >= 0, s <= r.size, n <= r.size - s else { throw damaged("has samples outside the file") }
                    if n > 0 { samples.append(s..<(s + n)) }
                }
                cursor = start.flatMap { s in length.map { s + $0 } }
                return true
            }
            previousEnd = cursor
            if isSide { sideTrafs.append(((traf.lowerBound - trafHeader)..<traf.upperBound, trafHeader)) }
            return true
        }
        // Without explicit bases, a freed `traf` would move where the next one's data is read from.
        if explicitBases { trafs = sideTrafs }
        samples = SideTrack.merged(samples)
    }
}

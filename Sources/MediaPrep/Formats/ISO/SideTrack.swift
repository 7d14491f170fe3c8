/// A track of an MP4 or MOV that no player shows: GoPro's `gpmd` (GPS five times a frame, the camera's
/// serial number), Google's `camm` (a 360 camera's GPS), DJI's `djmd` (a drone's position), Sony's
/// `rtmd`, a timecode (`tmcd`, the time of day it was shot), subtitles a dashcam writes its speed and
/// position into, Apple's timed metadata. A file sent as it came kept them all; now the track goes
/// (its `trak` a zero-filled `free` box) and so do its samples in `mdat` (zeroed where they lie): the
/// box is only the index, the GPS is in the samples. Nothing moves, so the picture and sound stay
/// byte for byte. Remuxes and transcodes already carried only video and sound.
struct SideTrack {
    /// Handlers of tracks that are shown or heard (`auxv`: a depth or alpha plane beside the video).
    private static let shown: Set<String> = ["vide", "soun", "auxv"]
    /// A `trak`'s tables are small (an hour of GoPro GPS: ~70 KB); more is no camera's.
    static let maxTableBytes = 64 << 20
    /// Samples a side track may index before the walk gives up on it as damaged.
    static let maxSamples = 20_000_000

    let found: PrivateFields
    /// Where its samples lie in the file, merged and sorted.
    let samples: [Range<Int>]
    /// Its `tkhd` track ID: a fragmented file's `traf`s name it (`TrackFragments`).
    let id: Int?

    /// Nil for a track that is shown (or has no handler to tell), or is the chapter list of one
    /// (`chapters`); a side track whose tables point outside the file, or cannot be read, is
    /// damaged: its samples could not be found to be removed.
    init?(_ r: ByteReader, _ body: Range<Int>, chapters: Set<Int> = []) throws {
        // The handler first, from box headers alone: a video's or sound's tables are not read
        // (`check` of the 23 clips had grown 50.5 → 64.1 ms reading every track whole).
        guard let handler = try Self.handler(r, body), !Self.shown.contains(handler) else { return nil }
        let id = try Self.trackID(r, body)
        if ["text", "sbtl"].contains(handler), let id, chapters.contains(id) { return nil }
        self.id = id
        guard body.count <= Self.maxTableBytes else { throw MediaPrepError(.corrupt, "a track's tables take over 64 MiB") }
        let b = try r.read(body.lowerBound, body.count)
        let t = ByteReader(b)  // the track's tables, read once
        guard let mdia = try Self.child(t, 0..<b.count, "mdia") else { return nil }
        guard let minf = try Self.child(t, mdia, "minf"), let stbl = try Self.child(t, minf, "stbl") else {
            throw MediaPrepError(.corrupt, "a '\(handler)' track has no sample table")
        }
        var entry = ""
        if let stsd = try Self.child(t, stbl, "stsd"), stsd.count >= 16 { entry = Bytes.ascii(b, stsd.lowerBound + 12, 4) }
        switch (handler, entry) {
        case (_, "gpmd"), (_, "djmd"), (_, "rtmd"), ("camm", _), (_, "camm"): found = [.location, .device]
        case ("tmcd", _), (_, "tmcd"): found = .dates
        default: found = .other
        }
        samples = try Self.sampleRanges(b, stbl, fileSize: r.size, track: entry.isEmpty ? handler : entry)
    }

    /// The track's `mdia`/`hdlr` handler type, read box header by box header; nil without one.
    private static func handler(_ r: ByteReader, _ trak: Range<Int>) throws -> String? {
        let limit = MP4MetadataStripper.maxBoxes
        guard let mdia = try child(r, trak, "mdia", limit: limit), let hdlr = try child(r, mdia, "hdlr", limit: limit), hdlr.count >= 12 else { return nil }
        return Bytes.ascii(try r.read(hdlr.lowerBound + 8, 4), 0, 4)
    }

    /// The `tkhd` track ID: after version and flags, two times of 4 bytes (version 0) or 8 (1).
    private static func trackID(_ r: ByteReader, _ trak: Range<Int>) throws -> Int? {
        guard let tkhd = try child(r, trak, "tkhd", limit: MP4MetadataStripper.maxBoxes), tkhd.count >= 24 else { return nil }
        let h = try r.read(tkhd.lowerBound, 24)
        return h.count == 24 ? Bytes.be(h, h[0] == 1 ? 20 : 12, 4) : nil
    }

    /// The tracks a track of `moov` names as its chapters (`tref`/`chap`): an audiobook's chapter
    /// list is a text track, whose titles are the book's; sent as a file, an M4B kept them.
    static func chapterTracks(_ r: ByteReader, _ moov: Range<Int>) throws -> Set<Int> {
        var ids: Set<Int> = []
        let limit = MP4MetadataStripper.maxBoxes
        try eachChild(r, moov, limit: limit) { type, trak, _ in
            guard type == "trak", let tref = try child(r, trak, "tref", limit: limit), let chap = try child(r, tref, "chap", limit: limit) else { return true }
            let list = try r.read(chap.lowerBound, min(chap.count, 4 * 1024))
            for i in stride(from: 0, to: list.count - 3, by: 4) { ids.insert(Bytes.be(list, i, 4)) }
            return true
        }
        return ids
    }

    /// The body of the first child box of `type` inside `range`, read header by header, at most
    /// `limit` of them (in the file; the tables once read are walked to their end).
    static func child(_ r: ByteReader, _ range: Range<Int>, _ type: String, limit: Int = .max) throws -> Range<Int>? {
        var found: Range<Int>? = nil
        try eachChild(r, range, limit: limit) { t, body, _ in
            if t == type { found = body }
            return found == nil
        }
        return found
    }

    /// Each child box inside `range` (its type, body and header length), header by header, at most
    /// `limit` of them, while `visit` returns true; the walk stops at a box that does not fit.
    static func eachChild(_ r: ByteReader, _ range: Range<Int>, limit: Int, _ visit: (String, Range<Int>, Int) throws -> Bool) throws {
        var at = range.lowerBound, walked = 0
        while at + 8 <= range.upperBound, walked < limit {
            walked += 1
            let h = try r.read(at, min(16, range.upperBound - at))
            var size = Bytes.be(h, 0, 4), header = 8
            if size == 1, h.count == 16 { (size, header) = (Bytes.be(h, 8, 8), 16) } else if size == 0 { size = range.upperBound - at }
            guard size >= header, size <= range.upperBound - at else { return }
            guard try visit(Bytes.ascii(h, 4, 4), (at + header)..<(at + size), header) else { return }
            at += size
        }
    }

    /// Each chunk's bytes: its offset (`stco`/`co64`) and the sizes (`stsz`) of the samples `stsc`
    /// puts in it.
    private static func sampleRanges(_ b: [UInt8], _ stbl: Range<Int>, fileSize: Int, track: String) throws -> [Range<Int>] {
        func damaged(_ what: String) -> MediaPrepError { MediaPrepError(.corrupt, "the '\(track)' track's \(what) cannot be read") }
        let t = ByteReader(b)
        let wide = try child(t, stbl, "co64") != nil
        guard let stco = try child(t, stbl, "stco") ?? child(t, stbl, "co64"), let stsc = try child(t, stbl, "stsc"),
              let stsz = try child(t, stbl, "stsz") else {
            if try child(t, stbl, "stz2") != nil { throw damaged("compact sample sizes (stz2)") }
            return []  // no chunk indexed: nothing of it in `mdat` to find
        }
        guard stco.count >= 8, stsc.count >= 8, stsz.count >= 12 else { throw damaged("sample table") }
        let chunks = Bytes.be(b, stco.lowerBound + 4, 4), runs = Bytes.be(b, stsc.lowerBound + 4, 4)
        let fixed = Bytes.be(b, stsz.lowerBound + 4, 4), count = Bytes.be(b, stsz.lowerBound + 8, 4)
        guard count <= maxSamples, stco.count >= 8 + chunks * (wide ? 8 : 4), stsc.count >= 8 + runs * 12,
              fixed != 0 || stsz.count >= 12 + count * 4 else { throw damaged("sample table") }
        guard chunks > 0, runs > 0, count > 0 else { return [] }
        var ranges: [Range<Int>] = []
        var sample = 0, run = 0
        for c in 1...chunks {
            while run + 1 < runs, Bytes.be(b, stsc.lowerBound + 8 + (run + 1) * 12, 4) <= c { run += 1 }
            let perChunk = Bytes.be(b, stsc.lowerBound + 8 + run * 12 + 4, 4)
            let offset = wide ? Bytes.be(b, stco.lowerBound + 8 + (c - 1) * 8, 8) : Bytes.be(b, stco.lowerBound + 8 + (c - 1) * 4, 4)
            var length = 0
            for _ in 0..<min(perChunk, count - sample) {
                length += fixed != 0 ? fixed : Bytes.be(b, stsz.lowerBound + 12 + sample * 4, 4)
                sample += 1
            }
            guard offset >= 0, offset <= fileSize, length <= fileSize - offset else {
                throw damaged("chunk \(c), which lies outside the file")
            }
            if length > 0 { ranges.append(offset..<(offset + length)) }
            if sample >= count { break }
        }
        return merged(ranges)
    }

    /// `ranges` sorted and merged, so no two edits of the rewrite overlap (it skips an edit that
    /// starts inside the one before).
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var merged: [Range<Int>] = []
        for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }
}

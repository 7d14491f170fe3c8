/// Audio sent as a file without its tags, its frames byte for byte: MP3/AAC (and WavPack, Monkey's
/// Audio, TTA, AC-3, E-AC-3, DTS, TrueHD) ID3v2, ID3v1, APEv2 and Lyrics3 tags cut; FLAC comment, picture and application blocks and WAV `LIST`/`id3 `/`bext`/`iXML`/`guan`/`cart`/`axml`/`umid`
/// chunks turned into padding of the same size; an Ogg Opus/Vorbis comment packet emptied in place;
/// and the ID3v1, APEv2 or Lyrics3 tag that taggers append to any audio file cut from FLAC, Ogg
/// and WAV too.
package enum AudioTagStripper {
    /// A hostile file cannot make a walk long: real files have a handful of tags or blocks.
    static let maxBlocks = 10_000

    package static func rewrite(_ r: ByteReader, format: MediaFormat) throws -> MetadataRewrite? {
        switch format {
        case .mp3, .aac, .wavpack, .ape, .tta, .ac3, .eac3, .dts, .truehd: return try id3(r)
        case .flac, .ogg, .wav:
            // A tag after the stream is cut, and the stream's own walk stops where it starts (a FLAC
            // with an ID3v1 tag after its frames went out with its title, artist and comment).
            // A FLAC may also have an ID3v2 tag in front, cut with the rest.
            let (audio, tags, _) = try tagged(r)
            let stream = r.slice(audio)
            let own: MetadataRewrite? = switch format {
            case .flac: try flac(stream)
            case .wav: try wav(stream)
            default: try OggCommentStripper.rewrite(stream)
            }
            guard audio != 0..<r.size else { return own }
            let kept = own?.pieces(at: audio.lowerBound) ?? [.source(audio)]
            return MetadataRewrite(sourceSize: r.size, edits: [(0..<audio.lowerBound, []), (audio, kept), (audio.upperBound..<r.size, [])],
                                   found: (own?.found ?? []).union(tags.isEmpty ? .other : tags))
        case .aiff: return try AppleAudioStripper.aiff(r)
        case .caf: return try AppleAudioStripper.caf(r)
        default: return nil
        }
    }

    // MARK: MP3 and AAC

    /// ID3v2 tags at the start (several may follow each other), ID3v1/TAG+/APEv2/Lyrics3 at the end.
    static func id3(_ r: ByteReader) throws -> MetadataRewrite? {
        let (audio, found, _) = try tagged(r)
        guard audio.lowerBound > 0 || audio.upperBound < r.size else { return nil }
        return MetadataRewrite(sourceSize: r.size, edits: [(0..<audio.lowerBound, []), (audio.upperBound..<r.size, [])],
                               found: found.isEmpty ? .other : found)
    }

    /// Where an MP3's or AAC's frames are, between its leading and trailing tags, and what the tags hold.
    static func tagged(_ r: ByteReader) throws -> (audio: Range<Int>, found: PrivateFields, appendedID3v2: Bool) {
        var found: PrivateFields = []
        var appendedID3v2 = false
        var start = 0, blocks = 0
        while true {
            let h = try r.read(start, 10)
            guard h.count == 10, Bytes.ascii(h, 0, 3) == "ID3" else { break }
            guard let total = ID3Frames.tagLength(h) else { throw MediaPrepError(.corrupt, "ID3v2 tag at offset \(start) has a malformed size") }
            guard start + total <= r.size else { throw MediaPrepError(.truncated, "the file is cut off inside its ID3v2 tag (offset \(start), \(total) bytes)") }
            found.formUnion(ID3Frames.classify(try r.read(start, min(total, MP4MetadataStripper.scanBytes))))
            start += total
            blocks += 1
            guard blocks < 64 else { throw MediaPrepError(.corrupt, "more than 64 ID3v2 tags in a row") }
        }
        var end = r.size
        trailing: while end > start {
            let t = try r.read(max(start, end - 227), min(227, end - start))
            func at(_ back: Int, _ s: String) -> Bool { t.count >= back && Bytes.ascii(t, t.count - back, s.utf8.count) == s }
            if at(128, "TAG") {
                let tag = Array(t.suffix(128))
                let fields: [(PrivateFields, Range<Int>)] = [(.title, 3..<33), (.author, 33..<63), (.title, 63..<93), (.dates, 93..<97), (.comment, 97..<125)]
                for (field, range) in fields where tag[range].contains(where: { $0 != 0 && $0 != 0x20 }) { found.insert(field) }
                end -= 128
                if end - start >= 227, Bytes.ascii(try r.read(end - 227, 4), 0, 4) == "TAG+" { end -= 227 }
            } else if at(32, "APETAGEX") {
                let footer = Array(t.suffix(32))
                let size = Bytes.le(footer, 12, 4), flags = Bytes.le(footer, 20, 4)
                let total = size + (flags & (1 << 31) != 0 ? 32 : 0)
                guard size >= 32, total <= end - start else { throw MediaPrepError(.corrupt, "APE tag runs past the start of the file") }
                found.formUnion(MetadataKeys.classify(try r.read(end - total, min(total, MP4MetadataStripper.scanBytes)), container: "APE"))
                end -= total
            } else if at(15, "LYRICS200") {
                let digits = Bytes.ascii(t, t.count - 15, 6)
                guard let size = Int(digits), size + 15 <= end - start else { throw MediaPrepError(.corrupt, "Lyrics3 tag has a malformed size") }
                found.insert(.other)
                end -= size + 15
            } else if at(10, "3DI"), let total = try appendedID3(r, footer: Array(t.suffix(10)), end: end, start: start) {
                found.formUnion(ID3Frames.classify(try r.read(end - total, min(total, MP4MetadataStripper.scanBytes))))
                end -= total
                appendedID3v2 = true
            } else if let tag = try appendedID3(r, from: start, to: end) {
                found.formUnion(ID3Frames.classify(try r.read(tag, min(end - tag, MP4MetadataStripper.scanBytes))))
                end = tag
                appendedID3v2 = true
            } else {
                break trailing
            }
            blocks += 1
            guard blocks < 64 else { throw MediaPrepError(.corrupt, "more than 64 trailing tags") }
        }
        return (start..<end, found, appendedID3v2)
    }

    /// How far before the end an ID3v2 tag written without a footer is looked for: its header must
    /// claim exactly the bytes up to the end (a tagger's appended tag; cover art past this is missed).
    static let appendedTagWindow = 1 << 20

    /// The length of an ID3v2.4 tag that ends at `end` with the footer `footer` ("3DI"), its header
    /// where the footer says; nil when they disagree.
    static func appendedID3(_ r: ByteReader, footer: [UInt8], end: Int, start: Int) throws -> Int? {
        guard footer.count == 10, let size = ID3Frames.syncsafe(footer[6..<10]) else { return nil }
        let total = 20 + size
        guard total <= end - start, Bytes.ascii(try r.read(end - total, 3), 0, 3) == "ID3" else { return nil }
        return total
    }

    /// Where an ID3v2 tag appended without a footer starts: an "ID3" header whose size reaches `end`
    /// exactly, within `appendedTagWindow` of it (MPEG audio cannot imitate both).
    static func appendedID3(_ r: ByteReader, from start: Int, to end: Int) throws -> Int? {
        let from = max(start, end - appendedTagWindow)
        guard end - from >= 10 else { return nil }
        let w = try r.read(from, end - from)
        var i = w.count - 10
        while i >= 0 {
            if w[i] == 0x49, w[i + 1] == 0x44, w[i + 2] == 0x33, (2...4).contains(w[i + 3]), w[i + 4] != 0xFF,
               let total = ID3Frames.tagLength(w, at: i), i + total == w.count { return from + i }
            i -= 1
        }
        return nil
    }

    // MARK: FLAC

    /// STREAMINFO, SEEKTABLE and CUESHEET stay; comments, pictures and application blocks become padding.
    static func flac(_ r: ByteReader) throws -> MetadataRewrite? {
        guard Bytes.ascii(try r.read(0, 4), 0, 4) == "fLaC" else { return nil }
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        _ = try flacBlocks(r) { at, h in
            let last = h[0] & 0x80, type = h[0] & 0x7F, length = Bytes.be(h, 1, 3)
            switch type {
            case 0, 1, 3, 5: break
            default:
                let body = try r.read(at + 4, min(length, MP4MetadataStripper.scanBytes))
                found.formUnion(type == 4 ? VorbisComments.classify(body, from: 0) : type == 6 ? .coverArt : .other)
                edits.append((at..<at + 4 + length, [.bytes([last | 1] + Array(h[1..<4])), .zeros(length)]))
            }
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found.isEmpty ? .other : found)
    }

    /// A FLAC's metadata blocks after "fLaC", each whole in the file, handed to `each` (its offset
    /// and 4-byte header); returns where the frames start.
    static func flacBlocks(_ r: ByteReader, _ each: (_ at: Int, _ header: [UInt8]) throws -> Void = { _, _ in }) throws -> Int {
        var at = 4
        for _ in 0..<maxBlocks {
            let h = try r.exactly(at, 4, "a FLAC metadata block header at offset \(at)")
            let length = Bytes.be(h, 1, 3)
            guard h[0] & 0x7F != 127 else { throw MediaPrepError(.corrupt, "FLAC metadata block at offset \(at) has the invalid type 127") }
            guard at + 4 + length <= r.size else { throw MediaPrepError(.truncated, "the file is cut off inside its FLAC metadata block at offset \(at)") }
            try each(at, h)
            at += 4 + length
            if h[0] & 0x80 != 0 { return at }
        }
        throw MediaPrepError(.corrupt, "more than \(maxBlocks) FLAC metadata blocks")
    }

    // MARK: WAV

    /// What a WAV chunk names. GUANO (`guan`: a bat or bird recorder's text, AudioMoth's and Wildlife
    /// Acoustics'): the recorder, its serial, the time and, from a GPS, `Loc Position`. `cart`
    /// (broadcast): artist, title, client and dates. `axml`: an XML document (EBU Core). `umid`: an
    /// extended SMPTE 330M ID holds the recording's time, place and device. `C2PA`: Content
    /// Credentials, whose claims may name the signer.
    static func wavFields(_ id: String, _ body: [UInt8]) -> PrivateFields {
        switch id {
        case "id3 ", "ID3 ": return ID3Frames.classify(body)
        case "bext": return [.author, .dates]
        case "_PMX", "XMP ": return .xmp
        case "guan": return Bytes.contains(body, "Loc Position") ? [.location, .dates, .device] : [.dates, .device]
        case "cart": return [.author, .title, .dates]
        case "axml", "C2PA": return .other
        case "umid": return body.count >= 64 ? [.location, .dates, .device] : .device
        default: return RIFFInfo.classify(body)
        }
    }

    /// Text and tag chunks become `JUNK` of the same size, which every RIFF reader skips.
    static func wav(_ r: ByteReader) throws -> MetadataRewrite? {
        let h = try r.read(0, 12)
        guard Bytes.ascii(h, 0, 4) == "RIFF", Bytes.ascii(h, 8, 4) == "WAVE" else { return nil }  // RF64 is left as it is
        var edits: [(Range<Int>, [MetadataRewrite.Piece])] = []
        var found: PrivateFields = []
        try IFFChunks.walk(r, bigEndian: false, samples: "data") { id, at, length in
            switch id {
            case "LIST", "id3 ", "ID3 ", "bext", "iXML", "_PMX", "DISP", "XMP ", "junk", "guan", "cart", "axml", "umid", "C2PA":
                let body = try r.read(at + 8, min(length, MP4MetadataStripper.scanBytes))
                if ["guan", "cart", "axml", "umid"].contains(id), !body.contains(where: { $0 != 0 }) { return }  // an empty one says nothing
                found.formUnion(Self.wavFields(id, body))
                edits.append((at..<at + 8 + length, [.bytes(Array("JUNK".utf8) + Bytes.le32(length)), .zeros(length)]))
            default: break
            }
        }
        return edits.isEmpty ? nil : MetadataRewrite(sourceSize: r.size, edits: edits, found: found.isEmpty ? .other : found)
    }
}

/// ID3v2 frame names, for what a tag held.
enum ID3Frames {
    /// A tag's whole length from its 10-byte header at `i`: header, body and the footer its flags
    /// announce; nil when the size is not syncsafe.
    static func tagLength(_ h: [UInt8], at i: Int = 0) -> Int? {
        guard let size = syncsafe(h[(i + 6)..<(i + 10)]) else { return nil }
        return 10 + size + (h[i + 5] & 0x10 != 0 ? 10 : 0)
    }

    /// Four bytes of seven bits each, as ID3v2 headers and footers give sizes; nil when a top bit is set.
    static func syncsafe(_ b: ArraySlice<UInt8>) -> Int? {
        b.allSatisfy({ $0 < 0x80 }) ? b.reduce(0) { $0 << 7 | Int($1) } : nil
    }

    private static let fields: [String: PrivateFields] = [
        "APIC": .coverArt, "PIC": .coverArt, "TPE1": .author, "TPE2": .author, "TPE3": .author, "TCOM": .author, "TEXT": .author,
        "TOLA": .author, "TOPE": .author, "TP1": .author, "TP2": .author, "TCM": .author, "TIT1": .title, "TIT2": .title,
        "TIT3": .title, "TALB": .title, "TT2": .title, "TAL": .title, "COMM": .comment, "COM": .comment, "USLT": .comment,
        "TDRC": .dates, "TYER": .dates, "TDAT": .dates, "TIME": .dates, "TDOR": .dates, "TORY": .dates, "TDRL": .dates,
        "TYE": .dates, "TDA": .dates,
    ]

    /// `tag` is the start of an ID3v2 tag (its 10-byte header first).
    static func classify(_ tag: [UInt8]) -> PrivateFields {
        guard tag.count >= 10, Bytes.ascii(tag, 0, 3) == "ID3" else { return .other }
        let version = tag[3]
        let idLength = version == 2 ? 3 : 4, headerLength = version == 2 ? 6 : 10
        var found: PrivateFields = [], at = 10
        while at + headerLength <= tag.count, tag[at] != 0 {
            let id = Bytes.ascii(tag, at, idLength)
            let size = version == 2 ? Bytes.be(tag, at + 3, 3)
                : version == 4 ? tag[at + 4..<at + 8].reduce(0) { $0 << 7 | Int($1 & 0x7F) } : Bytes.be(tag, at + 4, 4)
            found.insert(fields[id] ?? .other)
            if id == "TXXX" || id == "COMM" { found.formUnion(MetadataKeys.classify(Array(tag[at..<min(tag.count, at + headerLength + size)]), container: id).subtracting(.other)) }
            guard size > 0 else { break }
            at += headerLength + size
        }
        return found.isEmpty ? .other : found
    }
}

/// A RIFF `LIST`/`INFO` chunk's fields (IART artist, INAM title, ICRD date, ISFT software…).
enum RIFFInfo {
    static func classify(_ body: [UInt8]) -> PrivateFields {
        let fields: [(String, PrivateFields)] = [("IART", .author), ("ICMS", .author), ("IENG", .author), ("INAM", .title), ("IPRD", .title),
                                                 ("ICMT", .comment), ("ISBJ", .comment), ("ICRD", .dates), ("ISFT", .other), ("IGPS", .location)]
        var found: PrivateFields = []
        for (id, field) in fields where Bytes.contains(body, id) { found.insert(field) }
        return found.isEmpty ? .other : found
    }
}

/// Vorbis comments (FLAC, Ogg Opus and Vorbis): little-endian lengths, `NAME=value` entries.
enum VorbisComments {
    private static let fields: [String: PrivateFields] = [
        "ARTIST": .author, "PERFORMER": .author, "COMPOSER": .author, "ALBUMARTIST": .author, "AUTHOR": .author,
        "TITLE": .title, "ALBUM": .title, "DATE": .dates, "YEAR": .dates, "CREATION_TIME": .dates, "COMMENT": .comment,
        "DESCRIPTION": .comment, "LOCATION": .location, "GPS": .location, "METADATA_BLOCK_PICTURE": .coverArt, "COVERART": .coverArt,
    ]

    /// The comment list starting at `from` (the vendor string's length).
    static func classify(_ b: [UInt8], from: Int) -> PrivateFields {
        guard let list = entries(b, from: from) else { return .other }
        var found: PrivateFields = []
        for name in list.names { found.insert(fields[name.uppercased()] ?? .other) }
        return found
    }

    /// The vendor string's end and each entry's name; nil when the lengths run past the data.
    static func entries(_ b: [UInt8], from: Int) -> (vendorEnd: Int, names: [String], end: Int)? {
        let vendor = Bytes.le(b, from, 4)
        var at = from + 4 + vendor
        guard vendor >= 0, at + 4 <= b.count else { return nil }
        let vendorEnd = at
        let count = Bytes.le(b, at, 4)
        at += 4
        var names: [String] = []
        for _ in 0..<min(count, 100_000) {
            let length = Bytes.le(b, at, 4)
            guard at + 4 + length <= b.count else { return nil }
            let entry = b[at + 4..<at + 4 + length]
            names.append(String(decoding: entry.prefix { $0 != 0x3D }, as: UTF8.self))
            at += 4 + length
        }
        return (vendorEnd, names, at)
    }
}

/// Whether a container's own structure reaches the end of the file. FFmpeg reads a file cut short
/// cleanly up to the cut and drops the piece the cut splits (an APNG's frame, a Matroska block, an
/// Ogg page), so a cut file would be sent as if whole; these say where the structure stops instead.
/// A file cut exactly between two pieces cannot be told from a shorter file and goes; the transcoders
/// also hold what they read against the duration the container claims (`MediaInput.requireClaimedEnd`).
enum ContainerEnd {
    /// A PNG's chunks (an APNG's frames are `fcTL`/`fdAT` chunks): each must fit, and `IEND` must come.
    static func png(_ d: [UInt8]) throws {
        var at = 8
        while at + 8 <= d.count {
            let length = Bytes.be(d, at, 4)
            let type = Bytes.ascii(d, at + 4, 4)
            guard at + 12 + length <= d.count else {
                throw MediaPrepError(.truncated, "the file is cut off inside its '\(type)' chunk at offset \(at)")
            }
            if type == "IEND" { return }
            at += 12 + length
        }
        throw MediaPrepError(.truncated, "the file is cut off: it ends at byte \(d.count) without its IEND chunk")
    }

    /// ISO BMFF (HEIC, AVIF, JPEG XL's container): every top-level box must fit in the file.
    static func isoBMFF(_ d: [UInt8]) throws {
        var at = 0
        while at + 8 <= d.count {
            // A box type is four printable characters: anything else is junk after the last box, which readers skip.
            guard isBoxType(d[at + 4..<at + 8]) else { return }
            var size = Bytes.be(d, at, 4), header = 8
            let type = Bytes.ascii(d, at + 4, 4)
            if size == 1 {
                guard at + 16 <= d.count else { throw MediaPrepError(.truncated, "the file is cut off inside its '\(type)' box header at offset \(at)") }
                (size, header) = (Bytes.be(d, at + 8, 8), 16)
            } else if size == 0 {
                return  // to the end of the file
            }
            guard size >= header else { throw MediaPrepError(.corrupt, "'\(type)' box at offset \(at) claims \(size) bytes, less than its header") }
            guard size <= d.count - at else {
                // Only a box a file has at its top level is cut short: anything else there is bytes
                // appended after the last box (text, an ID3v1 tag whose 'TAG' and title read as a header).
                guard isTopLevelBox(type) else { return }
                throw MediaPrepError(.truncated, "the file is cut off: its '\(type)' box at offset \(at) claims \(size) bytes, \(d.count - at) are left")
            }
            at += size
        }
    }

    /// Boxes found at an ISO BMFF file's top level (ISO/IEC 14496-12 and 23008-12, QuickTime, JPEG XL's
    /// container): a file cut short ends inside one of them, mostly `mdat`.
    static let topLevelBoxes: Set<String> = ["ftyp", "styp", "moov", "mdat", "free", "skip", "wide", "uuid", "moof", "mfra",
                                             "meta", "pdin", "sidx", "ssix", "prft", "emsg", "pnot", "PICT", "jxlc", "jxlp",
                                             "jxll", "jxli", "jbrd", "Exif", "xml ", "brob", "jumb", "JXL ", "idat", "iloc"]
    static func isTopLevelBox(_ type: String) -> Bool { topLevelBoxes.contains(type) }

    /// Whether four bytes can name an ISO BMFF box (printable ASCII, as every registered type is).
    static func isBoxType(_ b: ArraySlice<UInt8>) -> Bool { b.count == 4 && b.allSatisfy { (0x20...0x7E).contains($0) } }

    /// RIFF (WebP): the size its header gives must fit in the file.
    static func riff(_ d: [UInt8]) throws {
        guard d.count >= 12, d.starts(with: Array("RIFF".utf8)) else { return }
        let size = Bytes.le(d, 4, 4)
        if 8 + size > d.count {
            throw MediaPrepError(.truncated, "the file is cut off: its RIFF header claims \(8 + size) bytes, the file has \(d.count)")
        }
    }

    /// What a recording must pass before it is made a voice note, where FFmpeg would read what is
    /// there without a word: a WAV's data chunk, an Ogg's pages, a FLAC's or MP3's claimed length, a
    /// bare AC-3, E-AC-3 or DTS stream's last frame (`AudioStreamEnd`). `prepare` and `check` both ask.
    /// - Returns: where the sound ends when a tag follows it (ID3v1, APEv2), which players skip and
    ///   a decoder must not be handed (inside a FLAC's last packet it fails that frame's checksum,
    ///   and an Ogg page walk finds no page in it). Nil: the whole file. An MP3's is FFmpeg's own.
    @discardableResult
    static func voiceSource(_ format: MediaFormat, path: String) throws -> Int? {
        guard [.wav, .ogg, .flac, .mp3, .ac3, .eac3, .dts].contains(format) else { return nil }
        let file = try InputFile(path).reader
        if format == .mp3 {
            try mp3Stream(file)
            // An ID3v2 tag appended after the frames reaches the decoder as a damaged packet: read to
            // where the frames end (ID3v1 and APE the demuxer skips itself).
            let tags = try AudioTagStripper.tagged(file)
            return tags.appendedID3v2 ? tags.audio.upperBound : nil
        }
        let audio = try AudioTagStripper.tagged(file).audio
        let end = audio.upperBound
        let r = file.slice(audio)
        switch format {
        case .wav: try wavData(r)
        case .ogg: try oggPages(r)
        case .flac: try flacFrames(r)
        default: try frameStream(r, format: format)
        }
        return end < file.size ? end : nil
    }

    /// WAV made into a voice note: its data chunk must fit in the file, unless its size is a
    /// placeholder a streaming writer left (0, or all ones). Sent as a file, a WAV goes as the
    /// recording it is.
    static func wavData(_ r: ByteReader) throws {
        let h = try r.read(0, 12)
        guard h.count == 12, Bytes.ascii(h, 0, 4) == "RIFF", Bytes.ascii(h, 8, 4) == "WAVE" else { return }
        var at = 12
        for _ in 0..<10_000 {
            let c = try r.read(at, 8)
            guard c.count == 8 else { return }
            let length = Bytes.le(c, 4, 4)
            if Bytes.ascii(c, 0, 4) == "data" {
                guard length != 0, length != 0xFFFF_FFFF, length != 0x7FFF_FFFF else { return }
                if at + 8 + length > r.size {
                    throw MediaPrepError(.truncated, "the recording is cut off: its data chunk claims \(length) bytes, \(r.size - at - 8) are left")
                }
                return
            }
            at += 8 + length + (length & 1)
        }
    }

    /// Ogg made into a voice note: every page whole and its checksum its own. FFmpeg's demuxer drops
    /// a page whose checksum fails and plays on, so the note would lack its sound.
    static func oggPages(_ r: ByteReader, maxPages: Int = 100_000) throws {
        var at = 0
        for _ in 0..<maxPages {
            guard at < r.size else { return }
            let page = try OggPage.read(r, at: at)
            let length = page.count
            guard OggCRC.matches(page) else { throw MediaPrepError(.corrupt, "the Ogg page at offset \(at) is damaged: its checksum fails") }
            at += length
        }
        throw MediaPrepError(.corrupt, "more than \(maxPages) Ogg pages")
    }

    /// Matroska and WebM: the Segment's size, when the muxer wrote one (a live recording leaves it
    /// unknown), must fit in the file.
    static func matroska(_ r: ByteReader) throws {
        let h = try r.read(0, 64)
        guard h.starts(with: [0x1A, 0x45, 0xDF, 0xA3]), let (headerSize, n) = vint(h, 4) else { return }
        let segment = 4 + n + headerSize  // the EBML header's end: the Segment starts here
        let s = try r.read(segment, 12)
        guard s.starts(with: [0x18, 0x53, 0x80, 0x67]), let (size, m) = vint(s, 4), size != unknownSize(m) else { return }
        let end = segment + 4 + m + size
        if end > r.size {
            throw MediaPrepError(.truncated, "the file is cut off: its Segment ends at byte \(end), the file has \(r.size)")
        }
    }

    /// Ogg (Opus, Vorbis, FLAC in Ogg): the last page must be whole. Its capture pattern is looked for
    /// in the file's last 64 KiB (a page is at most 65,307 bytes).
    static func ogg(_ r: ByteReader) throws {
        let tailStart = max(0, r.size - 65_536)
        let tail = try r.read(tailStart, r.size - tailStart)
        let pattern: [UInt8] = Array("OggS".utf8) + [0]
        guard tail.count >= pattern.count,
              let i = stride(from: tail.count - pattern.count, through: 0, by: -1).first(where: { tail[$0..<$0 + 5].elementsEqual(pattern) }) else { return }
        let at = tailStart + i
        guard i + 27 <= tail.count, i + 27 + Int(tail[i + 26]) <= tail.count else {
            throw MediaPrepError(.truncated, "the file is cut off inside its last Ogg page header, at offset \(at)")
        }
        let segments = Int(tail[i + 26])
        let body = tail[(i + 27)..<(i + 27 + segments)].reduce(0) { $0 + Int($1) }
        if i + 27 + segments + body > tail.count {
            throw MediaPrepError(.truncated, "the file is cut off inside its last Ogg page, at offset \(at)")
        }
    }

    /// An EBML variable-length integer at `at`: its value and its length in bytes.
    private static func vint(_ b: [UInt8], _ at: Int) -> (Int, Int)? {
        guard at < b.count, b[at] != 0 else { return nil }
        let length = b[at].leadingZeroBitCount + 1
        guard at + length <= b.count, length <= 8 else { return nil }
        var v = Int(b[at]) & (0xFF >> length)
        for k in 1..<length { v = v << 8 | Int(b[at + k]) }
        return (v, length)
    }

    /// The value an EBML size of `length` bytes has when every bit is set: "unknown".
    private static func unknownSize(_ length: Int) -> Int { (1 << (7 * length)) - 1 }
}

/// Whether a FLAC or MP3 recording reaches the length its own header claims, read from the file's
/// ends without decoding: `check` can then refuse a cut one as `prepare` does when it makes it a
/// voice note (there the decode is also held against the claim, `MediaInput.requireClaimedEnd`).
extension ContainerEnd {
    /// What a recording may lack before it is cut off: a voice note's 0.2 s, or 5 % of a long one.
    static func isCutShort(claimed: Double, reached: Double, slack: Double) -> Bool {
        claimed - reached > max(slack, claimed * 0.05)
    }

    /// A voice note's slack: more than an MP3's encoder delay and padding (~50 ms) or a FLAC frame
    /// (93 ms), less than a tenth of a two-second note.
    static let soundSlack = 0.2

    /// FLAC: STREAMINFO gives the samples; the last frame header says where the frames stop. A
    /// header is two sync bytes and a CRC-8, which audio data can imitate (about once in 10⁷ bytes),
    /// so the last one counts only when an earlier one ends where it starts, or it is the first frame.
    static func flacFrames(_ r: ByteReader) throws {
        let head = try r.read(0, 42)
        guard head.count == 42, Bytes.ascii(head, 0, 4) == "fLaC", head[4] & 0x7F == 0 else { return }
        let info = Array(head[8..<42])
        let blockSize = Bytes.be(info, 2, 2)  // the largest; every frame's but the last in a fixed-size stream
        let rate = Bytes.be(info, 10, 3) >> 4
        let total = (Int(info[13]) & 0x0F) << 32 | Bytes.be(info, 14, 4)
        guard rate > 0, total > 0, blockSize >= 16 else { return }  // 0: not known to the encoder
        let claimed = Double(total) / Double(rate)
        let first = try AudioTagStripper.flacBlocks(r)  // where the frames start
        guard first < r.size else {
            throw MediaPrepError(.truncated, String(printf: "the recording is cut off: it claims %.1f s, and its frames are gone", claimed))
        }
        // The last frames: twice the largest frame STREAMINFO gives (128 KiB when it gives none, at
        // most 4 MiB: a frame of 65,535 samples of 8 channels at 32 bits is 2 MiB).
        let start = max(first, r.size - min(4 << 20, max(1 << 17, 2 * Bytes.be(info, 7, 3))))
        let tail = try r.read(start, r.size - start)
        var seen: [(at: Int, header: FLACFrameHeader)] = []  // later ones first
        var i = tail.count - 6
        while i >= 0 {
            if tail[i] == 0xFF, tail[i + 1] & 0xFE == 0xF8, let f = FLACFrameHeader(tail, at: i, blockSize: blockSize) {
                let last = seen.first { $0.header.firstSample == f.firstSample + f.samples } ?? (start + i == first ? (i, f) : nil)
                if let (at, header) = last {
                    // The last frame counts when its CRC-16 closes it at the end of the file, or
                    // before a tag; closed only somewhere inside (which random bytes do once in
                    // 65,536), it may be cut, so the sound is taken to end where it starts.
                    let close = FLACFrameHeader.close(tail[at...])
                    guard close != .never else {
                        throw MediaPrepError(.truncated, "the recording is cut off inside its last frame, at offset \(start + at)")
                    }
                    let end = header.firstSample + (close == .inside ? 0 : header.samples)
                    let reached = Double(end) / Double(rate)
                    if isCutShort(claimed: claimed, reached: reached, slack: soundSlack) {
                        throw MediaPrepError(.truncated, String(printf: "the recording is cut off: it claims %.1f s, its last whole frame ends at %.1f s",
                                                                claimed, reached))
                    }
                    return
                }
                seen.append((i, f))
                guard seen.count < 4096 else { return }
            }
            i -= 1
        }
    }

    /// A bare AC-3, E-AC-3 or DTS stream: each frame's header says its length, so a file cut inside
    /// its last frame is told (one cut between two frames is whole as far as any reader can know).
    /// Where no frame starts where the last one ended the walk stops judging: such streams may hold
    /// padding or a second stream.
    static func frameStream(_ r: ByteReader, format: MediaFormat) throws {
        let length: ([UInt8], Int) -> Int? = switch format {
        case .ac3: FormatSniffer.ac3FrameLength
        case .eac3: FormatSniffer.eac3FrameLength
        default: FormatSniffer.dtsFrameLength
        }
        let header = format == .dts ? 8 : 6
        let syncs: [[UInt8]] = format == .dts ? [[0x7F, 0xFE, 0x80, 0x01], [0xFE, 0x7F, 0x01, 0x80]] : [[0x0B, 0x77]]
        var (at, chunk, chunkAt) = (0, [UInt8](), 0)
        while at < r.size {
            if at + header > chunkAt + chunk.count { (chunk, chunkAt) = (try r.read(at, min(1 << 16, r.size - at)), at) }
            guard at + header <= r.size else {
                // A few bytes left: a frame's header cut short if they start as one, else stray bytes.
                let left = Array(chunk[(at - chunkAt)...])
                guard syncs.contains(where: { $0.starts(with: left.prefix($0.count)) }) else { return }
                throw MediaPrepError(.truncated, "the recording is cut off inside the header of its frame at offset \(at)")
            }
            guard let n = length(chunk, at - chunkAt) else { return }
            guard n <= r.size - at else {
                throw MediaPrepError(.truncated, "the recording is cut off: its frame at offset \(at) claims \(n) bytes, \(r.size - at) are left")
            }
            at += n
        }
    }

    /// MP3: the Xing/Info (or VBRI) header an encoder writes in the first frame gives the stream's
    /// frames and bytes; a file with fewer bytes than that is cut off. FFmpeg and LAME count the
    /// frames alone; a file that holds exactly the bytes with its leading ID3v2 tags counted too is
    /// taken as whole (an encoder that counts them), as is one holding at least the frames' bytes.
    static func mp3Stream(_ r: ByteReader) throws {
        let audio = try AudioTagStripper.tagged(r).audio
        let h = try r.read(audio.lowerBound, 4 + 32 + 18)
        guard h.count == 54, let frame = MPEGAudioHeader(h) else { return }  // reserved values: nothing to count
        let (rate, samplesPerFrame) = (frame.sampleRate, frame.samplesPerFrame)
        let side = frame.version == 3 ? (frame.mono ? 17 : 32) : (frame.mono ? 9 : 17)
        var frames = 0, bytes = 0
        if ["Xing", "Info"].contains(Bytes.ascii(h, 4 + side, 4)) {  // then its flags, frames and bytes: all in `h`
            guard Bytes.be(h, 8 + side, 4) & 3 == 3 else { return }  // frames and bytes both written
            (frames, bytes) = (Bytes.be(h, 12 + side, 4), Bytes.be(h, 16 + side, 4))
        } else if Bytes.ascii(h, 36, 4) == "VBRI" {
            (bytes, frames) = (Bytes.be(h, 46, 4), Bytes.be(h, 50, 4))
        }
        guard frames > 0, bytes > 0 else { return }  // none, or left blank (a piped encode)
        let claimed = Double(frames * samplesPerFrame) / Double(rate)
        func reached(_ held: Int) -> Double { claimed * Double(min(held, bytes)) / Double(bytes) }
        let withTags = audio.lowerBound > 0 && abs(audio.upperBound - bytes) <= Int(Double(bytes) * soundSlack / claimed)
        if isCutShort(claimed: claimed, reached: reached(audio.count), slack: soundSlack), !withTags {
            throw MediaPrepError(.truncated, String(printf: "the recording is cut off: its header claims %d bytes of frames (%.1f s), the file holds %d",
                                                    bytes, claimed, audio.count))
        }
    }
}

/// A FLAC frame header (RFC 9639 §9.1) whose reserved bits are clear, codes valid and CRC-8 right.
struct FLACFrameHeader {
    let firstSample: Int
    let samples: Int

    /// - Parameter blockSize: STREAMINFO's, which numbers a fixed-size stream's frames.
    init?(_ b: [UInt8], at i: Int, blockSize: Int) {
        guard i + 6 <= b.count, b[i] == 0xFF, b[i + 1] & 0xFE == 0xF8 else { return nil }
        let variable = b[i + 1] & 1 == 1
        let sizeCode = Int(b[i + 2] >> 4), rateCode = Int(b[i + 2] & 0x0F)
        let channels = Int(b[i + 3] >> 4), depth = Int(b[i + 3] >> 1) & 7
        guard sizeCode != 0, rateCode != 15, channels <= 10, depth != 3, b[i + 3] & 1 == 0 else { return nil }
        // The frame or sample number, UTF-8 coded (up to 7 bytes, 36 bits).
        var at = i + 4
        let lead = b[at]
        let extra = lead < 0x80 ? 0 : lead < 0xC0 ? -1 : lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : lead < 0xF8 ? 3 : lead < 0xFC ? 4 : lead < 0xFE ? 5 : lead == 0xFE ? 6 : -1
        guard extra >= 0, at + 1 + extra <= b.count else { return nil }
        var number = extra == 0 ? Int(lead) : Int(lead) & (0x3F >> extra)
        if extra > 0 {
            for k in 1...extra {
                guard b[at + k] & 0xC0 == 0x80 else { return nil }
                number = number << 6 | Int(b[at + k] & 0x3F)
            }
        }
        at += 1 + extra
        var samples: Int
        switch sizeCode {
        case 1: samples = 192
        case 2...5: samples = 576 << (sizeCode - 2)
        case 6, 7:
            guard at + sizeCode - 5 <= b.count else { return nil }
            samples = Bytes.be(b, at, sizeCode - 5) + 1
            at += sizeCode - 5
        default: samples = 256 << (sizeCode - 8)
        }
        switch rateCode {
        case 12: at += 1
        case 13, 14: at += 2
        default: break
        }
        guard at < b.count, Self.crc8(b[i..<at]) == b[at] else { return nil }
        (firstSample, self.samples) = (variable ? number : number * blockSize, samples)
    }

    /// Where a frame's CRC-16 (x¹⁶ + x¹⁵ + x² + 1, big-endian in its last two bytes) closes it.
    enum Close { case atEnd, beforeTag, inside, never }

    /// Where `bytes`, a frame from its header to the end of the file, is closed: at the end, before
    /// a tag (ID3v1, APEv2, ID3v2) a decoder would not read, only somewhere inside, or nowhere.
    static func close(_ b: ArraySlice<UInt8>) -> Close {
        guard b.count >= 8 else { return .never }
        var crc: UInt16 = 0, inside = false
        for k in b.startIndex..<b.endIndex - 2 {
            crc = crc << 8 ^ crc16Table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ b[k])]
            guard k >= b.startIndex + 5, crc == UInt16(b[k + 1]) << 8 | UInt16(b[k + 2]) else { continue }
            if k + 3 == b.endIndex { return .atEnd }
            if ["TAG", "ID3", "APE"].contains(String(decoding: b[(k + 3)..<min(k + 6, b.endIndex)], as: UTF8.self)) { return .beforeTag }
            inside = true
        }
        return inside ? .inside : .never
    }

    /// The CRC-16's remainders of each byte value.
    static let crc16Table: [UInt16] = (0..<256).map { n in
        var c = UInt16(n) << 8
        for _ in 0..<8 { c = c & 0x8000 != 0 ? (c << 1) ^ 0x8005 : c << 1 }
        return c
    }

    /// CRC-8, polynomial x⁸ + x² + x + 1, over the header's bytes.
    static func crc8(_ bytes: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in bytes {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }
}

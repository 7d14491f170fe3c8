/// Sound: tag blocks cut or voided by `AudioTagStripper` (ID3, APE, Vorbis comments, RIFF and IFF
/// chunks); AMR carries none.
enum AudioFormats {
    private static let tags: @Sendable (ByteReader, MediaFormat) throws -> MetadataRewrite? = { r, format in
        try AudioTagStripper.rewrite(r, format: format)
    }

    static let amr = FormatEntry(formats: [.amr]) { $0.at(0, "#!AMR\n") || $0.at(0, "#!AMR-WB\n") ? .amr : nil }
    static let aiff = FormatEntry(formats: [.aiff], recognise: { $0.at(0, "FORM") && ($0.at(8, "AIFF") || $0.at(8, "AIFC")) ? .aiff : nil }, rewrite: tags)
    static let caf = FormatEntry(formats: [.caf], recognise: { h in h.at(0, "caff") && h.b.count >= 8 && h.b[4] == 0 && h.b[5] == 1 ? .caf : nil }, rewrite: tags)  // version 1
    static let wavpack = FormatEntry(formats: [.wavpack], recognise: { $0.at(0, "wvpk") ? .wavpack : nil }, rewrite: tags)
    /// Text may start with these letters ("MAC address list"): the version or format after them too.
    static let ape = FormatEntry(formats: [.ape], recognise: { h in h.at(0, "MAC ") && h.b.count >= 6 && (3_800...4_200).contains(h.le(4, 2)) ? .ape : nil }, rewrite: tags)
    static let tta = FormatEntry(formats: [.tta], recognise: { h in h.at(0, "TTA1") && h.b.count >= 6 && (1...3).contains(h.le(4, 2)) ? .tta : nil }, rewrite: tags)
    /// An AC-3 sync frame: a bsid of AC-3's (≤ 10), a sample rate and frame size code that exist.
    static let ac3 = FormatEntry(formats: [.ac3], recognise: { h in h.starts([0x0B, 0x77]) && FormatSniffer.ac3FrameLength(h.b, 0) != nil ? .ac3 : nil }, rewrite: tags)
    /// E-AC-3's bsid (11–16) is what lowercase text would read as: a second frame must follow where
    /// the first's size says it ends.
    static let eac3 = FormatEntry(formats: [.eac3], recognise: { h in
        h.starts([0x0B, 0x77]) && FormatSniffer.eac3FrameLength(h.b, 0) != nil
            && FormatSniffer.followedByFrame(Array(h.data.prefix(FormatSniffer.audioFramesLength)), length: FormatSniffer.eac3FrameLength) ? .eac3 : nil
    }, rewrite: tags)
    /// DTS: its core's 32-bit sync (in big- or little-endian 16-bit words) and a frame size that exists.
    static let dts = FormatEntry(formats: [.dts], recognise: { FormatSniffer.dtsFrameLength($0.b, 0) != nil ? .dts : nil }, rewrite: tags)
    /// Dolby TrueHD and MLP: a major sync four bytes in.
    static let truehd = FormatEntry(formats: [.truehd], recognise: { h in
        h.starts([0xF8, 0x72, 0x6F, 0xBA], at: 4) || h.starts([0xF8, 0x72, 0x6F, 0xBB], at: 4) ? .truehd : nil
    }, rewrite: tags)
    static let ogg = FormatEntry(formats: [.ogg], recognise: { $0.at(0, "OggS") ? .ogg : nil }, rewrite: tags)
    static let flac = FormatEntry(formats: [.flac], recognise: { $0.at(0, "fLaC") ? .flac : nil }, rewrite: tags)
    /// ID3v2.2–2.4 in front: an MP3 (a FLAC behind it is told by `FormatSniffer.behindID3`).
    static let id3 = FormatEntry(formats: [.mp3], recognise: { h in h.at(0, "ID3") && h.b.count >= 10 && (2...4).contains(h.b[3]) && h.b[4] != 0xFF ? .mp3 : nil }, rewrite: tags)
    /// Bare ADTS or MPEG audio (no ID3 before it): a frame sync is two bytes any file may start with
    /// (a UTF-16 text file's FF FE reads as MPEG-1 Layer I), so the next frame must follow where the
    /// first one's header says it ends (`audioFramesLength`).
    static let frameSync = FormatEntry(formats: [.aac, .mp3], recognise: { h in
        let b = h.b
        guard b.count >= 2, b[0] == 0xFF else { return nil }
        let frames = Array(h.data.prefix(FormatSniffer.audioFramesLength))
        if b[1] & 0xF6 == 0xF0, FormatSniffer.followedByFrame(frames, length: FormatSniffer.adtsFrameLength) { return .aac }
        // The same version, layer and sample rate.
        if b[1] & 0xE0 == 0xE0, FormatSniffer.followedByFrame(frames, length: FormatSniffer.mpegFrameLength, same: { frames[$0 + 1] & 0xFE == b[1] & 0xFE && frames[$0 + 2] & 0x0C == b[2] & 0x0C }) {
            return .mp3
        }
        return nil
    }, rewrite: tags)
}

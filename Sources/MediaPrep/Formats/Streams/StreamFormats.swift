/// Movie containers: Matroska and WebM (their tags voided in place), and those only ever transcoded
/// (FLV, MPEG-PS and TS, ASF, RealMedia, MXF, DV: no rewrite takes their metadata out in place).
enum StreamFormats {
    static let flv = FormatEntry(formats: [.flv]) { $0.starts([0x46, 0x4C, 0x56, 0x01]) ? .flv : nil }  // "FLV", version 1
    static let mpegps = FormatEntry(formats: [.mpegps]) { $0.starts([0x00, 0x00, 0x01, 0xBA]) ? .mpegps : nil }  // a pack header
    /// ASF's Header Object GUID, 75B22630-668E-11CF-A6D9-00AA0062CE6C, as stored.
    static let asf = FormatEntry(formats: [.asf]) {
        $0.starts([0x30, 0x26, 0xB2, 0x75, 0x8E, 0x66, 0xCF, 0x11, 0xA6, 0xD9, 0x00, 0xAA, 0x00, 0x62, 0xCE, 0x6C]) ? .asf : nil
    }
    /// RealMedia (and RealAudio in it): ".RMF", a header chunk of the size it has (18, or 16 in its
    /// first version) and an object version of 0 or 1 (text may start ".RMF is…").
    static let realMedia = FormatEntry(formats: [.realMedia]) { h in
        h.at(0, ".RMF") && h.b.count >= 10 && (16...64).contains(Bytes.be(h.b, 4, 4)) && Bytes.be(h.b, 8, 2) <= 1 ? .realMedia : nil
    }
    /// MXF: a header partition pack's SMPTE key.
    static let mxf = FormatEntry(formats: [.mxf]) {
        $0.starts([0x06, 0x0E, 0x2B, 0x34, 0x02, 0x05, 0x01, 0x01, 0x0D, 0x01, 0x02, 0x01, 0x01, 0x02]) ? .mxf : nil
    }
    /// DV: a DIF sequence's header block (525/60 or 625/50), then its first subcode block 80 bytes on.
    static let dv = FormatEntry(formats: [.dv]) { h in
        guard h.starts([0x1F, 0x07, 0x00]), h.b.count >= 4, h.b[3] & 0x7F == 0x3F else { return nil }
        let blocks = Array(h.data.prefix(84))
        return blocks.count >= 83 && blocks[80] == 0x3F && blocks[81] == 0x07 && blocks[82] == 0x00 ? .dv : nil
    }
    /// EBML: the DocType in the first few dozen bytes says WebM, else Matroska.
    static let ebml = FormatEntry(formats: [.webm, .matroska], recognise: { h in
        guard h.starts([0x1A, 0x45, 0xDF, 0xA3]) else { return nil }
        let webm = Array("webm".utf8), b = h.b
        return b.count >= 4 && (0...(b.count - 4)).contains(where: { b[$0..<$0 + 4].elementsEqual(webm) }) ? .webm : .matroska
    }, rewrite: { r, _ in try MatroskaMetadataStripper.rewrite(r) })
    /// MPEG-TS: a sync byte every 188 bytes, three times; AVCHD's M2TS puts a 4-byte time stamp
    /// before each: told past the first 64 bytes (`transportStreamLength`), as bare audio is by two frames.
    static let transportStream = FormatEntry(formats: [.mpegts]) { h in
        let ts = Array(h.data.prefix(FormatSniffer.transportStreamLength))
        for (first, size) in [(0, 188), (4, 192)] where ts.count > first + 2 * size && (0..<3).allSatisfy({ ts[first + $0 * size] == 0x47 }) {
            return .mpegts
        }
        return nil
    }
}

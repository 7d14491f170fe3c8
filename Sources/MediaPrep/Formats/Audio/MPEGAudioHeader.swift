/// An MPEG audio (Layer I, II, III) frame header: what the sniffer tells a stream by and what the cut
/// check (`AudioStreamEnd.mp3Stream`) counts time with. Nil where the version, layer or sample rate
/// is a reserved value.
struct MPEGAudioHeader {
    /// 3 MPEG-1, 2 MPEG-2, 0 MPEG-2.5.
    let version: Int
    /// 3 Layer I, 2 Layer II, 1 Layer III.
    let layer: Int
    let sampleRate: Int
    let bitRateIndex: Int
    let padding: Int
    let mono: Bool
    /// 2 is reserved.
    let emphasis: Int

    init?(_ b: [UInt8], at: Int = 0) {
        guard b.count >= at + 4, b[at] == 0xFF, b[at + 1] & 0xE0 == 0xE0 else { return nil }
        (version, layer) = (Int(b[at + 1] >> 3) & 3, Int(b[at + 1] >> 1) & 3)
        let sampleIndex = Int(b[at + 2] >> 2) & 3
        guard version != 1, layer != 0, sampleIndex != 3 else { return nil }
        sampleRate = [44_100, 48_000, 32_000][sampleIndex] >> (version == 3 ? 0 : version == 2 ? 1 : 2)
        (bitRateIndex, padding) = (Int(b[at + 2] >> 4), Int(b[at + 2] >> 1) & 1)
        (mono, emphasis) = (b[at + 3] >> 6 == 3, Int(b[at + 3] & 3))
    }

    var samplesPerFrame: Int { layer == 3 ? 384 : (layer == 2 || version == 3 ? 1152 : 576) }

    /// The frame's bytes, nil for a free (0) or reserved (15) bit rate: no length to check.
    var length: Int? {
        guard (1...14).contains(bitRateIndex) else { return nil }
        let kbits: [Int] = switch (version == 3, layer) {
        case (true, 3): [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        default: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let bits = kbits[bitRateIndex] * 1000
        return layer == 3 ? (12 * bits / sampleRate + padding) * 4 : (layer == 1 && version != 3 ? 72 : 144) * bits / sampleRate + padding
    }
}

/// Whether an H.264 stream is coded as fields: its SPS's `frame_mbs_only_flag` is 0. The probe does
/// not decode a frame (FFmpeg's `field_order` stays unknown for MP4 and Matroska), so the flag is read
/// from the `avcC` configuration the container holds, scaling lists and all (ITU-T H.264 7.3.2.1.1).
enum H264Interlacing {
    /// Nil when `avcC` holds no SPS that can be read.
    static func isInterlaced(avcC: [UInt8]) -> Bool? {
        guard avcC.count > 8, avcC[0] == 1, avcC[5] & 0x1F > 0 else { return nil }
        let length = Int(avcC[6]) << 8 | Int(avcC[7])
        guard length > 4, avcC.count >= 8 + length else { return nil }
        return frameMBsOnly(sps: Array(avcC[8..<8 + length])).map { !$0 }
    }

    /// `frame_mbs_only_flag` of an SPS NAL unit (its header byte first).
    static func frameMBsOnly(sps nal: [UInt8]) -> Bool? {
        guard nal.first.map({ $0 & 0x1F == 7 }) == true else { return nil }
        var r = BitReader(rbsp: Array(nal.dropFirst()))
        guard let profile = r.bits(8), r.bits(16) != nil, r.ue() != nil else { return nil }  // constraints, level, id
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            guard let chroma = r.ue() else { return nil }
            if chroma == 3 { guard r.bits(1) != nil else { return nil } }
            guard r.ue() != nil, r.ue() != nil, r.bits(1) != nil, let matrix = r.bits(1) else { return nil }
            if matrix == 1 {
                for i in 0..<(chroma != 3 ? 8 : 12) {
                    guard let present = r.bits(1) else { return nil }
                    guard present == 1 else { continue }
                    var last = 8, next = 8
                    for _ in 0..<(i < 6 ? 16 : 64) {
                        if next != 0 {
                            guard let delta = r.se() else { return nil }
                            next = (last + delta + 256) % 256
                        }
                        last = next == 0 ? last : next
                    }
                }
            }
        }
        guard r.ue() != nil, let pocType = r.ue() else { return nil }  // log2_max_frame_num, pic_order_cnt_type
        if pocType == 0 {
            guard r.ue() != nil else { return nil }
        } else if pocType == 1 {
            guard r.bits(1) != nil, r.se() != nil, r.se() != nil, let cycle = r.ue(), cycle < 256 else { return nil }
            for _ in 0..<cycle { guard r.se() != nil else { return nil } }
        }
        // max_num_ref_frames, gaps_in_frame_num_allowed, width and height in macroblocks.
        guard r.ue() != nil, r.bits(1) != nil, r.ue() != nil, r.ue() != nil, let flag = r.bits(1) else { return nil }
        return flag == 1
    }

    /// Bits of an RBSP (emulation prevention bytes taken out), nil past its end.
    struct BitReader {
        private let bytes: [UInt8]
        private var at = 0

        init(rbsp escaped: [UInt8]) {
            var out: [UInt8] = []
            var zeros = 0
            for b in escaped {
                if zeros >= 2 && b == 3 { zeros = 0; continue }
                zeros = b == 0 ? zeros + 1 : 0
                out.append(b)
            }
            bytes = out
        }

        mutating func bits(_ n: Int) -> Int? {
            guard at + n <= bytes.count * 8 else { return nil }
            var v = 0
            for _ in 0..<n {
                v = v << 1 | Int(bytes[at >> 3] >> (7 - UInt8(at & 7)) & 1)
                at += 1
            }
            return v
        }

        /// Unsigned Exp-Golomb (at most 31 leading zeros).
        mutating func ue() -> Int? {
            var zeros = 0
            while true {
                guard let b = bits(1) else { return nil }
                if b == 1 { break }
                zeros += 1
                guard zeros < 32 else { return nil }
            }
            guard let rest = bits(zeros) else { return nil }
            return (1 << zeros) - 1 + rest
        }

        mutating func se() -> Int? {
            guard let k = ue() else { return nil }
            return k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
        }
    }
}

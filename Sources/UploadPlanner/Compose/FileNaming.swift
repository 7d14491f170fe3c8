/// File names as the app generates them: `<prefix>_yyyyMMdd_HHmmss.<ext>`, in UTC.
public enum FileNaming {
    public static func prefix(for kind: UploadContentKind) -> String {
        switch kind {
        case .image, .animatedImage: return "IMG"
        case .video: return "VID"
        case .voice: return "voice"
        case .file: return "FILE"
        }
    }

    /// - Parameter unixSeconds: the moment of preparation, seconds since 1970 UTC.
    public static func name(kind: UploadContentKind, unixSeconds: Int64, ext: String) -> String {
        "\(prefix(for: kind))_\(stamp(unixSeconds)).\(ext)"
    }

    /// `yyyyMMdd_HHmmss` without Foundation (days-from-civil, inverted).
    public static func stamp(_ t: Int64) -> String {
        // Years 0000–9999 only: outside them the date arithmetic below would overflow (fuzzing found Int64.min).
        let t = min(max(t, -62_167_219_200), 253_402_300_799)
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = t - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func p(_ v: Int64, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return p(y, 4) + p(m, 2) + p(d, 2) + "_" + p(secs / 3600, 2) + p(secs % 3600 / 60, 2) + p(secs % 60, 2)
    }
}

import FoundationEssentials
import Glibc
import UploadPlanner

/// Files: their own bytes under their own name, without what names the sender.
extension AttachmentPreparer {
    /// Plain files keep their own name (made unique), as the app sends documents.
    func prepareFile(_ probe: ProbeResult, _ rewrite: MetadataRewrite?) throws -> Produced {
        let (base, ext) = Self.ownName(probe.path)
        let (staged, bytes, route) = try copy(probe, rewrite, base: base, ext: ext)
        return Produced(staged: staged, bytes: bytes, format: probe.format, route: route, shown: .file, autoReceive: false)
    }

    /// A file's own name, as text the recipient's app can show (a byte that is not UTF-8 becomes `_`),
    /// split at its last dot.
    static func ownName(_ path: String) -> (base: String, ext: String) {
        let file = FileNameBytes.portable(path.split(separator: "/").last.map(String.init) ?? "file")
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return (file, "") }
        return (String(file[..<dot]), String(file[file.index(after: dot)...]))
    }

    static func ext(_ probe: ProbeResult, _ path: String) -> String {
        switch probe.format {
        case .mp4: return "mp4"
        case .mov: return "mov"
        case .webm: return "webm"
        case .matroska: return "mkv"
        case .avi: return "avi"
        case .m4a: return "m4a"
        case .aac: return "aac"
        case .mp3: return "mp3"
        case .ogg: return probe.audioCodec == "opus" ? "opus" : "ogg"
        case .wav: return "wav"
        case .flac: return "flac"
        default:
            let last = path.split(separator: "/").last ?? ""
            if let dot = last.lastIndex(of: ".") { return String(last[last.index(after: dot)...]).lowercased() }
            return "bin"
        }
    }
}

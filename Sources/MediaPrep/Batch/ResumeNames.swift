import FoundationEssentials
import Glibc
import UploadPlanner

/// `--resume`: an input's output is `OUT/<name>.<ext>` (a long screenshot's `<name>_part1.<ext>`,
/// `_part2`…, named last part first), where `<name>` is its path relative to the folder given. The
/// extension is always appended, so names are collision-free: `a/b/beach.png → a/b/beach.png.jpg`,
/// `notes.txt → notes.txt.txt`.
enum ResumeNames {
    /// Every extension prepare writes, and the input's own (a document keeps its format).
    static let extensions = ["jpg", "png", "gif", "mp4", "mov", "webm", "mkv", "m4a", "aac", "mp3", "opus", "ogg", "wav", "flac"]

    /// The item for an input whose complete output an earlier attempt left, or nil to prepare it.
    static func existing(_ dir: String, _ name: String, input: String) -> PreparedItem? {
        let own = FilePath.pathExtension(input)
        for ext in extensions + (own.isEmpty || extensions.contains(own) ? [] : [own]) {
            for candidate in [name + "." + ext, name + "_part1." + ext] {
                let path = dir + "/" + candidate
                var st = stat()
                guard FileNameBytes.withCString(path, { stat($0, &st) }) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
                var item = PreparedItem(input: input, kind: kind(ext))
                (item.output, item.bytes, item.skipped) = (path, Int(st.st_size), true)
                item.format = MediaFormat(rawValue: ext == "jpg" ? "jpeg" : ext == "mkv" ? "matroska" : ext)
                return item
            }
        }
        return nil
    }

    /// Of a skipped input, from its output's extension (a recording sent as a file reads as voice).
    private static func kind(_ ext: String) -> UploadContentKind {
        switch ext {
        case "jpg", "png": return .image
        case "gif": return .animatedImage
        case "mp4", "mov", "webm", "mkv": return .video
        case "m4a", "aac", "mp3", "opus", "ogg", "wav", "flac": return .voice
        default: return .file
        }
    }
}

import UploadPlanner

/// What one executor made, whole: a route returns all of it or throws, so delivery never meets a
/// half-filled result, and nothing is named before every field is known.
struct Produced: Sendable {
    /// Written under a temporary name; `AttachmentPreparer.deliver` names it (or a batch does).
    let staged: StagedFile
    let bytes: Int
    let format: MediaFormat
    let route: PrepareRoute
    private(set) var shown: Shown
    /// Whether recipients download it without asking (SimpleX's *_AUTO_RCV limits for its kind).
    let autoReceive: Bool
    /// A re-encoded JPEG's quality.
    var quality: Int? = nil
    /// Why, in words, beyond the plan's reasons (the quality search's; a motion video's own plan).
    var notes: [String] = []
    /// Its transparency was flattened onto this colour (0xRRGGBB): a JPEG has none.
    var flattenedOnto: UInt32? = nil

    /// What the message shows of the file, each kind with every field it needs.
    enum Shown: Sendable {
        case picture(width: Int, height: Int, preview: String)
        /// FFmpeg may not learn a stream's size from its headers alone; the preview is always there.
        case video(width: Int?, height: Int?, preview: String, duration: Int)
        case voice(duration: Int)
        case file
    }

    /// The message content without text; the composer adds text to the last one.
    var content: MsgContent {
        switch shown {
        case .picture(_, _, let preview): .image(text: "", image: preview)
        case .video(_, _, let preview, let duration): .video(text: "", image: preview, duration: duration)
        case .voice(let duration): .voice(text: "", duration: duration)
        case .file: .file(text: "")
        }
    }

    /// The same file shown with another preview (a motion photo's or Live Photo's still).
    func showing(_ preview: String) -> Produced {
        guard case .video(let w, let h, _, let duration) = shown else { return self }
        var copy = self
        copy.shown = .video(width: w, height: h, preview: preview, duration: duration)
        return copy
    }

    /// Runs what follows a file's staging (its probe, thumbnail, preview); a throw removes the file,
    /// so a failed input never leaves one to be named.
    static func finishing(_ staged: StagedFile, _ body: () throws -> Produced) throws -> Produced {
        do { return try body() } catch {
            staged.discard()
            throw error
        }
    }
}

extension PreparedItem {
    /// Fills what the message says of `made`, named as `output` (nil: left staged for a batch).
    mutating func record(_ made: Produced) {
        (bytes, format, route, autoReceive, content) = (made.bytes, made.format, made.route, made.autoReceive, made.content)
        (quality, flattenedOnto) = (made.quality, made.flattenedOnto)
        reasons += made.notes
        switch made.shown {
        case .picture(let w, let h, let p): (width, height, preview) = (w, h, p)
        case .video(let w, let h, let p, let d): (width, height, preview, durationSeconds) = (w, h, p, d)
        case .voice(let d): durationSeconds = d
        case .file: break
        }
    }
}

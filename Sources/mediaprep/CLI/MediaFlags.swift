import MediaPrep

/// The video and voice options `prepare` and `check` share: declared and parsed once.
enum MediaFlags {
    static let video = OptionSpec(names: ["--video"], value: "compatible|original",
                                  help: "compatible (default): MP4 with H.264/HEVC + AAC as is, MKV/WebM remuxed, other codecs transcoded to H.264 + AAC; original: as it came")
    static let videoMaxBytes = OptionSpec(names: ["--video-max-bytes"], value: "N",
                                          help: "re-encode videos to at most N bytes (never a byte over; overLimit if even 240p cannot fit)")
    static let audio = OptionSpec(names: ["--audio-as"], value: "auto|voice|file",
                                  help: "auto (default): a voice message up to 300 s, a file beyond; voice: always (over 300 s refused); file: always a file")
    static let autoReceive = OptionSpec(names: ["--auto-receive"], value: nil,
                                        help: "fit videos in 1,047,552 and voice notes in 522,240 bytes, and GIFs over 522,240 in 261,120: the sizes recipients download without asking")
    static let longImages = OptionSpec(names: ["--long-images"], value: "split|file|shrink",
                                       help: "a screenshot over 12 times taller than wide: split (default) into an album of readable parts, file: its original bytes, shrink: one image")

    static let quality = OptionSpec(names: ["--quality"], value: "standard|hd|original",
                                    help: "standard (default): as the app sends; hd: images up to 522,240 bytes (received without asking), videos up to 1080p; original: photos with their own pixels, metadata removed")
    static let videoMaxHeight = OptionSpec(names: ["--video-max-height"], value: "N",
                                           help: "videos at most N rows on their short side (480, 720, 1080…): larger ones are transcoded down")

    static let trim = OptionSpec(names: ["--trim"], value: "START-END",
                                 help: "send only this part of each video (seconds or m:ss): from the keyframe at or before START as it is, exact to the frame when transcoded")
    static let motion = OptionSpec(names: ["--motion"], value: "still|video",
                                   help: "a motion photo (Google's, Samsung's): still (default) sends the photo; video sends its seconds of video, the photo its preview")
    static let strictPrepare = OptionSpec(names: ["--strict"], value: nil,
                                          help: "refuse a document whose metadata cannot be taken out (encrypted or damaged PDF, signed package) instead of sending it as it came")
    static let trimToFit = OptionSpec(names: ["--trim-to-fit"], value: nil,
                                      help: "a video that cannot fit its byte budget whole is sent as its first part that fits")

    /// "75", "1:15", "1:15.5" or "0:01:15": seconds.
    static func seconds(_ text: Substring) -> Double? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            guard let v = Double(part), v >= 0, v.isFinite, i == parts.count - 1 || v == v.rounded() else { return nil }
            total = total * 60 + v
        }
        return total
    }

    static let maxBytes = OptionSpec(names: ["--max-bytes"], value: "N", help: "custom image byte budget")
    static let maxSide = OptionSpec(names: ["--max-side"], value: "N", help: "custom cap on an image's long side")
    static let background = OptionSpec(names: ["--background"], value: "COLOR",
                                       help: "what transparent pixels become when an image must be a JPEG: a name or #rrggbb (default white)")

    /// `--profile` with `--max-bytes`, `--max-side` and `--background` on top of it.
    static func profile<O: CommandOption>(_ a: Arguments<O>, profile: O, maxBytes: O, maxSide: O, background: O) throws -> ImageProfile {
        var p = ImageProfile.simplex
        if let name = a.value(profile) {
            guard let named = ImageProfile.named(name) else { throw UsageError(message: "unknown profile \(name) (simplex, bluesky)") }
            p = named
        }
        if let b = try a.int(maxBytes, min: 1024) { p.maxBytes = Int(b); p.name = "custom" }
        if let s = try a.int(maxSide, min: 16) { p.maxSide = Int(s); p.name = "custom" }
        if let c = a.value(background) {
            guard let colour = Background.parse(c) else { throw UsageError(message: "--background takes a colour name or #rrggbb, got \(c)") }
            p.background = colour
        }
        return p
    }

    /// `--auto-receive` first, then `--video`, `--video-max-bytes` and `--video-max-height` on top of
    /// it, then `--quality`'s limits where none was given (its image budget goes into `profile`).
    static func options<O: CommandOption>(_ a: Arguments<O>, profile: inout ImageProfile, video: O, videoMaxBytes: O, videoMaxHeight: O, autoReceive: O,
                           audio: O, longImages: O, quality: O, maxBytes: O, trim trimOption: O, trimToFit trimToFitOption: O, motion motionOption: O,
                           strict: O? = nil) throws -> MediaOptions {
        var m = a.has(autoReceive) ? MediaOptions.autoReceive() : MediaOptions()
        if let v = a.value(video) {
            guard let mode = MediaOptions.VideoMode(rawValue: v) else { throw UsageError(message: "--video takes compatible or original, got \(v)") }
            m.video = mode
        }
        if let n = try a.int(videoMaxBytes, min: 10_000) { m.videoMaxBytes = Int(n) }
        if let v = a.value(audio) {
            guard let mode = MediaOptions.AudioMode(rawValue: v) else { throw UsageError(message: "--audio-as takes auto, voice or file, got \(v)") }
            m.audio = mode
        }
        if let v = a.value(longImages) {
            guard let mode = MediaOptions.LongImages(rawValue: v) else { throw UsageError(message: "--long-images takes split, file or shrink, got \(v)") }
            m.longImages = mode
        }
        if let h = try a.int(videoMaxHeight, min: 32, max: 8640) { m.videoMaxHeight = Int(h) }
        if let t = a.value(trimOption) {
            let ends = t.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard ends.count == 2, let start = seconds(ends[0]), let end = seconds(ends[1]), end > start else {
                throw UsageError(message: "--trim takes START-END in seconds or m:ss, END after START (0:05-0:12), got \(t)")
            }
            m.trim = start..<end
        }
        m.trimToFit = a.has(trimToFitOption)
        if let strict, a.has(strict) { m.refuseUncleaned = true }
        if let v = a.value(motionOption) {
            guard let mode = MediaOptions.Motion(rawValue: v) else { throw UsageError(message: "--motion takes still or video, got \(v)") }
            m.motion = mode
        }
        if let q = a.value(quality) {
            guard let named = MediaOptions.Quality(rawValue: q) else { throw UsageError(message: "--quality takes standard, hd or original, got \(q)") }
            m.apply(named, to: &profile, explicitBytes: a.value(maxBytes) != nil)
        }
        return m
    }
}

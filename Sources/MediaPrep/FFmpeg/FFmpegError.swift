import CFFmpeg

extension MediaPrepError {
    /// Wraps a negative libav* return code with FFmpeg's own text for it.
    static func ffmpeg(_ code: MediaPrepError.Code, _ what: String, _ rc: Int32) -> MediaPrepError {
        var buf = [CChar](repeating: 0, count: 128)
        av_strerror(rc, &buf, buf.count)
        let text = String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return MediaPrepError(code, "\(what): \(text)")
    }
}

/// FFmpeg logs to stderr by default; the CLI's errors say it once, typed.
enum FFmpegSetup {
    static let once: Void = { cff_quiet() }()
}

import CFFmpeg
import Dispatch

/// FFmpeg's entry points, unwrapped once from the typed tables of `shim.h`: libavutil and libswscale
/// (`util`, what scaling an image needs) and libavformat, libavcodec and libswresample (`media`).
/// Copies of the tables are plain values; the libraries stay loaded for the process.
struct FFmpeg: @unchecked Sendable {
    let util: cff_util
    let media: cff_media
}

/// Opens each group of FFmpeg libraries the first time an input needs it: loading libavutil alone
/// pulls in X11, VA-API, VDPAU and OpenCL (~4 ms), libavcodec ~130 codec libraries (~35 ms).
package enum FFmpegLibraries {
    /// FFmpeg's log level to set when it is loaded (`AV_LOG_QUIET` = -8); nil leaves FFmpeg's own.
    /// The process owner (the CLI) decides: a library does not change process-wide state by itself.
    package static let logLevel = Locked<Int32?>(nil)
    private static let utilLoaded = Locked(false)

    /// Sets FFmpeg's level now if it is loaded, else when it is.
    package static func setLogLevel(_ level: Int32) {
        logLevel.withLock { $0 = level }
        if utilLoaded.withLock({ $0 }), case .success(let u) = utilTable { u.table.av_log_set_level(level) }
    }

    // Loaded on whichever thread first needs them, so timed as a note, not a nested stage.
    private static let utilTable: Result<DynamicTable.Shared<cff_util>, MediaPrepError> = Trace.noteTime("loaded libavutil, libswscale") {
        DynamicTable.load(cff_util_libraries(), cff_util_symbols(), global: true, as: cff_util.self, failing: .codecUnavailable, "FFmpeg's libavutil and libswscale are").map { table in
            if let level = logLevel.withLock({ $0 }) { table.av_log_set_level(level) }
            utilLoaded.withLock { $0 = true }
            return DynamicTable.Shared(table: table)
        }
    }

    private static let mediaTable: Result<DynamicTable.Shared<cff_media>, MediaPrepError> = Trace.noteTime("loaded libavformat, libavcodec, libswresample") {
        DynamicTable.load(cff_media_libraries(), cff_media_symbols(), global: true, as: cff_media.self, failing: .codecUnavailable,
                          "FFmpeg's libavformat, libavcodec and libswresample are").map(DynamicTable.Shared.init)
    }

    private static let filterTable: Result<DynamicTable.Shared<cff_filter>, MediaPrepError> = Trace.noteTime("loaded libavfilter") {
        DynamicTable.load(cff_filter_libraries(), cff_filter_symbols(), global: true, as: cff_filter.self, failing: .codecUnavailable,
                          "FFmpeg's libavfilter is").map(DynamicTable.Shared.init)
    }

    /// libavfilter (HDR to SDR), or `codecUnavailable`.
    static func filter() throws -> cff_filter { try filterTable.get().table }

    /// Starts loading libavutil and libswscale on another core, for an image that will surely be
    /// scaled: the ~2 ms of loading overlap reading and decoding it.
    static func prefetchScaling() {
        DispatchQueue.global(qos: .userInitiated).async { _ = try? util() }
    }

    /// libavutil and libswscale, or `codecUnavailable` when they are missing.
    static func util() throws -> cff_util { try utilTable.get().table }

    /// Every FFmpeg library, or `codecUnavailable`.
    static func all() throws -> FFmpeg { FFmpeg(util: try util(), media: try mediaTable.get().table) }

    static func codecName(_ id: AVCodecID) -> String {
        guard let ff = try? all(), let n = ff.media.avcodec_get_name(id) else { return "unknown" }
        return String(cString: n)
    }
}

extension MediaPrepError {
    /// Wraps a negative libav* return code with FFmpeg's own text for it.
    static func ffmpeg(_ code: MediaPrepError.Code, _ what: String, _ rc: Int32) -> MediaPrepError {
        var buf = [CChar](repeating: 0, count: 128)
        if let u = try? FFmpegLibraries.util() { _ = u.av_strerror(rc, &buf, buf.count) }
        let text = String(decoding: buf.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return MediaPrepError(code, "\(what): \(text.isEmpty ? "error \(rc)" : text)")
    }
}

/// A negative libav* return code, typed where callers branch on it (end of stream, try again).
struct AVError: Error, Equatable {
    let rc: Int32
    static let eof = AVError(rc: cff_error_eof())
    static let again = AVError(rc: cff_error_again())
    /// The deadline polled by libavformat's loops passed.
    static let exit = AVError(rc: cff_error_exit())
    static let noMemory = AVError(rc: cff_error_enomem())
    static let noSuchFile = AVError(rc: cff_averror(ENOENT))
    static let invalid = AVError(rc: cff_averror(EINVAL))

    /// Throws for a negative return code, else hands the value back.
    @discardableResult
    static func check(_ rc: Int32) throws(AVError) -> Int32 {
        if rc < 0 { throw AVError(rc: rc) }
        return rc
    }

    /// The error people see: a stable code, what was being done and FFmpeg's text (a passed deadline is `timeout`).
    func media(_ code: MediaPrepError.Code, _ what: String) -> MediaPrepError {
        self == .exit ? MediaPrepError(.timeout, "\(what): took too long") : MediaPrepError.ffmpeg(code, what, rc)
    }
}

let AV_NOPTS = cff_nopts()

import CFFmpeg

/// libavformat/libavcodec, opened on first use (see cff_av_load for why they are not linked).
enum AVLibrary {
    /// Written once under Swift's lazy-global initialisation, read-only afterwards.
    private struct Table: @unchecked Sendable { let pointer: UnsafePointer<cff_av> }

    private static let loaded: Result<Table, MediaPrepError> = {
        _ = FFmpegSetup.once
        let table = UnsafeMutablePointer<cff_av>.allocate(capacity: 1)  // lives for the process
        table.initialize(to: cff_av())
        var err = [CChar](repeating: 0, count: 256)
        guard cff_av_load(table, &err, Int32(err.count)) == 0 else {
            let text = String(decoding: err.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(MediaPrepError(.codecUnavailable, "FFmpeg is not available: \(text)"))
        }
        return .success(Table(pointer: UnsafePointer(table)))
    }()

    /// The function table, or a `codecUnavailable` error when the libraries are missing.
    static func api() throws -> UnsafePointer<cff_av> { try loaded.get().pointer }

    static func codecName(_ id: AVCodecID) -> String {
        guard let api = try? api(), let n = cffl_codec_name(api, id) else { return "unknown" }
        return String(cString: n)
    }
}

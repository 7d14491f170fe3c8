import CJpeg

/// Owns one tjhandle; TurboJPEG handles are not thread-safe, so each codec instance has its own.
final class TurboJPEGHandle {
    let raw: tjhandle

    enum Kind { case compress, decompress, transform }

    init(_ kind: Kind) throws {
        let h: tjhandle?
        switch kind {
        case .compress: h = JPEGLibrary.turbo.tjInitCompress()
        case .decompress: h = JPEGLibrary.turbo.tjInitDecompress()
        case .transform: h = JPEGLibrary.turbo.tjInitTransform()
        }
        guard let h else {
            throw MediaPrepError(.decodeFailed, "TurboJPEG could not create a handle")
        }
        raw = h
    }

    deinit { _ = JPEGLibrary.turbo.tjDestroy(raw) }

    var lastError: String {
        guard let s = JPEGLibrary.turbo.tjGetErrorStr2(raw) else { return "unknown TurboJPEG error" }
        return String(cString: s)
    }

    /// TurboJPEG reports warnings (like trailing garbage) through the same -1 as errors.
    var lastErrorIsWarning: Bool { JPEGLibrary.turbo.tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) }
}

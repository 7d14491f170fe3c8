import CJpeg
import Glibc

/// libjpeg and TurboJPEG, opened the first time a JPEG is read or written instead of by the loader
/// at every start (hyperfine: a static hello linked with both, 1.55 ms against 1.48).
enum JPEGLibrary {
    private static let libjpeg = DynamicTable.required(cjpeg_libraries(), cjpeg_symbols(), as: cjpeg.self, "libjpeg")
    private static let turbojpeg = DynamicTable.required(ctj_libraries(), ctj_symbols(), as: ctj.self, "TurboJPEG")

    /// TurboJPEG's functions.
    static var turbo: ctj { turbojpeg.pointee }

    /// libjpeg's table, for the shim's calls (`CJPEG_API`).
    static var table: UnsafeRawPointer { UnsafeRawPointer(libjpeg.pointer) }
}

@_cdecl("mediaprep_libjpeg")
func mediaprepLibjpeg() -> UnsafeRawPointer { JPEGLibrary.table }

import CPng

/// libpng and zlib, opened the first time a PNG or a compressed stream is read or written instead of
/// by the loader at every start (hyperfine: a static hello linked with both, 1.57 ms against 1.48).
enum PNGLibrary {
    private static let libpng = DynamicTable.required(cpng_libraries(), cpng_symbols(), as: cpng.self, "libpng")
    private static let libz = DynamicTable.required(czlib_libraries(), czlib_symbols(), as: czlib.self, "zlib")

    /// libpng's functions.
    static var png: cpng { libpng.pointee }
    /// zlib's functions.
    static var zlib: czlib { libz.pointee }

    /// The tables, for the shim's calls (`CPNG_API`, `CZLIB_API`).
    static var pngTable: UnsafeRawPointer { UnsafeRawPointer(libpng.pointer) }
    static var zlibTable: UnsafeRawPointer { UnsafeRawPointer(libz.pointer) }
}

@_cdecl("mediaprep_libpng")
func mediaprepLibpng() -> UnsafeRawPointer { PNGLibrary.pngTable }

@_cdecl("mediaprep_zlib")
func mediaprepZlib() -> UnsafeRawPointer { PNGLibrary.zlibTable }

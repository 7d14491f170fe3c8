import Glibc

/// One loader for every C library opened on first use (FFmpeg, libcurl, Little CMS, libheif, libjxl,
/// libwebp, libdeflate): each shim declares a typed table of function pointers and lists its members'
/// names and its sonames (C literals, so the binary names the libraries it may open: make-deb.sh
/// reads them); the opening and the lookups are here, once. Opened libraries stay loaded for the process.
enum DynamicTable {
    /// A loaded table kept in a `static let`: its members are C function pointers, written once while
    /// loading and only read after, so every thread may share it.
    struct Shared<T>: @unchecked Sendable { let table: T }

    /// A loaded table at one address for the process, which a shim's C calls reach through an accessor.
    struct Pinned<T>: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<T>
        var pointee: T { pointer.pointee }
    }

    /// A library every JPEG or PNG needs (libjpeg, TurboJPEG, libpng, zlib), opened on first use like
    /// the others. Debian's package depends on it: one that cannot be opened is a broken installation,
    /// and the process stops with status 75 and why, as it did when the loader could not start it.
    static func required<T>(_ libraries: UnsafePointer<UnsafePointer<CChar>?>, _ symbols: UnsafePointer<UnsafePointer<CChar>?>,
                            as: T.Type, _ what: String) -> Pinned<T> {
        switch load(libraries, symbols, as: T.self, failing: .codecUnavailable, "\(what) is") {
        case .success(let table):
            let p = UnsafeMutablePointer<T>.allocate(capacity: 1)
            p.initialize(to: table)
            return Pinned(pointer: p)
        case .failure(let e):
            PosixIO.writeStandardError("mediaprep: \(e.message)\n")
            exit(75)
        }
    }

    /// Opens `libraries` in order and fills a `T` with `symbols`, each looked up in them in order.
    /// - Parameters:
    ///   - libraries, symbols: NULL-terminated lists from the shim; `symbols` names `T`'s members in order.
    ///   - global: `RTLD_GLOBAL` (FFmpeg's libraries resolve each other's symbols), else `RTLD_LOCAL`.
    static func load<T>(_ libraries: UnsafePointer<UnsafePointer<CChar>?>, _ symbols: UnsafePointer<UnsafePointer<CChar>?>,
                        global: Bool = false, as: T.Type, failing code: MediaPrepError.Code, _ what: String) -> Result<T, MediaPrepError> {
        func failure(_ reason: String) -> Result<T, MediaPrepError> { .failure(MediaPrepError(code, "\(what) not available: \(reason)")) }
        let names = list(symbols)
        let slot = MemoryLayout<UnsafeMutableRawPointer>.stride
        guard names.count * slot == MemoryLayout<T>.size else {
            return failure("internal: \(names.count) names for a table of \(MemoryLayout<T>.size / slot)")
        }
        var handles: [UnsafeMutableRawPointer] = []
        for soname in list(libraries) {
            // Lazy: a dependency's calls are bound when first made, not all at load. Every symbol
            // used here is still looked up now (`dlsym` below), so a missing one fails here as
            // before. libavformat and its 95 dependencies: 27.1 → 24.6 ms (median of 20 alternated).
            guard let h = dlopen(soname, RTLD_LAZY | (global ? RTLD_GLOBAL : RTLD_LOCAL)) else {
                return failure("cannot load \(String(cString: soname)): \(dlerror().map { String(cString: $0) } ?? "unknown error")")
            }
            handles.append(h)
        }
        let table = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { table.deallocate() }
        for (i, name) in names.enumerated() {
            guard let entry = handles.lazy.compactMap({ dlsym($0, name) }).first else {
                return failure("missing symbol \(String(cString: name))")
            }
            table.storeBytes(of: entry, toByteOffset: i * slot, as: UnsafeMutableRawPointer.self)
        }
        return .success(table.load(as: T.self))  // every member set, none NULL
    }

    /// The entries of a NULL-terminated C list.
    private static func list(_ p: UnsafePointer<UnsafePointer<CChar>?>) -> [UnsafePointer<CChar>] {
        var out: [UnsafePointer<CChar>] = []
        while let s = p[out.count] { out.append(s) }
        return out
    }
}

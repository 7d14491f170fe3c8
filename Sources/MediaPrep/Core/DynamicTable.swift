/// Fills a C table of function pointers that a shim's loader opens with `dlopen` (FFmpeg, libcurl,
/// Little CMS): the memory is Swift's, the loader checks every member, and the table is copied out
/// as a plain value. Opened libraries stay loaded for the process.
enum DynamicTable {
    static func load<T>(_ size: Int, _ fill: (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32,
                        as: T.Type, failing code: MediaPrepError.Code, _ what: String) -> Result<T, MediaPrepError> {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<UnsafeRawPointer>.alignment)
        defer { raw.deallocate() }
        var err = [CChar](repeating: 0, count: 256)
        guard fill(raw, &err, Int32(err.count)) == 0 else {
            let text = String(decoding: err.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(MediaPrepError(code, "\(what) not available: \(text)"))
        }
        return .success(raw.load(as: T.self))  // every member checked non-NULL by the loader
    }
}

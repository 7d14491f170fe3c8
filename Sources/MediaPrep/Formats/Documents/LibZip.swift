import CZip
import UploadPlanner
import Glibc

/// One ZIP archive opened with libzip, read or being written: freed (discarded) on every path that
/// does not close it.
final class ZipArchive {
    private static let loaded: Result<DynamicTable.Shared<czip>, MediaPrepError> = Trace.noteTime("loaded libzip") {
        DynamicTable.load(czip_libraries(), czip_symbols(), as: czip.self, failing: .codecUnavailable, "libzip is").map(DynamicTable.Shared.init)
    }

    let z: czip
    let za: OpaquePointer
    private var closed = false

    /// `path` read (its central directory checked against the local headers), or created anew.
    init(path: String, creating: Bool = false) throws {
        let z = try Self.loaded.get().table
        self.z = z
        var code: Int32 = 0
        let flags = creating ? ZIP_CREATE | ZIP_EXCL : ZIP_RDONLY | ZIP_CHECKCONS
        guard let za = FileNameBytes.withCString(path, { z.zip_open($0, Int32(flags), &code) }) else {
            var e = zip_error_t()
            z.zip_error_init_with_code(&e, code)
            defer { z.zip_error_fini(&e) }
            let reason = z.zip_error_strerror(&e).map { String(cString: $0) } ?? "error \(code)"
            if creating { throw MediaPrepError(.writeFailed, "cannot create \(path): \(reason)") }
            if code == ZIP_ER_EXISTS {
                throw MediaPrepError(.corrupt, "a ZIP with two members of one name: which one a reader extracts is anyone's guess")
            }
            if code == ZIP_ER_INCONS {
                throw MediaPrepError(.corrupt, "a ZIP whose directory and members disagree (members that overlap, as in a ZIP bomb, or a damaged file): \(reason)")
            }
            throw MediaPrepError([ZIP_ER_READ, ZIP_ER_OPEN, ZIP_ER_MEMORY].contains(code) ? .unreadableFile : .corrupt, "a ZIP libzip cannot read: \(reason)")
        }
        self.za = za
    }

    deinit { if !closed { z.zip_discard(za) } }

    var error: String { z.zip_get_error(za).flatMap { z.zip_error_strerror($0) }.map { String(cString: $0) } ?? "unknown error" }

    var count: Int { max(0, Int(z.zip_get_num_entries(za, 0))) }

    func name(_ i: Int) -> String? { z.zip_get_name(za, UInt64(i), 0).map { String(cString: $0) } }

    func entry(_ i: Int) throws -> czip_entry {
        var e = czip_entry()
        guard withUnsafePointer(to: z, { czip_stat($0, za, UInt64(i), &e) }) == 0 else { throw MediaPrepError(.corrupt, "member \(i) of the ZIP has no size: \(error)") }
        return e
    }

    var hasComment: Bool {
        var length: Int32 = 0
        return z.zip_get_archive_comment(za, &length, 0) != nil && length > 0
    }

    func hasComment(_ i: Int) -> Bool {
        var length: UInt32 = 0
        return z.zip_file_get_comment(za, UInt64(i), &length, 0) != nil && length > 0
    }

    func extraFields(_ i: Int) -> Int {
        max(0, Int(z.zip_file_extra_fields_count(za, UInt64(i), ZIP_FL_CENTRAL))) + max(0, Int(z.zip_file_extra_fields_count(za, UInt64(i), ZIP_FL_LOCAL)))
    }

    /// Up to `limit` bytes of member `i`, inflated (its CRC checked when read to the end).
    func read(_ i: Int, limit: Int) throws -> [UInt8] {
        guard let f = z.zip_fopen_index(za, UInt64(i), 0) else { throw MediaPrepError(.corrupt, "member \(name(i) ?? "\(i)") of the ZIP cannot be read: \(error)") }
        defer { _ = z.zip_fclose(f) }
        var out = [UInt8](repeating: 0, count: limit)
        var got = 0
        while got < limit {
            let n = out.withUnsafeMutableBytes { b in b.baseAddress.map { z.zip_fread(f, $0 + got, UInt64(limit - got)) } ?? 0 }
            if n < 0 { throw MediaPrepError(.corrupt, "member \(name(i) ?? "\(i)") of the ZIP is damaged: \(z.zip_file_get_error(f).flatMap { z.zip_error_strerror($0) }.map { String(cString: $0) } ?? "unknown error")") }
            if n == 0 { break }
            got += Int(n)
        }
        out.removeSubrange(got...)
        return out
    }

    /// Member `index` of `source` added as it is stored (no inflating, no deflating).
    func addCopy(_ name: String, from source: ZipArchive, index: Int) throws -> Int {
        guard let src = z.zip_source_zip(za, source.za, UInt64(index), ZIP_FL_COMPRESSED, 0, -1) else { throw MediaPrepError(.writeFailed, "libzip: \(error)") }
        return try add(name, src)
    }

    /// The file at `path` added as member `name`, deflated or stored.
    func addFile(_ name: String, path: String, deflate: Bool) throws -> Int {
        guard let src = FileNameBytes.withCString(path, { z.zip_source_file(za, $0, 0, -1) }) else { throw MediaPrepError(.writeFailed, "libzip: \(error)") }
        let i = try add(name, src)
        _ = z.zip_set_file_compression(za, UInt64(i), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0)
        return i
    }

    /// The fixed time (1980-01-01 00:00, DOS's first day), no extra field, no comment, plain attributes.
    private func add(_ name: String, _ src: OpaquePointer) throws -> Int {
        let i = name.withCString { z.zip_file_add(za, $0, src, ZIP_FL_ENC_UTF_8) }
        guard i >= 0 else {
            z.zip_source_free(src)
            throw MediaPrepError(.corrupt, "member \(name) cannot be added again (\(error)): two members of one name?")
        }
        _ = z.zip_file_set_dostime(za, UInt64(i), 0, (0 << 9) | (1 << 5) | 1, 0)
        _ = z.zip_file_extra_field_delete(za, UInt64(i), UInt16(ZIP_EXTRA_FIELD_ALL), ZIP_FL_CENTRAL | ZIP_FL_LOCAL)
        _ = z.zip_file_set_external_attributes(za, UInt64(i), 0, UInt8(ZIP_OPSYS_DOS), 0)
        return Int(i)
    }

    /// Writes the new archive (libzip writes a temporary file and renames it into place).
    func close() throws {
        guard z.zip_close(za) == 0 else {
            let reason = error
            throw MediaPrepError(reason.contains("No space") || reason.contains("rename") ? .writeFailed : .corrupt, "the ZIP could not be written again: \(reason)")
        }
        closed = true
    }
}

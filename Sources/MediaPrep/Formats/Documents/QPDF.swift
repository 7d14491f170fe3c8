import CQpdf
import UploadPlanner
import Glibc

/// One PDF opened with qpdf: its handle freed on every path, its errors typed.
final class QPDFDocument {
    private static let loaded: Result<DynamicTable.Shared<cqpdf>, MediaPrepError> = Trace.noteTime("loaded qpdf") {
        DynamicTable.load(cqpdf_libraries(), cqpdf_symbols(), as: cqpdf.self, failing: .codecUnavailable, "qpdf is").map(DynamicTable.Shared.init)
    }

    let q: cqpdf
    let handle: qpdf_data

    /// Reads `path`'s cross-reference tables (objects themselves are read as they are asked for).
    init(path: String) throws {
        q = try Self.loaded.get().table
        guard let data = q.qpdf_init() else { throw MediaPrepError(.outOfMemory, "qpdf could not start") }
        handle = data  // from here on, deinit frees it on every path
        q.qpdf_silence_errors(data)
        q.qpdf_set_suppress_warnings(data, QPDF_TRUE)
        let rc = FileNameBytes.withCString(path) { q.qpdf_read(data, $0, nil) }
        if rc & QPDF_ERRORS != 0 {
            let reason = lastError() ?? "qpdf cannot read it"
            throw MediaPrepError(reason.contains("password") ? .unsupportedFormat : .corrupt, "a PDF qpdf cannot read: \(reason)")
        }
        drainWarnings()
    }

    deinit {
        var data: qpdf_data? = handle
        q.qpdf_cleanup(&data)
    }

    /// The text of the error qpdf last recorded, if any (and forgets it).
    func lastError() -> String? {
        guard q.qpdf_has_error(handle) != 0, let e = q.qpdf_get_error(handle), let text = q.qpdf_get_error_full_text(handle, e) else { return nil }
        return String(cString: text)
    }

    /// qpdf keeps every warning until asked: dropped as they come, so a damaged file's thousands do not pile up.
    func drainWarnings() { while q.qpdf_more_warnings(handle) != 0 { _ = q.qpdf_next_warning(handle) } }

    var isEncrypted: Bool { q.qpdf_is_encrypted(handle) != 0 }

    // Object handles: small integers into qpdf's table, released when the walk is done with them.
    func release(_ oh: qpdf_oh) { q.qpdf_oh_release(handle, oh) }
    func isDictionary(_ oh: qpdf_oh) -> Bool { q.qpdf_oh_is_dictionary(handle, oh) != 0 }
    func isStream(_ oh: qpdf_oh) -> Bool { q.qpdf_oh_is_stream(handle, oh) != 0 }
    func isArray(_ oh: qpdf_oh) -> Bool { q.qpdf_oh_is_array(handle, oh) != 0 }
    func isName(_ oh: qpdf_oh, _ name: String) -> Bool { q.qpdf_oh_is_name_and_equals(handle, oh, name) != 0 }
    /// A name of any kind, or an array: what a /Filter holds when it holds anything.
    func isNameOrArray(_ oh: qpdf_oh) -> Bool { q.qpdf_oh_is_name(handle, oh) != 0 || isArray(oh) }
    /// An indirect object's number and generation as one key; nil for a direct object.
    func identity(_ oh: qpdf_oh) -> Int64? {
        guard q.qpdf_oh_is_indirect(handle, oh) != 0 else { return nil }
        return Int64(q.qpdf_oh_get_object_id(handle, oh)) << 20 | Int64(q.qpdf_oh_get_generation(handle, oh) & 0xFFFFF)
    }
    func count(_ array: qpdf_oh) -> Int { Int(q.qpdf_oh_get_array_n_items(handle, array)) }
    func item(_ array: qpdf_oh, _ i: Int) -> qpdf_oh { q.qpdf_oh_get_array_item(handle, array, Int32(i)) }
    func keys(_ dict: qpdf_oh) -> [String] {
        var out: [String] = []
        q.qpdf_oh_begin_dict_key_iter(handle, dict)
        while q.qpdf_oh_dict_more_keys(handle) != 0 {
            if let k = q.qpdf_oh_dict_next_key(handle) { out.append(String(cString: k)) }
        }
        return out
    }
    func value(_ dict: qpdf_oh, _ key: String) -> qpdf_oh { q.qpdf_oh_get_key(handle, dict, key) }
    func remove(_ dict: qpdf_oh, _ key: String) { q.qpdf_oh_remove_key(handle, dict, key) }
    func streamDictionary(_ stream: qpdf_oh) -> qpdf_oh { q.qpdf_oh_get_dict(handle, stream) }
    var trailer: qpdf_oh { q.qpdf_get_trailer(handle) }

    /// A stream's bytes as stored (no filter undone): a DCT image's are a JPEG file.
    func rawData(_ stream: qpdf_oh) throws -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        let rc = q.qpdf_oh_get_stream_data(handle, stream, qpdf_dl_none, nil, &buffer, &length)
        defer { free(buffer) }
        guard rc & QPDF_ERRORS == 0, let buffer else {
            throw MediaPrepError(.corrupt, "a PDF stream qpdf cannot read: \(lastError() ?? "unknown error")")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }

    /// Replaces a stream's data with `bytes` stored as they are (no filter): qpdf keeps them until
    /// the document is written, so only small ones (an attachment) go this way.
    func replaceData(_ stream: qpdf_oh, _ bytes: [UInt8]) {
        let none = q.qpdf_oh_new_null(handle)
        defer { release(none) }
        bytes.withUnsafeBufferPointer { q.qpdf_oh_replace_stream_data(handle, stream, $0.baseAddress, $0.count, none, none) }
    }

    /// Writes the document whole at `path`: one revision, only the objects reachable from the trailer,
    /// streams as they were compressed, object streams kept, a fresh /ID computed from the new content.
    func write(to path: String) throws {
        let rc = FileNameBytes.withCString(path) { q.qpdf_init_write(handle, $0) }
        guard rc & QPDF_ERRORS == 0 else { throw MediaPrepError(.writeFailed, "cannot write \(path): \(lastError() ?? "qpdf failed")") }
        q.qpdf_set_object_stream_mode(handle, qpdf_o_preserve)
        q.qpdf_set_stream_data_mode(handle, qpdf_s_preserve)
        q.qpdf_set_deterministic_ID(handle, QPDF_TRUE)
        q.qpdf_set_suppress_original_object_IDs(handle, QPDF_TRUE)
        let written = q.qpdf_write(handle)
        drainWarnings()
        guard written & QPDF_ERRORS == 0 else {
            let reason = lastError() ?? "qpdf failed"
            throw MediaPrepError(reason.lowercased().contains("no space") ? .writeFailed : .corrupt, "the PDF could not be written again: \(reason)")
        }
    }
}

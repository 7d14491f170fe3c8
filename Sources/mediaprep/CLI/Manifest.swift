import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// `--manifest FILE`: one JSON line per input as it ends (its output named and complete), appended
/// with one write(2) each, so a run killed at any moment leaves a manifest of exactly what is done,
/// and shard manifests concatenate into the job's.
final class Manifest: @unchecked Sendable {
    private let fd: Int32
    private let root: String

    init(path: String, outputDirectory: String) throws {
        let parent = FilePath.parent(of: path)
        if !parent.isEmpty { try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) }
        fd = FileNameBytes.withCString(path) { open($0, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw MediaPrepError(.writeFailed, "cannot open the manifest \(path): \(String(cString: strerror(errno)))") }
        root = outputDirectory.hasSuffix("/") ? outputDirectory : outputDirectory + "/"
    }

    deinit { close(fd) }

    func record(_ item: BatchItem) {
        guard let o = item.json.objectMembers else { return }
        func field(_ k: String) -> JSONValue { o.first { $0.key == k }?.value ?? .null }
        var output = field("output")
        if case .string(let s) = output, s.hasPrefix(root) { output = .string(String(s.dropFirst(root.count))) }
        let line = JSONValue.object([
            .init("input", field("input")), .init("output", output), .init("kind", field("kind")), .init("bytes", field("bytes")),
            .init("error", field("error")), .init("skipped", .bool(field("skipped") == .bool(true))),
        ] + (o.contains { $0.key == "part" } ? [.init("part", field("part"))] : [])).serialized + "\n"
        _ = PosixIO.writeAll(fd, Array(line.utf8))
    }
}

extension JSONValue {
    var objectMembers: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }
}

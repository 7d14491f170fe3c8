import FoundationEssentials
import Glibc
import UploadPlanner

/// Where every route ends: its output staged under the message's name, checked to travel, placed.
extension AttachmentPreparer {
    /// The last step of every kind: checked to be sendable (nothing is named that cannot go), then
    /// named now, or left for a batch to name in input order.
    func place(_ item: inout PreparedItem, _ staged: StagedFile, size: Int) throws {
        // Whether it can travel at all; its transfer is planned once, on the name it is given.
        if let why = rules.refusal(size: size, kind: item.kind) {
            staged.discard()
            throw MediaPrepError(.overLimit, why)
        }
        if stagesOutputs {
            item.staged = staged
        } else {
            let out = try staged.commit()
            item.output = out
            item.transfer = rules.transfer(size: size, kind: item.kind, fileName: out.split(separator: "/").last.map(String.init) ?? out)
        }
    }

    /// A file an encoder or muxer writes: staged, probed (what is sent is what the message then
    /// describes: size and duration of the new file), looked at by `inspect` (a video's thumbnail
    /// comes from the output) and placed. Returns the new file's probe.
    func produce(_ item: inout PreparedItem, kind: UploadContentKind, base: String? = nil, ext: String,
                         _ write: (String) throws -> Void, inspect: (String) throws -> Void = { _ in }) throws -> ProbeResult {
        let staged = try OutputWriter.stageProduced(directory: outputDirectory, base: base ?? name(kind), ext: ext,
                                                    cancellation: cancellation, produce: write)
        let made: ProbeResult
        do {
            made = try MediaProbe.probe(path: staged.temporaryPath, thorough: false)
            try inspect(staged.temporaryPath)
        } catch {
            staged.discard()
            throw error
        }
        try place(&item, staged, size: made.bytes)
        return made
    }

    /// The input's own bytes under a message's name, without its tags when `rewrite` has any.
    func copy(_ probe: ProbeResult, _ rewrite: MetadataRewrite?, _ item: inout PreparedItem, base: String, ext: String) throws {
        var size = rewrite?.outputSize ?? probe.bytes
        let staged = try Trace.time(rewrite == nil ? "copy" : "copy without metadata") {
            try OutputWriter.stageProduced(directory: outputDirectory, base: base, ext: ext, cancellation: cancellation) { tmp in
                if let rewrite { try rewrite.write(from: probe.path, to: tmp) } else { try FileCopier.copy(from: probe.path, expectedSize: probe.bytes, to: tmp) }
                if rewrite?.rebuild != nil {
                    var st = stat()
                    guard FileNameBytes.withCString(tmp, { stat($0, &st) }) == 0 else { throw MediaPrepError(.writeFailed, "cannot stat \(tmp)") }
                    size = Int(st.st_size)
                }
            }
        }
        try place(&item, staged, size: size)
        item.route = rewrite == nil ? .original : .stripped
        item.bytes = size
    }

    func name(_ kind: UploadContentKind) -> String {
        "\(FileNaming.prefix(for: kind))_\(FileNaming.stamp(timestamp))"
    }
}

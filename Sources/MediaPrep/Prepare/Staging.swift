import FoundationEssentials
import Glibc
import UploadPlanner

/// Where every route ends: what it made checked to travel, then named (or left for a batch to name).
extension AttachmentPreparer {
    /// The one end of every route: each file checked to be sendable (nothing is named that cannot
    /// go), then named now with its transfer planned on that name, or left staged for a batch to name
    /// in input order. Several files are a long screenshot's parts: this item is the first, the rest
    /// its `parts`; if one cannot go, none does.
    func deliver(_ made: [Produced], _ item: inout PreparedItem) throws {
        var named: [String] = []
        do {
            for m in made {
                if let why = rules.refusal(size: m.bytes, kind: item.kind) { throw MediaPrepError(.overLimit, why) }
            }
            var items: [PreparedItem] = []
            for (i, m) in made.enumerated() {
                var one = item
                one.record(m)
                if made.count > 1 { one.part = (i + 1, made.count) }
                if stagesOutputs {
                    one.staged = m.staged
                } else {
                    let out = try m.staged.commit()
                    named.append(out)
                    one.output = out
                    one.transfer = rules.transfer(size: m.bytes, kind: item.kind, fileName: FilePath.lastComponent(out))
                }
                items.append(one)
            }
            guard var first = items.first else { throw MediaPrepError(.decodeFailed, "nothing was made to send") }
            first.parts = Array(items.dropFirst())
            item = first
        } catch {
            for (i, m) in made.enumerated() {
                if i < named.count { unlink(named[i]) } else { m.staged.discard() }  // named already: taken back
            }
            throw error
        }
    }

    /// A file an encoder or muxer writes, staged and probed (what is sent is what the message then
    /// describes: size and duration of the new file); `finish` makes the rest of what is sent from
    /// that probe and the temporary file (a video's thumbnail comes from the output).
    func produce(base: String, ext: String, _ write: (String) throws -> Void,
                 finish: (StagedFile, ProbeResult) throws -> Produced) throws -> Produced {
        let staged = try OutputWriter.stageProduced(directory: outputDirectory, base: base, ext: ext, cancellation: cancellation, produce: write)
        return try Produced.finishing(staged) {
            try finish(staged, try MediaProbe.probe(path: staged.temporaryPath, thorough: false))
        }
    }

    /// The input's own bytes under a message's name, without its tags when `rewrite` has any: the
    /// staged file, its size and its route.
    func copy(_ probe: ProbeResult, _ rewrite: MetadataRewrite?, base: String, ext: String) throws -> (StagedFile, Int, PrepareRoute) {
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
        return (staged, size, rewrite == nil ? .original : .stripped)
    }

    func name(_ kind: UploadContentKind) -> String {
        "\(FileNaming.prefix(for: kind))_\(FileNaming.stamp(timestamp))"
    }
}

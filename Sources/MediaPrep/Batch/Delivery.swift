import UploadPlanner

/// The last stage of a batch: each prepared input's files named in input order (after the input with
/// `--resume`), the transfer planned once on the final name, the messages sequenced, the input counted.
struct Delivery {
    let options: BatchOptions
    let rules: SendRules
    var sequencer: MessageSequencer
    var summary = BatchSummary()
    private var resumeNames = Set<String>()

    init(options: BatchOptions, rules: SendRules) {
        (self.options, self.rules, sequencer) = (options, rules, MessageSequencer(options: options))
    }

    /// Names and sequences input `index`'s files; the events to stream, in order.
    mutating func deliver(index: Int, _ prepared: PreparedItem) -> [BatchEvent] {
        var events: [BatchEvent] = []
        summary.inputs += 1
        var failure = prepared.error
        // A long screenshot's parts follow it, each its own item and message.
        var first = prepared
        first.parts = []
        var parts = [first] + prepared.parts
        if let name = options.resumeName, failure == nil {
            // Named after the input, the last part first: the first part's name then proves them all.
            let base = name(prepared.input)
            if !resumeNames.insert(base).inserted {
                failure = MediaPrepError(.invalidArgument, "\(prepared.input) has the same name in the output folder as an earlier input (\(base))")
            }
            for i in parts.indices.reversed() where failure == nil {
                guard let staged = parts[i].staged else { continue }
                parts[i].staged = nil
                let suffix = parts.count > 1 ? "_part\(i + 1)" : ""
                do {
                    parts[i].output = try staged.commit(replacing: options.outputDirectory + "/" + base + suffix + "." + staged.ext)
                } catch {
                    failure = (error as? MediaPrepError) ?? MediaPrepError(.writeFailed, "\(error)")
                }
            }
            if let failure {
                for i in parts.indices {
                    parts[i].staged?.discard()
                    parts[i].staged = nil
                    parts[i].output = nil
                    parts[i].error = failure
                }
            }
        }
        if prepared.skipped { summary.skipped += 1 }
        for part in parts {
            var item = BatchItem(index: index, item: part)
            // Files are named here, in input order, so `_1`, `_2` follow the input whatever finished first.
            if let staged = part.staged {
                item.item.staged = nil
                do { item.item.output = try staged.commit() } catch {
                    item.item.error = (error as? MediaPrepError) ?? MediaPrepError(.writeFailed, "\(error)")
                    failure = failure ?? item.item.error
                }
            }
            // The preparer checked it can travel before staging it; its exact plan needs the final name.
            if item.item.error == nil, !part.skipped, let out = item.item.output, let bytes = part.bytes {
                item.transfer = rules.transfer(size: bytes, kind: part.kind, fileName: sequencer.fileName(out))
            }
            events += sequencer.add(item)
        }
        // Counted once every part is named: a commit that fails fails the input.
        if let failure {
            summary.failed += 1
            if failure.isEnvironmental { summary.environmentFailed += 1 }
        } else if !prepared.skipped {
            summary.prepared += 1
        }
        return events
    }
}

extension TransferPlan {
    /// One line a person reads: how the file travels and in which chunks.
    public var summary: String {
        switch method {
        case .rejected: return "rejected: \(reason ?? "over a limit")"
        case .smpInline: return "SMP, sent inline with the message (\(smpChunks) chunk\(smpChunks == 1 ? "" : "s") of 15780 bytes)"
        case .smp:
            let mode = inlineMode.map { "inline \($0.rawValue)" } ?? "not inline"
            return "SMP after acceptance, \(mode), \(smpChunks) chunks of 15780 bytes"
        case .xftp:
            var groups: [(Int64, Int)] = []
            for c in chunkSizes {
                if let last = groups.last, last.0 == c { groups[groups.count - 1].1 += 1 } else { groups.append((c, 1)) }
            }
            let chunks = groups.map { "\($0.1) × \($0.0 / 1024) KiB" }.joined(by: " + ")
            return "XFTP: \(chunks) = \(encryptedSize) bytes encrypted (\(padding) bytes padding), \(recipientKeys) recipient keys per chunk"
        }
    }
}

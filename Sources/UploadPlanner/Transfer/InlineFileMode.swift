/// Whether a small file travels inside the SMP message (`sent`) or is offered for acceptance (`offer`).
public enum InlineFileMode: String, Sendable, Codable {
    case sent
    case offer

    /// The chat core's `inlineFileMode`: only voice notes are pushed unasked, and only when the
    /// whole fan-out stays within `totalSendChunks`.
    public static func decide(kind: UploadContentKind, chunks: Int, recipients: Int,
                              config: InlineFilesConfig = InlineFilesConfig()) -> InlineFileMode? {
        if chunks > config.offerChunks { return nil }
        let fanOut = chunks.multipliedReportingOverflow(by: max(recipients, 0))
        if chunks <= config.sendChunks && !fanOut.overflow && fanOut.partialValue <= config.totalSendChunks && kind == .voice {
            return .sent
        }
        return .offer
    }

    /// `ceil(size / fileChunkSize)`, the SMP chunk count.
    public static func chunkCount(fileSize: Int64, config: InlineFilesConfig = InlineFilesConfig()) -> Int {
        let c = Int64(max(config.fileChunkSize, 1))
        guard fileSize > 0 else { return 0 }
        return Int((fileSize - 1) / c + 1)  // no overflow near Int64.max, as size + c - 1 would
    }
}

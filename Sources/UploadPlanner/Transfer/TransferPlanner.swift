/// Chooses inline SMP, SMP or XFTP for one file, mirroring the chat core's send path.
public struct TransferPlanner: Sendable {
    public var limits: SimplexLimits
    public var inline: InlineFilesConfig
    public var xftpAvailable: Bool

    public init(limits: SimplexLimits = .simplex, inline: InlineFilesConfig = InlineFilesConfig(), xftpAvailable: Bool = true) {
        self.limits = limits
        self.inline = inline
        self.xftpAvailable = xftpAvailable
    }

    /// - Parameters:
    ///   - recipients: 1 for a contact, the member count for a group.
    ///   - encrypted: a locally encrypted file always goes by XFTP, as the core requires.
    public func plan(size: Int64, kind: UploadContentKind, fileName: String, recipients: Int = 1,
                     encrypted: Bool = false) -> TransferPlan {
        let chunks = InlineFileMode.chunkCount(fileSize: size, config: inline)
        let mode = InlineFileMode.decide(kind: kind, chunks: chunks, recipients: recipients, config: inline)
        var p = TransferPlan(method: .rejected, inlineMode: mode, chunkSizes: [], encryptedSize: 0, padding: 0,
                             reason: nil, smpChunks: chunks, recipientKeys: 0)
        if let why = refusal(size: size, kind: kind, recipients: recipients, encrypted: encrypted) {
            p.reason = why
            return p
        }
        if !xftpAvailable || (!encrypted && (mode == .sent || recipients <= 0)) {
            p.method = mode == .sent ? .smpInline : .smp
            return p
        }
        let x = XFTPChunkPlan(fileSize: size, fileName: fileName)
        p.method = .xftp
        p.chunkSizes = x.chunks
        p.encryptedSize = x.encryptedSize
        p.padding = x.padding
        p.recipientKeys = XFTPChunkPlan.recipientKeys(recipients: recipients)
        return p
    }

    /// Why a file of `size` cannot travel at all, or nil: what `plan` rejects, without the chunk plan
    /// (which needs the file's final name), so a preparer can check before it names the file.
    public func refusal(size: Int64, kind: UploadContentKind, recipients: Int = 1, encrypted: Bool = false) -> String? {
        if size < 0 { return "a file size cannot be negative" }
        guard xftpAvailable else {
            return size > limits.maxFileSizeSMP ? "\(size) bytes is over the \(limits.maxFileSizeSMP)-byte limit for files sent without XFTP" : nil
        }
        let mode = InlineFileMode.decide(kind: kind, chunks: InlineFileMode.chunkCount(fileSize: size, config: inline), recipients: recipients, config: inline)
        if !encrypted && (mode == .sent || recipients <= 0) { return nil }
        return size > limits.maxFileSizeXFTP ? "\(size) bytes is over the \(limits.maxFileSizeXFTP)-byte XFTP file limit" : nil
    }
}

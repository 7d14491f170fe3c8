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
        if size < 0 {
            p.reason = "a file size cannot be negative"
            return p
        }
        guard xftpAvailable else {
            if size > limits.maxFileSizeSMP {
                p.reason = "\(size) bytes is over the \(limits.maxFileSizeSMP)-byte limit for files sent without XFTP"
                return p
            }
            p.method = mode == .sent ? .smpInline : .smp
            return p
        }
        if !encrypted && (mode == .sent || recipients <= 0) {
            p.method = mode == .sent ? .smpInline : .smp
            return p
        }
        if size > limits.maxFileSizeXFTP {
            p.reason = "\(size) bytes is over the \(limits.maxFileSizeXFTP)-byte XFTP file limit"
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
}

/// How a prepared file leaves the device, as the `transfer` object of the CLI's JSON.
public struct TransferPlan: Sendable, Equatable, Codable {
    public enum Method: String, Sendable, Codable {
        /// Inside the SMP message itself (inline mode `sent`).
        case smpInline
        /// Over SMP after the recipient accepts (no XFTP, or nobody to upload for).
        case smp
        case xftp
        case rejected
    }

    public var method: Method
    public var inlineMode: InlineFileMode?
    /// XFTP chunk sizes; empty unless the method is `xftp`.
    public var chunkSizes: [Int64]
    public var encryptedSize: Int64
    public var padding: Int64
    public var reason: String?
    /// SMP chunks of `fileChunkSize` the file would take.
    public var smpChunks: Int
    /// XFTP recipient keys per chunk; 0 unless the method is `xftp`.
    public var recipientKeys: Int
}

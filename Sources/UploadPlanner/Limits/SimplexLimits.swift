/// SimpleX's size and count limits (apps/ios/SimpleXChat/FileUtils.swift), overridable for other deployments.
public struct SimplexLimits: Sendable, Equatable {
    public var maxImageSize = 261_120
    public var maxImageSizeAutoReceive = 522_240
    public var maxVoiceSizeAutoReceive = 522_240
    public var maxVideoSizeAutoReceive = 1_047_552
    /// Soft limit the apps enforce; the XFTP agent's hard limit is `xftpHardLimit`.
    public var maxFileSizeXFTP: Int64 = 1_073_741_824
    public var xftpHardLimit: Int64 = 5_368_709_120
    public var maxFileSizeSMP: Int64 = 8_000_000
    public var maxVoiceMessageSeconds = 300
    public var maxMediaPerMessage = 10
    public var maxMentions = 3
    /// Data-URI length cap for inline previews, so the encoded message fits `maxEncodedMsgLength`.
    public var maxPreviewLength = 14_000
    public var maxEncodedMsgLength = 15_602

    public init() {}

    public static let simplex = SimplexLimits()
}

/// The chat core's InlineFilesConfig defaults: when a file may ride inside SMP messages.
public struct InlineFilesConfig: Sendable, Equatable {
    public var offerChunks = 15
    public var sendChunks = 6
    public var totalSendChunks = 30
    public var receiveChunks = 8
    /// SMP file chunk size (`fileChunkSize` in the chat core).
    public var fileChunkSize = 15_780

    public init() {}
}

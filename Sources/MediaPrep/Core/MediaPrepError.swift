/// A failure that input data can cause, with a stable code scripts can match on.
public struct MediaPrepError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, machine-readable reasons; the raw value is what the CLI prints.
    public enum Code: String, Sendable, Codable {
        case emptyInput
        case unreadableFile
        case unsupportedFormat
        case truncated
        case corrupt
        case tooManyPixels
        case invalidDimensions
        case decodeFailed
        case encodeFailed
        case resizeFailed
        case writeFailed
        case noVideoStream
        case noAudioStream
        case codecUnavailable
        case voiceTooLong
        case overLimit
        case invalidArgument
        /// The batch was interrupted (SIGINT/SIGTERM or task cancellation) before this input finished.
        case cancelled
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

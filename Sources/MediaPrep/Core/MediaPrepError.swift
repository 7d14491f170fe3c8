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
        /// Link previews: the address is loopback, private, link-local or multicast (or resolves to one).
        case blockedHost
        /// Link previews: connecting or the whole fetch took longer than allowed.
        case timeout
        /// Link previews: the page or image is larger than the cap.
        case tooLarge
        /// Link previews: the address does not serve an HTML page.
        case notHTML
        /// Link previews: the request failed (HTTP error, refused connection, bad redirect, unknown host…).
        case fetchFailed
        /// Link previews: the page names no image, or its image cannot be decoded.
        case noImage
        /// Link previews: not an http(s) URL.
        case invalidURL
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

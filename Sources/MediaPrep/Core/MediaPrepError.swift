/// A failure that input data can cause, with a stable code scripts can match on.
public struct MediaPrepError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable, machine-readable reasons; the raw value is what the CLI prints. A struct, not an enum,
    /// so that new codes do not break a caller's `switch` (match the ones you handle, then `default`).
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let emptyInput = Code(rawValue: "emptyInput")
        public static let unreadableFile = Code(rawValue: "unreadableFile")
        public static let unsupportedFormat = Code(rawValue: "unsupportedFormat")
        public static let truncated = Code(rawValue: "truncated")
        public static let corrupt = Code(rawValue: "corrupt")
        public static let tooManyPixels = Code(rawValue: "tooManyPixels")
        public static let invalidDimensions = Code(rawValue: "invalidDimensions")
        public static let decodeFailed = Code(rawValue: "decodeFailed")
        public static let encodeFailed = Code(rawValue: "encodeFailed")
        public static let resizeFailed = Code(rawValue: "resizeFailed")
        public static let writeFailed = Code(rawValue: "writeFailed")
        public static let noVideoStream = Code(rawValue: "noVideoStream")
        public static let noAudioStream = Code(rawValue: "noAudioStream")
        public static let codecUnavailable = Code(rawValue: "codecUnavailable")
        public static let voiceTooLong = Code(rawValue: "voiceTooLong")
        public static let overLimit = Code(rawValue: "overLimit")
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// Link previews: the address is loopback, private, link-local or multicast (or resolves to one).
        public static let blockedHost = Code(rawValue: "blockedHost")
        /// Link previews: connecting or the whole fetch took longer than allowed.
        public static let timeout = Code(rawValue: "timeout")
        /// Link previews: the page or image is larger than the cap.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// Link previews: the address does not serve an HTML page.
        public static let notHTML = Code(rawValue: "notHTML")
        /// Link previews: the request failed (HTTP error, refused connection, bad redirect, unknown host…).
        public static let fetchFailed = Code(rawValue: "fetchFailed")
        /// Link previews: the page names no image, or its image cannot be decoded.
        public static let noImage = Code(rawValue: "noImage")
        /// Link previews: not an http(s) URL.
        public static let invalidURL = Code(rawValue: "invalidURL")
        /// The batch was interrupted (SIGINT/SIGTERM or task cancellation) before this input finished.
        public static let cancelled = Code(rawValue: "cancelled")
        /// Memory for the work could not be had (an allocation failed in a C library).
        public static let outOfMemory = Code(rawValue: "outOfMemory")
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The machine failed, not the input (a full disk, an unwritable output folder, a library or
    /// codec that cannot load, memory): a retry elsewhere or later may succeed. The CLI exits 75
    /// (`EX_TEMPFAIL`) for these, 1 for inputs that are at fault.
    public var isEnvironmental: Bool { [.writeFailed, .codecUnavailable, .outOfMemory].contains(code) }
}

import FoundationEssentials
import Glibc
import UploadPlanner

/// Makes the card SimpleX shows for a URL (title, description, image) the way the app does,
/// with the limits a bot needs because it fetches what strangers send.
public struct LinkPreviewer: Sendable {
    public struct Options: Sendable {
        /// Loopback, private, link-local and multicast addresses are refused unless this is set.
        public var allowPrivateHosts = false
        /// Host names trusted anyway (an internal service the user names).
        public var allowedHosts: Set<String> = []
        /// Seconds to connect and between bytes.
        public var connectTimeout: TimeInterval = 5
        /// Seconds for the whole preview: page, redirects and image.
        public var totalTimeout: TimeInterval = 15
        /// Bytes of a page read: enough for its head; the rest is never downloaded.
        public var maxPageBytes = 512 * 1024
        /// An image larger than this is refused (`tooLarge`).
        public var maxImageBytes = 8 * 1024 * 1024
        public var maxRedirects = 5
        /// Data-URI characters of the preview image, as every SimpleX preview.
        public var previewMaxLength = SimplexLimits.simplex.maxPreviewLength
        /// Lengths of title and description after trimming (cut at a word, with "…").
        public var maxTitleLength = 200
        public var maxDescriptionLength = 300
        public var userAgent = "Mozilla/5.0 (compatible; mediaprep link preview)"

        public init() {}
    }

    public var options: Options

    public init(options: Options = Options()) { self.options = options }

    /// `{uri, title, description, image}` for `url`, or a typed error (`blockedHost`, `timeout`,
    /// `tooLarge`, `notHTML`, `fetchFailed`, `noImage`, `invalidURL`). The core's LinkPreview
    /// requires an image, so a page without a usable one has no preview.
    public func preview(url string: String) async throws -> LinkPreview {
        guard let url = URL(string: string), url.host != nil else { throw MediaPrepError(.invalidURL, "not a URL: \(string)") }
        try SafeFetcher.checkScheme(url)
        let deadline = Date(timeIntervalSinceNow: options.totalTimeout)
        let fetcher = SafeFetcher(policy: AddressPolicy(allowPrivateHosts: options.allowPrivateHosts, allowedHosts: options.allowedHosts),
                                  connectTimeout: options.connectTimeout, totalTimeout: options.totalTimeout,
                                  maxRedirects: options.maxRedirects, userAgent: options.userAgent)
        return try await withDeadline(deadline) {
            let page = try await fetcher.get(url, cap: options.maxPageBytes, failOverCap: false,
                                             accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1", deadline: deadline)
            guard Self.isHTML(page) else {
                throw MediaPrepError(.notHTML, "\(page.url.absoluteString) is \(page.contentType ?? "not HTML"), not an HTML page")
            }
            let head = HTMLHead(bytes: page.body, contentType: page.contentType)
            guard let imageRef = head.image, let imageURL = URL(string: imageRef, relativeTo: page.url)?.absoluteURL else {
                throw MediaPrepError(.noImage, "\(page.url.absoluteString) names no image (og:image, twitter:image)")
            }
            let image = try await fetcher.get(imageURL, cap: options.maxImageBytes, failOverCap: true,
                                              accept: "image/*", deadline: deadline)
            let preview = try Self.previewImage(image.body, maxLength: options.previewMaxLength, source: imageURL.absoluteString)
            let title = HTMLHead.trim(head.title ?? page.url.host ?? string, to: options.maxTitleLength)
            let description = HTMLHead.trim(head.description ?? "", to: options.maxDescriptionLength)
            return LinkPreview(uri: string, title: title, description: description, image: preview)
        }
    }

    static func isHTML(_ r: SafeFetcher.Response) -> Bool {
        if let ct = r.contentType?.lowercased() {
            return ct.contains("text/html") || ct.contains("application/xhtml")
        }
        let start = String(decoding: r.body.prefix(512), as: UTF8.self).lowercased()
        return start.contains("<html") || start.contains("<!doctype html") || start.contains("<head")
    }

    /// Decodes the image (any format the pipeline reads) and makes the ≤ 14,000-character data URI.
    static func previewImage(_ bytes: [UInt8], maxLength: Int, source: String) throws -> String {
        guard !bytes.isEmpty else { throw MediaPrepError(.noImage, "\(source) is empty") }
        let format = FormatSniffer.sniff(bytes)
        guard format.isImage else { throw MediaPrepError(.noImage, "\(source) is not an image (\(format.rawValue))") }
        do {
            // GIF, WebP, BMP and TIFF too, from memory: nothing touches the disk.
            let decoded = try ImageLoader.load(data: bytes, path: nil,
                                               options: DecodeOptions(maxPixels: 50_000_000, minimumWidth: 384, minimumHeight: 384))
            let upright = Orienter.apply(decoded.orientation, to: decoded.pixels)
            return try PreviewMaker.make(from: AlphaOps.droppingOpaqueAlpha(upright), maxLength: maxLength)
        } catch let e as MediaPrepError {
            throw MediaPrepError(.noImage, "\(source) cannot be used: \(e.code.rawValue): \(e.message)")
        }
    }

    /// Runs `body`, or fails with `timeout` at `deadline`, whichever comes first.
    private func withDeadline<T: Sendable>(_ deadline: Date, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                let ns = UInt64(max(0, deadline.timeIntervalSinceNow) * 1e9)
                try await Task.sleep(nanoseconds: ns)
                throw MediaPrepError(.timeout, "the preview took longer than \(Int(options.totalTimeout)) s")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw MediaPrepError(.timeout, "no result") }
            return first
        }
    }
}

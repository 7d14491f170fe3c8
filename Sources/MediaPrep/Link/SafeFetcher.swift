import FoundationEssentials
import Glibc
import Dispatch

/// HTTP(S) GET through libcurl with the limits a bot needs: every hop's host checked (after
/// resolution) before it is contacted, at most `maxRedirects` redirects, connect and total time
/// limits, and a cap on the bytes read.
struct SafeFetcher: Sendable {
    var policy: AddressPolicy
    var connectTimeout: TimeInterval
    var totalTimeout: TimeInterval
    var maxRedirects: Int
    var userAgent: String

    struct Response: Sendable {
        let url: URL
        let contentType: String?
        let body: [UInt8]
        /// The body was cut at the cap (allowed for pages, whose head is all we read).
        let truncated: Bool
    }

    /// - Parameters:
    ///   - cap: read at most this many bytes.
    ///   - failOverCap: more than `cap` is an error (images); otherwise the body is cut there (pages).
    func get(_ url: URL, cap: Int, failOverCap: Bool, accept: String, deadline: Date) async throws -> Response {
        var current = url
        for hop in 0...maxRedirects {
            try Self.checkScheme(current)
            guard let host = current.host, !host.isEmpty else { throw MediaPrepError(.invalidURL, "\(current.absoluteString) has no host") }
            let policy = self.policy
            // getaddrinfo blocks: it runs on a Dispatch thread, never on Swift's cooperative pool.
            let pinned = try await withCheckedThrowingContinuation { (c: CheckedContinuation<[AddressPolicy.Address], Error>) in
                DispatchQueue.global().async { c.resume(with: Result { try policy.check(host: host) }) }
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw MediaPrepError(.timeout, "no time left for \(current.absoluteString)") }
            let r = try await once(current, pinned: pinned, cap: cap, refuseDeclaredOverCap: failOverCap, accept: accept, timeout: remaining)
            if (300...399).contains(r.status), let location = r.location {
                guard hop < maxRedirects else { throw MediaPrepError(.fetchFailed, "more than \(maxRedirects) redirects") }
                guard let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                    throw MediaPrepError(.fetchFailed, "bad redirect to \(location)")
                }
                current = next
                continue
            }
            guard (200...299).contains(r.status) else { throw MediaPrepError(.fetchFailed, "HTTP \(r.status) from \(current.absoluteString)") }
            if r.truncated && failOverCap {
                throw MediaPrepError(.tooLarge, "\(current.absoluteString) is over the \(cap)-byte limit")
            }
            return Response(url: current, contentType: r.contentType, body: r.body, truncated: r.truncated)
        }
        throw MediaPrepError(.fetchFailed, "more than \(maxRedirects) redirects")
    }

    static func checkScheme(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw MediaPrepError(.invalidURL, "only http and https links are fetched, not \(url.scheme ?? "this"): \(url.absoluteString)")
        }
    }

    /// One request, redirects not followed (the caller checks each new host first), connecting only
    /// to `pinned` addresses when given: the ones just checked, so a second DNS answer cannot steer it.
    private func once(_ url: URL, pinned: [AddressPolicy.Address], cap: Int, refuseDeclaredOverCap: Bool, accept: String,
                      timeout: TimeInterval) async throws -> Hop {
        let transfer = CurlTransfer(cap: cap, refuseDeclaredOverCap: refuseDeclaredOverCap)
        var request = CurlTransfer.Request(url: url.absoluteString, accept: accept, resolve: nil, timeout: timeout)
        if !pinned.isEmpty, let host = url.host {
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
            let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
            request.resolve = "\(bare):\(port):" + pinned.map { a in a.count == 16 ? "[\(AddressPolicy.format(a))]" : AddressPolicy.format(a) }
                .joined(separator: ",")
        }
        let r = request
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Hop, Error>) in
                // curl_easy_perform blocks: it runs on a Dispatch thread, never on Swift's cooperative pool.
                DispatchQueue.global().async { c.resume(with: Result { try transfer.perform(r, by: self, curl: try CurlLibrary.table()) }) }
            }
        } onCancel: {
            transfer.cancel()
        }
    }
}

/// One HTTP exchange as the fetcher sees it.
struct Hop: Sendable {
    var status = 0
    var location: String?
    var contentType: String?
    var body: [UInt8] = []
    var truncated = false
}

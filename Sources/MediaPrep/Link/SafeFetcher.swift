import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP(S) GET through URLSession with the limits a bot needs: every hop's host checked (after
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
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
                DispatchQueue.global().async { c.resume(with: Result { try policy.check(host: host) }) }
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw MediaPrepError(.timeout, "no time left for \(current.absoluteString)") }
            let r = try await once(current, cap: cap, refuseDeclaredOverCap: failOverCap, accept: accept, timeout: remaining)
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

    /// One request, redirects not followed (the caller checks each new host first).
    private func once(_ url: URL, cap: Int, refuseDeclaredOverCap: Bool, accept: String, timeout: TimeInterval) async throws -> Hop {
        let config = URLSessionConfiguration.ephemeral
        // URLSession on Linux truncates these to whole seconds (0.5 would mean "at once"); the
        // caller's deadline keeps sub-second totals exact.
        config.timeoutIntervalForRequest = max(1, min(connectTimeout, timeout).rounded(.up))
        config.timeoutIntervalForResource = max(1, timeout.rounded(.up))
        config.httpShouldSetCookies = false
        config.urlCache = nil
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = FetchDelegate(cap: cap, refuseDeclaredOverCap: refuseDeclaredOverCap)
        let session = URLSession(configuration: config, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url)
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue(accept, forHTTPHeaderField: "Accept")
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Hop, Error>) in
                delegate.start(task, continuation: c)
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// One HTTP exchange as the fetcher sees it.
private struct Hop: Sendable {
    var status = 0
    var location: String?
    var contentType: String?
    var body: [UInt8] = []
    var truncated = false
}

/// Collects one response, stops at the cap, and never follows a redirect by itself.
private final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let cap: Int
    /// An image whose Content-Length is over the cap is refused before a byte of it is read.
    private let refuseDeclaredOverCap: Bool
    private var hop = Hop()
    private var continuation: CheckedContinuation<Hop, Error>?

    init(cap: Int, refuseDeclaredOverCap: Bool) {
        self.cap = cap
        self.refuseDeclaredOverCap = refuseDeclaredOverCap
    }

    func start(_ task: URLSessionDataTask, continuation c: CheckedContinuation<Hop, Error>) {
        lock.lock()
        continuation = c
        lock.unlock()
        task.resume()
    }

    private func finish(_ result: Result<Hop, Error>) {
        lock.lock()
        let c = continuation
        continuation = nil
        lock.unlock()
        c?.resume(with: result)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)  // the 3xx itself is returned; the caller vets the next host
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.lock()
        if let http = response as? HTTPURLResponse {
            hop.status = http.statusCode
            hop.location = http.value(forHTTPHeaderField: "Location")
            hop.contentType = http.value(forHTTPHeaderField: "Content-Type")
        }
        let declared = response.expectedContentLength
        lock.unlock()
        if refuseDeclaredOverCap, declared > Int64(cap) {
            // Announced as too large: nothing more is read.
            lock.lock(); hop.truncated = true; let h = hop; lock.unlock()
            completionHandler(.cancel)
            finish(.success(h))
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        let room = cap - hop.body.count
        hop.body.append(contentsOf: data.prefix(max(0, room)))
        let full = data.count > room
        if full { hop.truncated = true }
        let h = hop
        lock.unlock()
        if full {
            dataTask.cancel()
            finish(.success(h))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        let h = hop
        lock.unlock()
        guard let error else { return finish(.success(h)) }
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorTimedOut {
            finish(.failure(MediaPrepError(.timeout, "\(task.originalRequest?.url?.absoluteString ?? "the request") timed out")))
        } else if ns.domain == NSURLErrorDomain && ns.code == NSURLErrorCancelled {
            finish(.failure(MediaPrepError(.cancelled, "the request was cancelled")))
        } else {
            finish(.failure(MediaPrepError(.fetchFailed, "\(task.originalRequest?.url?.absoluteString ?? "the request"): \(ns.localizedDescription)")))
        }
    }
}

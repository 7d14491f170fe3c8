import CCurl
import FoundationEssentials
import Glibc
import Synchronization

/// libcurl's entry points, opened the first time a link preview is fetched.
enum CurlLibrary {
    private static let loaded: Result<DynamicTable.Shared<ccurl>, MediaPrepError> = Trace.noteTime("loaded libcurl") {
        DynamicTable.load(ccurl_libraries(), ccurl_symbols(), as: ccurl.self, failing: .fetchFailed, "libcurl is").flatMap { t in
            // Once, before any handle (it is not thread-safe; this initializer runs once).
            let rc = t.curl_global_init(Int(CURL_GLOBAL_DEFAULT))
            return rc == CURLE_OK ? .success(DynamicTable.Shared(table: t)) : .failure(MediaPrepError(.fetchFailed, "libcurl is not available: curl_global_init failed (\(rc.rawValue))"))
        }
    }

    static func table() throws -> ccurl { try loaded.get().table }
}

/// One GET through a curl easy handle: headers and body collected up to a cap, redirects returned
/// (not followed), stoppable from another thread. The handle and header list are freed on every path.
final class CurlTransfer: Sendable {
    /// One hop's request: the address, what is accepted, and `host:port:addr[,addr…]` for
    /// CURLOPT_RESOLVE, so only the addresses just checked are contacted.
    struct Request: Sendable {
        var url: String
        var accept: String
        var resolve: String?
        /// Seconds left for this hop (the whole preview's deadline counts down across hops).
        var timeout: TimeInterval
    }

    private let cap: Int
    /// An image whose Content-Length is over the cap is refused before a byte of it is read.
    private let refuseDeclaredOverCap: Bool
    private let state = Locked(Hop())
    private let cancelled = Atomic<Bool>(false)

    init(cap: Int, refuseDeclaredOverCap: Bool) {
        self.cap = cap
        self.refuseDeclaredOverCap = refuseDeclaredOverCap
    }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Blocks until the response is read, cut at the cap, refused, failed or cancelled.
    func perform(_ r: Request, by fetcher: SafeFetcher, curl: ccurl) throws -> Hop {
        var c = curl
        guard let h = c.curl_easy_init() else { throw MediaPrepError(.fetchFailed, "cannot start a request") }
        var headers: UnsafeMutablePointer<curl_slist>? = nil
        var resolve: UnsafeMutablePointer<curl_slist>? = nil
        defer {
            c.curl_easy_cleanup(h)
            c.curl_slist_free_all(headers)
            c.curl_slist_free_all(resolve)
        }
        headers = c.curl_slist_append(headers, "Accept: \(r.accept)")
        if let pin = r.resolve { resolve = c.curl_slist_append(resolve, pin) }
        let me = Unmanaged.passUnretained(self).toOpaque()  // `self` outlives the blocking perform
        var ok = [
            ccurl_set_pointer(&c, h, CURLOPT_URL, r.url),
            ccurl_set_pointer(&c, h, CURLOPT_PROTOCOLS_STR, "http,https"),
            ccurl_set_long(&c, h, CURLOPT_FOLLOWLOCATION, 0),
            ccurl_set_long(&c, h, CURLOPT_NOSIGNAL, 1),
            ccurl_set_long(&c, h, CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, min(fetcher.connectTimeout, r.timeout) * 1000))),
            ccurl_set_long(&c, h, CURLOPT_TIMEOUT_MS, Int(max(1, r.timeout * 1000))),
            // "Between bytes": under 1 byte/s for the connect time counts as a stall.
            ccurl_set_long(&c, h, CURLOPT_LOW_SPEED_LIMIT, 1),
            ccurl_set_long(&c, h, CURLOPT_LOW_SPEED_TIME, Int(max(1, fetcher.connectTimeout.rounded(.up)))),
            ccurl_set_pointer(&c, h, CURLOPT_USERAGENT, fetcher.userAgent),
            ccurl_set_pointer(&c, h, CURLOPT_HTTPHEADER, headers),
            ccurl_set_pointer(&c, h, CURLOPT_ACCEPT_ENCODING, ""),
            ccurl_set_pointer(&c, h, CURLOPT_COOKIEFILE, nil),
            ccurl_set_write(&c, h, CURLOPT_HEADERFUNCTION) { p, size, n, me in
                me.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue().header(p, size * n) } ?? 0
            },
            ccurl_set_pointer(&c, h, CURLOPT_HEADERDATA, me),
            ccurl_set_write(&c, h, CURLOPT_WRITEFUNCTION) { p, size, n, me in
                me.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue().body(p, size * n) } ?? 0
            },
            ccurl_set_pointer(&c, h, CURLOPT_WRITEDATA, me),
            ccurl_set_long(&c, h, CURLOPT_NOPROGRESS, 0),
            ccurl_set_progress(&c, h) { me, _, _, _, _ in
                me.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue().cancelled.load(ordering: .relaxed) ? 1 : 0 } ?? 1
            },
            ccurl_set_pointer(&c, h, CURLOPT_XFERINFODATA, me),
        ].allSatisfy { $0 == CURLE_OK }
        if resolve != nil { ok = ok && ccurl_set_pointer(&c, h, CURLOPT_RESOLVE, resolve) == CURLE_OK }
        guard ok, headers != nil else { throw MediaPrepError(.fetchFailed, "cannot set up the request for \(r.url)") }
        let rc = c.curl_easy_perform(h)
        var status = 0
        _ = ccurl_info_long(&c, h, CURLINFO_RESPONSE_CODE, &status)
        var hop = state.withLock { $0 }
        if hop.status == 0 { hop.status = status }
        switch rc {
        case CURLE_OK: return hop
        case CURLE_WRITE_ERROR where hop.truncated: return hop  // stopped at the cap, on purpose
        case CURLE_ABORTED_BY_CALLBACK: throw MediaPrepError(.cancelled, "the request was cancelled")
        case CURLE_OPERATION_TIMEDOUT: throw MediaPrepError(.timeout, "\(r.url) timed out")
        default:
            let text = c.curl_easy_strerror(rc).map { String(cString: $0) } ?? "error \(rc.rawValue)"
            throw MediaPrepError(.fetchFailed, "\(r.url): \(text)")
        }
    }

    /// One header line; a status line starts a new response (a 100 Continue before the real one).
    private func header(_ p: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let p else { return 0 }
        let line = String(decoding: UnsafeRawBufferPointer(start: p, count: count), as: UTF8.self)
            .trimmingWhitespace()
        return state.withLock { hop in
            if line.hasPrefix("HTTP/") {
                hop = Hop()
                hop.status = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                return count
            }
            guard let colon = line.firstIndex(of: ":") else { return count }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            switch name {
            case "location": hop.location = value
            case "content-type": hop.contentType = value
            case "content-length" where refuseDeclaredOverCap && (200...299).contains(hop.status):
                if let n = Int(value), n > cap {
                    hop.truncated = true  // announced as too large: nothing more is read
                    return 0
                }
            default: break
            }
            return count
        }
    }

    /// Body bytes, kept up to the cap; past it the transfer stops.
    private func body(_ p: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let p else { return 0 }
        return state.withLock { hop in
            let room = cap - hop.body.count
            hop.body.append(contentsOf: UnsafeRawBufferPointer(start: p, count: min(count, max(0, room))))
            guard count <= room else {
                hop.truncated = true
                return 0
            }
            return count
        }
    }
}

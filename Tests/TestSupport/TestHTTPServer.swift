import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 for link-preview tests: real sockets, real libcurl
/// requests, no network beyond loopback. One thread accepts; each connection gets its own.
public final class TestHTTPServer: @unchecked Sendable {
    public struct Route: Sendable {
        public var status = 200
        public var headers: [(String, String)] = []
        public var body: [UInt8] = []
        /// Seconds to wait before answering (a slow server).
        public var delay: Double = 0

        public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], delay: Double = 0) {
            (self.status, self.headers, self.body, self.delay) = (status, headers, body, delay)
        }
    }

    private let listener: Int32
    public let port: Int
    private let lock = NSLock()
    private var routes: [String: Route] = [:]
    public private(set) var requests: [String] = []

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        listener = fd
        let l = fd
        Thread { [weak self] in
            while true {
                let c = accept(l, nil, nil)
                if c < 0 { return }
                guard let self else { close(c); return }
                Thread { self.serve(c) }.start()
            }
        }.start()
    }

    public var base: String { "http://127.0.0.1:\(port)" }

    public func route(_ path: String, _ r: Route) { lock.lock(); routes[path] = r; lock.unlock() }

    public func html(_ path: String, _ text: String, contentType: String = "text/html; charset=utf-8") {
        route(path, Route(headers: [("Content-Type", contentType)], body: Array(text.utf8)))
    }

    public func redirect(_ path: String, to location: String) {
        route(path, Route(status: 302, headers: [("Location", location)]))
    }

    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ c: Int32) {
        defer { close(c) }
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !buffer.containsHeaderEnd {
            let n = read(c, &chunk, chunk.count)
            if n <= 0 { return }
            buffer += chunk[0..<n]
        }
        let line = String(decoding: buffer.prefix { $0 != 0x0D }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let path = parts.count > 1 ? String(parts[1]) : "/"
        lock.lock()
        requests.append(path)
        let r = routes[path] ?? Route(status: 404, headers: [("Content-Type", "text/plain")], body: Array("not found".utf8))
        lock.unlock()
        if r.delay > 0 { usleep(UInt32(r.delay * 1_000_000)) }
        var head = "HTTP/1.1 \(r.status) X\r\nContent-Length: \(r.body.count)\r\nConnection: close\r\n"
        for (k, v) in r.headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        let out = Array(head.utf8) + r.body
        var sent = 0
        while sent < out.count {
            let n = out[sent...].withUnsafeBytes { write(c, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            sent += n
        }
    }
}

private extension Array where Element == UInt8 {
    var containsHeaderEnd: Bool {
        count >= 4 && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}

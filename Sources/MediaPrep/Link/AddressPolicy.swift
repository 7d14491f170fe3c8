import FoundationEssentials
import Glibc

/// Decides which hosts a link preview may contact: a bot fetches what strangers send, so nothing
/// on the machine's own networks unless the user opts in.
package struct AddressPolicy: Sendable {
    package var allowPrivateHosts = false
    /// Host names (as written in URLs) trusted anyway, e.g. one internal service.
    package var allowedHosts: Set<String> = []

    package init(allowPrivateHosts: Bool = false, allowedHosts: Set<String> = []) {
        self.allowPrivateHosts = allowPrivateHosts
        self.allowedHosts = allowedHosts
    }

    /// Resolves `host` and refuses it if any address is loopback, private, link-local, multicast,
    /// unspecified or otherwise not public. Checked again for every redirect. Returns the addresses
    /// checked, for the connection to use (none when the host is trusted without a check).
    @discardableResult
    package func check(host: String) throws -> [Address] {
        if allowPrivateHosts || allowedHosts.contains(host.lowercased()) { return [] }
        let addresses = try Self.resolve(host)
        guard !addresses.isEmpty else { throw MediaPrepError(.fetchFailed, "\(host) has no address") }
        for a in addresses where !Self.isPublic(a) {
            throw MediaPrepError(.blockedHost, "\(host) resolves to \(Self.format(a)), a non-public address (--allow-private-hosts to allow)")
        }
        return addresses
    }

    /// One resolved address: 4 or 16 bytes.
    package typealias Address = [UInt8]

    static func resolve(_ host: String) throws -> [Address] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let rc = getaddrinfo(name, nil, &hints, &list)
        guard rc == 0, let first = list else {
            throw MediaPrepError(.fetchFailed, "cannot resolve \(host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(first) }
        var out: [Address] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let sa = n.pointee.ai_addr {
                if n.pointee.ai_family == AF_INET {
                    sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                        var a = p.pointee.sin_addr
                        out.append(withUnsafeBytes(of: &a) { Array($0) })
                    }
                } else if n.pointee.ai_family == AF_INET6 {
                    sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                        var a = p.pointee.sin6_addr
                        out.append(withUnsafeBytes(of: &a) { Array($0) })
                    }
                }
            }
            node = n.pointee.ai_next
        }
        return out
    }

    /// True only for globally routable unicast addresses.
    static func isPublic(_ a: Address) -> Bool {
        if a.count == 16 {
            // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible: judge the IPv4 inside.
            if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xFF && a[11] == 0xFF { return isPublic(Array(a[12..<16])) }
            if a[0..<12].allSatisfy({ $0 == 0 }) { return false }           // ::, ::1, compatible
            if a[0] == 0xFF { return false }                                 // multicast
            if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return false }         // link-local fe80::/10
            if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return false }         // site-local fec0::/10
            if a[0] & 0xFE == 0xFC { return false }                          // unique local fc00::/7
            if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8 { return false }  // documentation
            if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B { return isPublic(Array(a[12..<16])) }  // NAT64
            if a[0] == 0x20 && a[1] == 0x02 { return isPublic(Array(a[2..<6])) }  // 6to4 embeds an IPv4
            return true
        }
        guard a.count == 4 else { return false }
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): return false                        // this network, private, loopback
        case (100, 64...127): return false                                   // carrier-grade NAT
        case (169, 254): return false                                        // link-local (cloud metadata)
        case (172, 16...31): return false
        case (192, 168): return false
        case (192, 0) where a[2] == 0 || a[2] == 2: return false             // IETF, documentation
        case (198, 18...19): return false                                    // benchmarking
        case (198, 51) where a[2] == 100, (203, 0) where a[2] == 113: return false
        case (224...255, _): return false                                    // multicast, reserved, broadcast
        default: return true
        }
    }

    static func format(_ a: Address) -> String {
        if a.count == 4 { return a.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: a.count, by: 2).map { String(Int(a[$0]) << 8 | Int(a[$0 + 1]), radix: 16) }.joined(separator: ":")
    }
}

internal import CCurl
import Glibc

/// Plain HTTP carries a server's password (basic auth) and every file in the clear, so
/// bmvault speaks it to this machine only. A host is this machine when it is the exact name
/// `localhost` (libcurl resolves that name to the loopback addresses itself, asking no DNS
/// server and no hosts file), an IPv4 address in 127.0.0.0/8 written as four decimal numbers,
/// or the IPv6 address `::1`. A name that only looks like one (`127.0.0.1.nip.io`,
/// `127.evil.example`, `localhost.example`) resolves wherever its owner says, and is not.
public enum ThisMachine {
    /// Whether `host` (as a URL names it; an IPv6 address with or without its brackets) is
    /// this machine by the rule above.
    public static func isLoopback(host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, host, &ipv6) == 1 {
            return withUnsafeBytes(of: &ipv6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
        }
        return false
    }

    /// The scheme and host of `url` as libcurl itself reads it (its URL API), so the rule
    /// is applied to the host libcurl will connect to; nil when libcurl cannot read it.
    static func schemeAndHost(of url: String) -> (scheme: String, host: String)? {
        guard let parsed = curl_url() else { return nil }
        defer { curl_url_cleanup(parsed) }
        guard curl_url_set(parsed, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(parsed, which, &value, 0) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME), let host = part(CURLUPART_HOST) else { return nil }
        return (scheme.lowercased(), host)
    }
}

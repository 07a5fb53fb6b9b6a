import Foundation
import HybridEngine

/// The matching rules of RFC 6265 §5.1: canonical hosts, domain-match (§5.1.3), default-path and
/// path-match (§5.1.4). Pure functions, shared by the jar, the sync policy and the tests.
public enum CookieMatch {
    /// The canonicalized host of `url` (§5.1.2): lower-case, IPv6 without brackets; `nil` when
    /// the URL has no host.
    public static func canonicalHost(_ url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return nil }
        return canonicalHost(host)
    }

    /// A host name canonicalized as ``canonicalHost(_:)-(URL)`` does it: lower-case, IPv6 without
    /// brackets.
    public static func canonicalHost(_ host: String) -> String {
        let host = host.lowercased()
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// §5.1.3: `host` domain-matches `domain` when they are identical, or when `domain` is a suffix
    /// of `host` preceded by a dot and `host` is a host name — never an IP address, so
    /// `1.2.3.4` does not match `2.3.4`.
    public static func domainMatches(_ host: String, domain: String) -> Bool {
        if host == domain { return true }
        guard !domain.isEmpty, host.hasSuffix(domain), !isIPAddress(host) else { return false }
        return host.dropLast(domain.count).last == "."
    }

    /// Whether `host` is an IPv4 or IPv6 literal (IPv6 without brackets).
    public static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && Int(part).map { $0 <= 255 } == true
        }
    }

    /// The path of `url` as sent on the wire (percent-encoded), `/` when empty.
    public static func requestPath(_ url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : path
    }

    /// §5.1.4 default-path: the request path up to, not including, its last `/`; `/` when that
    /// leaves nothing or the path does not start with `/`.
    public static func defaultPath(_ url: URL) -> String {
        let path = requestPath(url)
        guard path.hasPrefix("/"), let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }

    /// §5.1.4 path-match: identical, or `cookiePath` is a prefix ending in `/`, or a prefix followed
    /// by `/` in the request path — so `/foo` matches `/foo/bar` but never `/foobar`.
    public static func pathMatches(_ requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// Whether `cookie` would be sent to `url` under the rules of §5.4 step 1 (host, path,
    /// Secure); HttpOnly is the caller's concern because it depends on who asks.
    /// - Parameter secureSchemes: schemes whose origins count as secure (`https` and app schemes).
    public static func matches(_ cookie: Cookie, url: URL, secureSchemes: Set<String>) -> Bool {
        guard let host = canonicalHost(url) else { return false }
        let hostMatches = cookie.hostOnly ? host == cookie.domain : domainMatches(host, domain: cookie.domain)
        guard hostMatches, pathMatches(requestPath(url), cookiePath: cookie.path) else { return false }
        return !cookie.secure || isSecure(url, secureSchemes: secureSchemes)
    }

    /// Whether `url`'s scheme is one of `secureSchemes` (case-insensitive).
    public static func isSecure(_ url: URL, secureSchemes: Set<String>) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return secureSchemes.contains(scheme)
    }
}

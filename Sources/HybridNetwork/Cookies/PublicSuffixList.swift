import Foundation

#if canImport(CPSL)
import CPSL
#endif

/// The Public Suffix List (publicsuffix.org): the domains under which anyone may register a name
/// (`com`, `co.uk`, and private ones such as `github.io`), so that no cookie may be set for all of
/// them, and each host's registrable domain, its "site" (`a.example.co.uk` → `example.co.uk`).
///
/// On Linux it is libpsl's: the newer of the list compiled into the library and the one Debian's
/// `publicsuffix` package keeps in `/usr/share/publicsuffix` — the library and data WebKitGTK's
/// network stack decides its own cookies with. Where there is no list (Apple platforms: no public
/// API gives it), a single label counts as a public suffix and a host is a site of its own; an app
/// there can give the jar its own list (``CookieJar/Policy/isPublicSuffix``).
public enum PublicSuffixList {
    #if canImport(CPSL)
    /// Loaded once, read only after: libpsl's lookups need no lock.
    nonisolated(unsafe) private static let context: OpaquePointer? = psl_latest(nil) ?? psl_builtin()
    #endif

    /// Whether a list is there (libpsl and its data); without one the answers are the fallback's.
    public static var isAvailable: Bool {
        #if canImport(CPSL)
        return context != nil
        #else
        return false
        #endif
    }

    /// Whether `domain` (lower-case, no leading dot) is a public suffix, as browsers count them:
    /// the list's ICANN and private sections, and any single label the list does not name (its
    /// implicit `*` rule: `localhost`, `internal`).
    public static func isPublicSuffix(_ domain: String) -> Bool {
        let domain = normalized(domain)
        guard !domain.isEmpty else { return true }
        #if canImport(CPSL)
        if let context { return domain.withCString { psl_is_public_suffix(context, $0) } != 0 }
        #endif
        return !domain.contains(".")
    }

    /// The registrable domain of `host` (one label under its public suffix), or `nil` for an IP
    /// address, a public suffix itself, or an empty host.
    public static func registrableDomain(_ host: String) -> String? {
        let host = normalized(host)
        guard !host.isEmpty, !CookieMatch.isIPAddress(host) else { return nil }
        #if canImport(CPSL)
        if let context {
            // libpsl answers with a pointer into the text it was given: the text's own suffix.
            return host.withCString { text in psl_registrable_domain(context, text).map { String(cString: $0) } }
        }
        #endif
        return isPublicSuffix(host) ? nil : host
    }

    /// Whether two hosts are of one site: the same host, or the same registrable domain (RFC 6265bis
    /// and HTML's "same site", less the scheme, which the caller compares).
    public static func isSameSite(_ first: String, _ second: String) -> Bool {
        let (first, second) = (normalized(first), normalized(second))
        if first == second { return true }
        guard let site = registrableDomain(first) else { return false }
        return site == registrableDomain(second)
    }

    /// The canonical host (``CookieMatch/canonicalHost(_:)-(String)``) without a trailing dot
    /// (libpsl wants lower-case UTF-8).
    private static func normalized(_ host: String) -> String {
        var host = CookieMatch.canonicalHost(host)
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

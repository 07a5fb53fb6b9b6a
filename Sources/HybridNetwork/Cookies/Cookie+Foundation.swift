import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridEngine

/// Conversions at the edges, for apps whose networking uses `HTTPCookieStorage`. The jar never
/// parses through `HTTPCookie`; these only move already-judged cookies across.
extension Cookie {
    /// The cookie an `HTTPCookie` describes. A domain with a leading dot is a domain cookie,
    /// one without is host-only (Foundation's convention).
    public init(_ cookie: HTTPCookie) {
        let domain = cookie.domain.lowercased()
        self.init(name: cookie.name, value: cookie.value, domain: domain, path: cookie.path.isEmpty ? "/" : cookie.path,
                  expires: cookie.expiresDate, secure: cookie.isSecure, httpOnly: cookie.isHTTPOnly,
                  hostOnly: domain.unicodeScalars.first != ".")
    }

    /// An `HTTPCookie` with the same fields, or `nil` when Foundation refuses them.
    public var httpCookie: HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .path: path,
            .domain: hostOnly ? domain : "." + domain,
        ]
        if let expires { properties[.expires] = expires }
        if secure { properties[.secure] = "TRUE" }
        if httpOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        return HTTPCookie(properties: properties)
    }
}

extension CookieJar {
    /// Copies every unexpired cookie of `storage` into the jar (e.g. a login made with URLSession).
    public func importCookies(from storage: HTTPCookieStorage) {
        for cookie in storage.cookies ?? [] { setCookie(Cookie(cookie)) }
    }

    /// Copies every cookie of the jar into `storage`, replacing same-named ones.
    public func exportCookies(to storage: HTTPCookieStorage) {
        for cookie in allCookies { cookie.httpCookie.map(storage.setCookie) }
    }
}

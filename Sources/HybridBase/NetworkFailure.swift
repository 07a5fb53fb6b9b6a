import Foundation

/// Why a network operation failed. Codes are stable: page authors and logs switch on them.
public enum NetworkFailure: HybridFailureReason {
    /// Something this domain did not expect; `message` says what.
    case internalError(String)
    /// A `Set-Cookie` header or `document.cookie` assignment could not be parsed (RFC 6265 §5.2),
    /// for example a name-value pair without `=` or with an empty name.
    case malformedCookie(String)
    /// The cookie was well-formed but the storage model refused it (RFC 6265 §5.3): a `Domain`
    /// that the request host does not domain-match, a public suffix, an HttpOnly cookie from a
    /// script, a Secure cookie from an insecure origin. `name` is the cookie's name.
    case cookieRejected(name: String, reason: String)
    /// The cookie file could not be read or written.
    case cookiePersistence(String)
    /// The HTTP server could not start (address in use, not an IP address).
    case serverStartFailed(String)
    /// A proxied request or response body exceeds the proxy's limit (``ProxyPolicy/maxBodyBytes``).
    case payloadTooLarge(size: Int, limit: Int)
    /// A proxied request was redirected more than ``ProxyPolicy/maxRedirects`` times (a loop).
    case tooManyRedirects(limit: Int)
    /// A proxied request did not complete within its timeout (milliseconds).
    case timedOut(milliseconds: Int)
    /// A proxied request failed in transport (refused, reset, DNS, TLS); `message` says how.
    case requestFailed(String)
    /// The proxy refused the request: its URL is not covered by the ``ProxyPolicy`` or not http(s).
    case proxyDenied(String)
    /// A cross-origin request failed the CORS check the engine would have made (``ProxyCORS``):
    /// the page gets the engine's network error; `message` (for logs only) says why.
    case corsDenied(String)
    /// A streamed request body (``ProxyRequest/bodySize``) could not be sent as the page declared
    /// it: a slice at the wrong offset, of the wrong length, not base64, the page could not read
    /// its body, or the body ended early. Nothing more of the body is sent; `message` says what.
    case invalidBody(String)
    /// The document's Content Security Policy refuses the request (its `connect-src`, or the
    /// `default-src` it falls back to), as the engine would have refused it: nothing was sent.
    case cspDenied(ContentSecurityPolicy.Violation)
    /// A secure page (https, an offline package) asked for a plain-http URL that is not loopback
    /// and not an app exception (``ProxyMixedContent``): blocked as the engine blocks it, unsent.
    case mixedContent(String)
    /// The response body did not match the request's `integrity` metadata
    /// (``SubresourceIntegrity``): the page gets the engine's network error and none of the body.
    case integrityMismatch(String)
    /// A proxied `fetch` with `cache: 'only-if-cached'` found nothing stored (``ProxyCache``): the
    /// page gets the engine's network error and nothing was sent.
    case notCached(String)
    /// A stored HTTP cache entry could not be read whole (cut short, changed, not an entry): it is
    /// dropped and never served; `message` says what was wrong.
    case cacheCorrupt(String)

    /// The stable code pages and logs switch on (`timeout`, `cors_denied`, …).
    public var code: String {
        switch self {
        case .internalError: "internal"
        case .malformedCookie: "cookie_malformed"
        case .cookieRejected: "cookie_rejected"
        case .cookiePersistence: "cookie_persistence"
        case .serverStartFailed: "server_start_failed"
        case .payloadTooLarge: "payload_too_large"
        case .tooManyRedirects: "too_many_redirects"
        case .timedOut: "timeout"
        case .requestFailed: "network_error"
        case .proxyDenied: "proxy_denied"
        case .corsDenied: "cors_denied"
        case .invalidBody: "invalid_body"
        case .cspDenied: "csp_denied"
        case .mixedContent: "mixed_content"
        case .integrityMismatch: "integrity_mismatch"
        case .notCached: "not_cached"
        case .cacheCorrupt: "cache_corrupt"
        }
    }

    /// What happened, for logs.
    public var description: String {
        switch self {
        case .internalError(let message): message
        case .malformedCookie(let header): "malformed cookie: \(header)"
        case .cookieRejected(let name, let reason): "cookie '\(name)' rejected: \(reason)"
        case .cookiePersistence(let message): "cookie file: \(message)"
        case .serverStartFailed(let message): "server could not start: \(message)"
        case .payloadTooLarge(let size, let limit): "body of \(size) bytes exceeds the proxy's limit of \(limit) bytes"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .timedOut(let ms): "timed out after \(ms) ms"
        case .requestFailed(let message): "request failed: \(message)"
        case .proxyDenied(let message): "not proxied: \(message)"
        case .corsDenied(let message): "CORS: \(message)"
        case .invalidBody(let message): "request body: \(message)"
        case .cspDenied(let violation):
            "Refused to connect to '\(violation.blockedURI)' because it violates the Content Security Policy directive \(violation.violatedDirective)"
        case .integrityMismatch(let url): "Failed integrity metadata check for '\(url)'"
        case .mixedContent(let url): "Mixed Content: the secure page requested the insecure resource '\(url)'; blocked"
        case .notCached(let url): "'\(url)' is not in the cache (only-if-cached)"
        case .cacheCorrupt(let message): "cache entry: \(message)"
        }
    }
}

import Foundation
import HybridBase

/// Which page requests the ``RequestProxy`` carries, on which pages, and within which limits.
///
/// A request goes through the proxy when the page it comes from matches ``pages`` and its URL
/// matches ``requests``; everything else stays with the engine. Patterns are
/// ``ConfigURLPattern``s, the same syntax remote config uses, so a config rule can switch the
/// proxy per page (``applying(_:)``).
///
/// ```swift
/// let policy = try ProxyPolicy(requests: ["https://api.example.com", "app://*"],
///                              pages: ["app://*", "https://m.example.com"],
///                              trustedHosts: ["https://api.example.com"])
/// ```
public struct ProxyPolicy: Sendable, Hashable {
    /// Which of the requests ``requests`` names leave the engine (docs/request-proxy.md, "Proxy
    /// only what needs it").
    public enum Routing: String, Sendable, Hashable {
        /// Every one.
        case always
        /// Only a request the engine cannot carry without losing something: from a page whose
        /// origin no server expects (a custom scheme: an offline package on WebKit), with cookies
        /// only the app's jar holds (``usesCookieJar`` without ``engineHasJarCookies``), to a URL a
        /// header rule names (``headerRules``: a token the page must not see), or cross-origin to a
        /// trusted host (``trustedHosts``: no CORS check). Everything else stays on the engine's own
        /// networking, where its CSP, cache, service worker, Resource Timing, `keepalive` and
        /// synchronous XHR apply as they always do.
        case whenNeeded
    }

    /// Extra headers for proxied requests to some URLs (a login token for the app's API).
    public struct HeaderRule: Sendable, Hashable {
        /// The request URLs the headers go to.
        public var pattern: ConfigURLPattern
        /// Header names and values.
        public var headers: [String: String]
        /// A rule adding `headers` to requests matching `pattern`.
        public init(_ pattern: ConfigURLPattern, headers: [String: String]) {
            self.pattern = pattern
            self.headers = headers
        }
    }

    /// `false` turns the proxy off everywhere (the page script is not even injected).
    public var isEnabled: Bool
    /// Request URLs the proxy carries.
    public var requests: [ConfigURLPattern]
    /// Pages whose requests are hooked. Empty: every page.
    public var pages: [ConfigURLPattern]
    /// Hook form POST submissions too (the response replaces the document).
    public var proxiesForms: Bool
    /// Largest request or response body, in bytes. Larger ones fail with `payload_too_large`
    /// before anything is sent. Fetch and XHR request bodies stream from the page a slice at a
    /// time (``ProxyRequest/bodySize``), so for them raising this costs the app no memory; a
    /// response body and a form POST's body are still held whole. 10 MB by default.
    public var maxBodyBytes: Int
    /// Redirects followed before the request fails with `too_many_redirects`.
    public var maxRedirects: Int
    /// Seconds a request may take when the page sets no timeout of its own.
    public var defaultTimeout: Double
    /// Headers added to matching requests (a page's own header of the same name wins).
    public var headerRules: [HeaderRule]
    /// Send the app's ``CookieJar`` cookies and store `Set-Cookie` replies in it (per redirect hop).
    public var usesCookieJar: Bool
    /// Hosts the app trusts with every hooked page's requests: no CORS check (``ProxyCORS``).
    ///
    /// Off by default: a proxied cross-origin request gets the engine's CORS protocol, so the
    /// proxy never lets a page read what the engine would hide. List here, explicitly, the app's
    /// own API hosts that pages must reach whatever their origin — typically the hosts a page
    /// from an offline package (`app://…`, an origin no server lists) talks to. A request to a
    /// trusted host is sent without a preflight and without `Origin`, carries the jar's cookies
    /// unless the page asked for `credentials: 'omit'`, and the page reads the whole response
    /// (as `type` `cors`). Patterns as in ``requests`` (`https://api.example.com`,
    /// `https://*.example.com`); only the scheme, host and port of a request are meant to be
    /// matched, so leave the path out.
    public var trustedHosts: [ConfigURLPattern]
    /// Plain-http hosts a secure page (https, or an offline package's scheme) may still reach
    /// through the proxy: the app's explicit exception to mixed-content blocking
    /// (``ProxyMixedContent``). Empty by default, so the proxy blocks what the engine blocks;
    /// patterns as in ``trustedHosts`` (`http://intranet.example.com:8080`). Set it in code, never
    /// from remote config: it weakens every hooked page.
    public var mixedContentExceptions: [ConfigURLPattern] = []
    /// The HTTP cache proxied GETs use (``ProxyCache``): RFC 9111 freshness and revalidation,
    /// fetch's `cache` modes, entries keyed by URL and the credentials sent, bounded on disk and
    /// in memory. On by default, 50 MB on disk under ``ProxyCache/Configuration/defaultDirectory``
    /// and 4 MB in memory; give the app's own directory (`ProxyCache.Configuration(directory: …)`),
    /// or ``ProxyCache/Configuration/disabled`` to send every GET to the network.
    public var cache = ProxyCache.Configuration()
    /// Which matching requests are proxied: only those that need it by default; ``Routing/always``
    /// sends every one through the proxy.
    public var routing = Routing.whenNeeded
    /// Whether the engine's cookie store holds the jar's cookies, both ways (a ``CookieSync`` runs
    /// for the view's provider): then cookies alone are no reason to proxy a request. `false` by
    /// default; ``HybridWebViewConfiguration`` sets it where it installs a cookie sync.
    public var engineHasJarCookies = false

    /// A policy.
    /// - Parameters:
    ///   - requests: Request URL patterns (`https://api.example.com`, `*://*.example.com/api/*`).
    ///   - pages: Page URL patterns where the hooks apply; empty for every page.
    ///   - trustedHosts: Hosts exempt from the CORS check (``trustedHosts``); none by default.
    /// - Throws: ``ConfigFailure/invalidPattern(pattern:reason:)`` for a pattern that does not parse.
    public init(requests: [String], pages: [String] = [], proxiesForms: Bool = true, maxBodyBytes: Int = 10 << 20,
                maxRedirects: Int = 20, defaultTimeout: Double = 60, headerRules: [HeaderRule] = [],
                usesCookieJar: Bool = true, trustedHosts: [String] = [], isEnabled: Bool = true) throws {
        self.requests = try requests.map(ConfigURLPattern.init)
        self.pages = try pages.map(ConfigURLPattern.init)
        self.proxiesForms = proxiesForms
        self.maxBodyBytes = maxBodyBytes
        self.maxRedirects = maxRedirects
        self.defaultTimeout = defaultTimeout
        self.headerRules = headerRules
        self.usesCookieJar = usesCookieJar
        self.trustedHosts = try trustedHosts.map(ConfigURLPattern.init)
        self.isEnabled = isEnabled
    }

    /// A policy that proxies nothing.
    public static var disabled: ProxyPolicy {
        // Empty pattern lists cannot fail to parse.
        (try? ProxyPolicy(requests: [], isEnabled: false))!
    }

    /// Whether requests from `page` are hooked at all.
    public func applies(toPage page: URL?) -> Bool {
        guard isEnabled, !requests.isEmpty else { return false }
        guard !pages.isEmpty else { return true }
        guard let page else { return false }
        return pages.contains { $0.matches(page) }
    }

    /// Whether the proxy carries a request to `url`. Only http and https go out.
    public func proxies(_ url: URL) -> Bool {
        guard isEnabled, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        return requests.contains { $0.matches(url) }
    }

    /// The extra headers for a request to `url`, later rules overriding earlier ones.
    public func extraHeaders(for url: URL) -> [String: String] {
        var headers: [String: String] = [:]
        for rule in headerRules where rule.pattern.matches(url) {
            headers.merge(rule.headers) { _, new in new }
        }
        return headers
    }

    /// The configuration the page script reads (`window.__hybridkitProxy`).
    var scriptConfiguration: JSONValue {
        [
            "requests": .array(requests.map { .string($0.text) }),
            "pages": .array(pages.map { .string($0.text) }),
            "timeout": .number(defaultTimeout * 1000),
            "forms": .bool(proxiesForms),
            "maxBodyBytes": .number(Double(maxBodyBytes)),
            "streamsBodies": .bool(ProxyBodySource.isAvailable),
            "routing": .string(routing.rawValue),
            "cookies": .bool(usesCookieJar && !engineHasJarCookies),
            "headerRules": .array(headerRules.map { .string($0.pattern.text) }),
            "trusted": .array(trustedHosts.map { .string($0.text) }),
        ]
    }
}

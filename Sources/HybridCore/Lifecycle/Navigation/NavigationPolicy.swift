import Foundation
import HybridEngine

/// The container's navigation rules: URL interception into bridge modules, token parameters
/// and headers for the app's own hosts, system and payment schemes handed to the app, the
/// `Referer` H5 payment providers require, and unknown schemes blocked.
///
/// Pure: ``decide(_:knownSchemes:redirectedURL:)`` looks at one navigation and returns a
/// ``NavigationDecision``; ``HybridWebView`` carries it out (set
/// ``HybridWebViewConfiguration/navigation``).
///
/// ```swift
/// var policy = NavigationPolicy()
/// policy.interceptedSchemes = ["myapp"]                       // myapp://share/open?title=Hi
/// policy.parameterRules = [.init(hosts: ["*.example.com"], query: [("token", token)])]
/// policy.paymentReferers = [.init(hosts: ["wx.tenpay.com"], referer: "https://m.example.com/")]
/// ```
public struct NavigationPolicy: Sendable, Hashable {
    /// Query parameters and headers added to main-frame navigations to some hosts.
    public struct ParameterRule: Sendable, Hashable {
        /// `example.com` (that host only) or `*.example.com` (it and every subdomain).
        public var hosts: [String]
        /// Added in order unless the URL already has a parameter of that name.
        public var query: [QueryItem]
        /// Sent with the navigation's request.
        public var headers: [String: String]
        /// Schemes the rule applies to; `https` only by default, so a token never travels in clear.
        public var schemes: Set<String>

        /// A rule for `hosts`: `query` parameters and `headers` added to their main-frame navigations
        /// over `schemes` (`https` only by default).
        public init(hosts: [String], query: [(String, String)] = [], headers: [String: String] = [:],
                    schemes: Set<String> = ["https"]) {
            self.hosts = hosts
            self.query = query.map { QueryItem(name: $0.0, value: $0.1) }
            self.headers = headers
            self.schemes = Set(schemes.map { $0.lowercased() })
        }
    }

    /// One query parameter, as given (encoded by the policy).
    public struct QueryItem: Sendable, Hashable {
        /// The parameter's name.
        public var name: String
        /// The parameter's value, unencoded.
        public var value: String
    }

    /// The `Referer` an H5 payment provider requires for its hosts.
    public struct PaymentRule: Sendable, Hashable {
        /// `example.com` (that host only) or `*.example.com` (it and every subdomain).
        public var hosts: [String]
        /// The `Referer` sent with main-frame navigations to these hosts.
        public var referer: String
        /// A rule that sends `referer` to `hosts`.
        public init(hosts: [String], referer: String) {
            self.hosts = hosts
            self.referer = referer
        }
    }

    /// Schemes whose navigations are bridge calls (`scheme://module/action?params`).
    public var interceptedSchemes: Set<String>
    /// Query parameters and headers (tokens) added to main-frame navigations to the app's hosts.
    public var parameterRules: [ParameterRule]
    /// Schemes handed to the app (``HybridWebViewDelegate/webView(_:openExternal:)``).
    public var externalSchemes: Set<String>
    /// http(s) hosts handed to the app as well (app-store links).
    public var externalHosts: [String]
    /// The `Referer` sent to H5 payment providers' hosts.
    public var paymentReferers: [PaymentRule]
    /// Schemes the engine loads itself besides http(s) and the container's own.
    public var engineSchemes: Set<String>
    /// Block (and report) navigations to schemes nobody knows. On by default.
    public var blocksUnknownSchemes: Bool

    /// The system and payment schemes handed to the app unless configured otherwise.
    public static let defaultExternalSchemes: Set<String> = [
        "tel", "telprompt", "mailto", "sms", "facetime", "maps", "weixin", "wechat", "alipays", "alipay",
        "itms-apps", "itms-appss", "itms-services", "market",
    ]

    /// A policy; by default it intercepts nothing, hands system, payment and app-store links to the
    /// app, lets the engine load `about:`, `data:`, `blob:` and `javascript:`, and blocks other schemes.
    public init(interceptedSchemes: Set<String> = [], parameterRules: [ParameterRule] = [],
                externalSchemes: Set<String> = NavigationPolicy.defaultExternalSchemes,
                externalHosts: [String] = ["apps.apple.com", "itunes.apple.com", "play.google.com"],
                paymentReferers: [PaymentRule] = [], engineSchemes: Set<String> = ["about", "data", "blob", "javascript"],
                blocksUnknownSchemes: Bool = true) {
        self.interceptedSchemes = Set(interceptedSchemes.map { $0.lowercased() })
        self.parameterRules = parameterRules
        self.externalSchemes = Set(externalSchemes.map { $0.lowercased() })
        self.externalHosts = externalHosts
        self.paymentReferers = paymentReferers
        self.engineSchemes = Set(engineSchemes.map { $0.lowercased() })
        self.blocksUnknownSchemes = blocksUnknownSchemes
    }

    /// Decides one navigation.
    /// - Parameters:
    ///   - knownSchemes: The container's own schemes (custom scheme handlers, packages, bridge).
    ///   - redirectedURL: The URL this policy last redirected to: its navigation is let through
    ///     as is, since an engine may not report the headers it was given.
    public func decide(_ action: NavigationAction, knownSchemes: Set<String> = [], redirectedURL: URL? = nil) -> NavigationDecision {
        let url = action.request.url
        let scheme = url.scheme?.lowercased() ?? ""
        if interceptedSchemes.contains(scheme) { return .intercept(url) }
        if externalSchemes.contains(scheme) { return .external(url) }
        let isWeb = scheme == "http" || scheme == "https"
        if isWeb, let host = Self.host(of: url), externalHosts.contains(where: { Self.host(host, matches: $0) }) {
            return .external(url)
        }
        if !isWeb, !engineSchemes.contains(scheme), !knownSchemes.contains(scheme), blocksUnknownSchemes {
            return .block(url, reason: scheme.isEmpty ? "no scheme" : "unknown scheme '\(scheme)'")
        }
        // Rewriting reloads the request in the main frame, as a GET: never for iframes, new
        // windows (their own container applies its policy) or bodies that would be lost.
        guard isWeb, action.isMainFrame, !action.targetsNewWindow, action.request.method.uppercased() == "GET",
              url != redirectedURL, let host = Self.host(of: url) else { return .allow }
        var items: [QueryItem] = []
        var headers: [String: String] = [:]
        for rule in parameterRules where rule.schemes.contains(scheme) && rule.hosts.contains(where: { Self.host(host, matches: $0) }) {
            items.append(contentsOf: rule.query)
            for (name, value) in rule.headers where action.request.header(name) != value { headers[name] = value }
        }
        for rule in paymentReferers where rule.hosts.contains(where: { Self.host(host, matches: $0) }) {
            if action.request.header("Referer") != rule.referer { headers["Referer"] = rule.referer }
        }
        let target = Self.appending(items, to: url)
        guard target != url || !headers.isEmpty else { return .allow }
        return .redirect(to: target, headers: headers)
    }

    /// `url` with `items` added to its query, skipping names it already has (so a token is
    /// never added twice, and a page's own value is left alone), each name and value
    /// percent-encoded so that `&`, `=`, `+`, `#` and non-ASCII cannot change the URL's meaning.
    public static func appending(_ items: [QueryItem], to url: URL) -> URL {
        guard !items.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        let existing = Set((components.queryItems ?? []).map(\.name))
        var seen = existing
        var added: [String] = []
        for item in items where !seen.contains(item.name) {
            seen.insert(item.name)
            added.append(encode(item.name) + "=" + encode(item.value))
        }
        guard !added.isEmpty else { return url }
        let query = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedQuery = ([query].compactMap { $0 } + added).joined(separator: "&")
        return components.url ?? url
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    static func host(of url: URL) -> String? {
        guard var host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.host?.lowercased(), !host.isEmpty else { return nil }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// `pattern` is `example.com` (exactly) or `*.example.com` (it and its subdomains).
    static func host(_ host: String, matches pattern: String) -> Bool {
        let pattern = pattern.lowercased()
        if pattern.hasPrefix("*.") {
            let domain = String(pattern.dropFirst(2))
            return host == domain || host.hasSuffix("." + domain)
        }
        return host == pattern
    }
}

import Foundation
import HybridBridge
import HybridBase

/// The engine's CORS protocol for one proxied request: what the engine would send, check and
/// hide, hop by hop (the Fetch standard's main fetch, HTTP fetch and CORS-preflight fetch).
///
/// Without it the proxy would be a way around the same-origin policy: a page could read any
/// response the proxy can reach. With it, a proxied request succeeds and reads exactly what the
/// same request made by the engine would: same-origin requests are not checked; cross-origin
/// ones send `Origin`, are preflighted when the engine would preflight them, must pass the
/// `Access-Control-Allow-*` checks, and expose only the safelisted and
/// `Access-Control-Expose-Headers` response headers; `credentials` decides whether cookies go
/// and whether `Access-Control-Allow-Origin: *` is accepted.
///
/// **Trusted hosts** (``ProxyPolicy/trustedHosts``) are the app's explicit exception, per host:
/// a hop to one is treated as if the server had allowed the page's origin with credentials and
/// exposed every header — no preflight, no `Origin`, the jar's cookies unless the page said
/// `credentials: 'omit'`. That is what a page served from an offline package (`app://…`, an
/// origin no server lists) needs to reach the app's own API.
///
/// A request with no page origin (the app's own code calling ``RequestProxy/perform(_:origin:progress:)``
/// without one) is not checked.
public struct ProxyCORS: Sendable {
    /// The Fetch standard's request mode.
    public enum Mode: String, Sendable {
        /// Cross-origin requests are CORS requests (`fetch`'s default, every XHR).
        case cors
        /// Cross-origin responses are opaque: status 0, no headers, no body.
        case noCORS = "no-cors"
        /// Cross-origin requests fail.
        case sameOrigin = "same-origin"
        /// A navigation (a form POST): no CORS, cookies go.
        case navigate
    }

    /// The Fetch standard's credentials mode.
    public enum Credentials: String, Sendable {
        /// Never send cookies or store `Set-Cookie`.
        case omit
        /// Cookies only while the request is same-origin (`fetch`'s default, XHR without `withCredentials`).
        case sameOrigin = "same-origin"
        /// Cookies cross-origin too (`withCredentials`); a wildcard `Access-Control-Allow-Origin` is refused.
        case include
    }

    /// How the response may be read, once a hop went cross-origin.
    public enum Tainting: String, Sendable {
        /// Same origin so far: read in full.
        case basic
        /// Cross-origin, CORS-checked: read what the server exposes.
        case cors
        /// Cross-origin `no-cors`: nothing can be read.
        case opaque
    }

    /// What to send for one hop.
    public struct Hop: Sendable, Equatable {
        /// Whether the hop's response must pass the CORS check (``check(status:headers:)``).
        public var checked: Bool
        /// Whether a preflight must come first (none cached answers it).
        public var preflight: Bool
        /// Whether the jar's cookies go, and `Set-Cookie` is stored.
        public var cookies: Bool
        /// The `Origin` header, or `nil` for none.
        public var origin: String?
    }

    /// The page's origin; `nil`: nothing is checked.
    public let origin: BridgeOrigin?
    /// The request's mode.
    public let mode: Mode
    /// The request's credentials mode.
    public let credentials: Credentials
    /// Hosts the app trusts with every page's requests (``ProxyPolicy/trustedHosts``).
    public let trusted: [ConfigURLPattern]
    /// The response tainting so far (`basic` until a hop goes cross-origin).
    public private(set) var tainting: Tainting = .basic
    /// Set when a redirect went from one origin to another, both other than the page's: the
    /// `Origin` header then says `null`.
    public private(set) var taintedOrigin = false
    /// Whether every cross-origin hop so far was to a trusted host.
    public private(set) var trustedSoFar = true
    /// Blink's rule: whether a request has an `Origin` header is decided at its first hop.
    public var originFromFirstHop = false
    private var firstHopOrigin: String??

    /// The CORS state of a new request.
    /// - Parameters:
    ///   - origin: The page's origin (the bridge call's); `nil` checks nothing.
    ///   - mode: `cors`, `no-cors`, `same-origin` or `navigate`; anything else is `cors`.
    ///   - credentials: `omit`, `same-origin` or `include`; anything else is `same-origin`.
    ///   - trusted: Hosts exempt from the check.
    public init(origin: BridgeOrigin?, mode: String?, credentials: String?, trusted: [ConfigURLPattern] = []) {
        self.origin = origin
        self.mode = mode.flatMap(Mode.init(rawValue:)) ?? .cors
        self.credentials = credentials.flatMap(Credentials.init(rawValue:)) ?? .sameOrigin
        self.trusted = trusted
    }

    /// `origin` as the `Origin` header spells it (`null` once tainted).
    public var serializedOrigin: String {
        guard let origin, !taintedOrigin else { return "null" }
        return origin.description
    }

    /// Whether `url` is same-origin with the page.
    public func isSameOrigin(_ url: URL) -> Bool {
        guard let origin else { return true }
        return BridgeOrigin(url: url) == origin
    }

    /// Whether `url` is on a trusted host.
    public func isTrusted(_ url: URL) -> Bool { trusted.contains { $0.matches(url) } }

    /// Plans the hop to `url` (the first, or one after a redirect).
    /// - Parameters:
    ///   - method: The hop's method.
    ///   - headers: The page's headers for the hop (not the app's own header rules).
    ///   - forcePreflight: The XHR upload-listener case.
    ///   - cached: Whether a cached preflight already allows this method and these headers.
    /// - Throws: `cors_denied` for a cross-origin request in `same-origin` mode, or a `no-cors`
    ///   request whose redirect mode is not `follow`.
    public mutating func plan(url: URL, method: String, headers: [(name: String, value: String)],
                              forcePreflight: Bool, redirect: String?, cached: (String, [String]) -> Bool) throws -> Hop {
        var hop = try planHop(url: url, method: method, headers: headers, forcePreflight: forcePreflight, redirect: redirect, cached: cached)
        if originFromFirstHop {
            if let first = firstHopOrigin {
                if first == nil { hop.origin = nil }
            } else {
                firstHopOrigin = .some(hop.origin)
            }
        }
        return hop
    }

    private mutating func planHop(url: URL, method: String, headers: [(name: String, value: String)],
                                  forcePreflight: Bool, redirect: String?, cached: (String, [String]) -> Bool) throws -> Hop {
        guard origin != nil, mode != .navigate else {
            return Hop(checked: false, preflight: false, cookies: credentials != .omit, origin: nil)
        }
        let unsafeMethod = !Self.safelistedMethods.contains(method)
        let sendsOrigin = method != "GET" && method != "HEAD"
        if isSameOrigin(url) && tainting == .basic {
            return Hop(checked: false, preflight: false, cookies: credentials != .omit, origin: sendsOrigin ? serializedOrigin : nil)
        }
        if mode == .sameOrigin { throw HybridError.network(.corsDenied("a same-origin request to \(Self.describe(url))")) }
        if mode == .noCORS {
            guard (redirect ?? "follow") == "follow" else {
                throw HybridError.network(.corsDenied("a no-cors request with redirect '\(redirect ?? "")'"))
            }
            if tainting == .basic { tainting = .opaque }
            return Hop(checked: false, preflight: false, cookies: credentials == .include,
                       origin: sendsOrigin ? serializedOrigin : nil)
        }
        if tainting == .basic { tainting = .cors }
        if isTrusted(url) {
            return Hop(checked: false, preflight: false, cookies: credentials != .omit, origin: nil)
        }
        trustedSoFar = false
        let unsafe = Self.unsafeHeaderNames(headers)
        let needsPreflight = forcePreflight || unsafeMethod || !unsafe.isEmpty
        return Hop(checked: true, preflight: needsPreflight && !cached(method, unsafe),
                   cookies: credentials == .include, origin: serializedOrigin)
    }

    /// Follows a redirect from `current` to `next`.
    /// - Throws: `cors_denied` when the standard refuses it (credentials in a cross-origin URL).
    public mutating func redirect(from current: URL, to next: URL) throws {
        guard origin != nil, mode != .navigate else { return }
        let hasCredentials = !(next.user ?? "").isEmpty || !(next.password ?? "").isEmpty
        if hasCredentials && (mode == .cors && !isSameOrigin(next) || tainting == .cors) {
            throw HybridError.network(.corsDenied("a redirect to a URL with credentials"))
        }
        if BridgeOrigin(url: next) != BridgeOrigin(url: current) && !isSameOrigin(current) {
            taintedOrigin = true
        }
    }

    /// The CORS check of a hop's response (redirects included), for a ``Hop/checked`` hop.
    /// - Returns: `nil` when it passes, otherwise why not.
    public func check(status: Int, headers: [[String]]) -> String? {
        let allowOrigin = Self.values("access-control-allow-origin", in: headers)
        guard allowOrigin.count == 1, let value = allowOrigin.first else {
            return allowOrigin.isEmpty ? "no Access-Control-Allow-Origin header" : "several Access-Control-Allow-Origin values"
        }
        if value == "*" && credentials != .include { return nil }
        guard value == serializedOrigin else {
            return value == "*" ? "Access-Control-Allow-Origin '*' with credentials" : "Access-Control-Allow-Origin '\(value)' is not '\(serializedOrigin)'"
        }
        if credentials != .include { return nil }
        guard Self.values("access-control-allow-credentials", in: headers) == ["true"] else {
            return "credentials, and Access-Control-Allow-Credentials is not 'true'"
        }
        return nil
    }

    /// What a preflight response allows.
    public struct Preflight: Sendable, Equatable {
        /// Allowed methods (exact, as listed), `*` included when listed.
        public var methods: [String]
        /// Allowed header names, lower-cased, `*` included when listed.
        public var headers: [String]
        /// Seconds the answer may be cached.
        public var maxAge: Double
    }

    /// Seconds a preflight is cached when the server names no `Access-Control-Max-Age` (the
    /// standard's and both engines' default).
    public static let defaultPreflightMaxAge: Double = 5
    /// The longest a preflight is cached, whatever the server says (WebKit's cap; Blink's is 2 h).
    public static let maxPreflightMaxAge: Double = 600

    /// Checks a preflight response for a request with `method` and page `headers`.
    /// - Returns: What it allows, to cache.
    /// - Throws: `cors_denied` saying why it does not allow the request.
    public func checkPreflight(status: Int, headers responseHeaders: [[String]], method: String,
                               requestHeaders: [(name: String, value: String)], forced: Bool) throws -> Preflight {
        if let reason = check(status: status, headers: responseHeaders) {
            throw HybridError.network(.corsDenied("preflight: \(reason)"))
        }
        guard (200...299).contains(status) else { throw HybridError.network(.corsDenied("preflight answered \(status)")) }
        var methods = Self.values("access-control-allow-methods", in: responseHeaders).flatMap(Self.list)
        let names = Self.values("access-control-allow-headers", in: responseHeaders).flatMap(Self.list).map { $0.lowercased() }
        guard methods.allSatisfy(Self.isToken), names.allSatisfy(Self.isToken) else {
            throw HybridError.network(.corsDenied("preflight: a malformed Access-Control-Allow-Methods or -Headers"))
        }
        if methods.isEmpty && forced { methods = [method] }
        let wildcard = credentials != .include
        if !methods.contains(method) && !Self.safelistedMethods.contains(method) && !(wildcard && methods.contains("*")) {
            throw HybridError.network(.corsDenied("preflight: method \(method) is not allowed"))
        }
        // The standard keeps Authorization out of a wildcard; both engines measured here (WebKitGTK
        // 2.50, Chromium 156) let `*` cover it, and the proxy does what they do.
        for name in Self.unsafeHeaderNames(requestHeaders) where !names.contains(name) && !(wildcard && names.contains("*")) {
            throw HybridError.network(.corsDenied("preflight: header \(name) is not allowed"))
        }
        var maxAge = Self.defaultPreflightMaxAge
        if let text = Self.values("access-control-max-age", in: responseHeaders).first, let seconds = Double(text), seconds >= 0 {
            maxAge = min(seconds, Self.maxPreflightMaxAge)
        }
        return Preflight(methods: methods, headers: names, maxAge: maxAge)
    }

    /// The response headers the page may read after this request: all of them (but `Set-Cookie`)
    /// unless the response is CORS-tainted and not from a trusted host, when only the safelisted
    /// ones and those in `Access-Control-Expose-Headers` remain.
    public func exposed(_ headers: [[String]]) -> [[String]] {
        guard tainting == .cors, !trustedSoFar else { return headers }
        let listed = Set(Self.values("access-control-expose-headers", in: headers).flatMap(Self.list).map { $0.lowercased() })
        if listed.contains("*") && credentials != .include { return headers }
        return headers.filter { pair in
            guard let name = pair.first?.lowercased() else { return false }
            return Self.safelistedResponseHeaders.contains(name) || listed.contains(name)
        }
    }

    /// The response type the page sees: `basic`, `cors`, `opaque`, or `opaqueredirect` for a
    /// redirect answered with `redirect: 'manual'`.
    public func responseType(manualRedirect: Bool) -> String {
        if manualRedirect { return "opaqueredirect" }
        return tainting.rawValue
    }

    // MARK: The standard's tables

    /// Methods a cross-origin request may use without a preflight.
    public static let safelistedMethods: Set<String> = ["GET", "HEAD", "POST"]
    /// Response headers every CORS response exposes.
    public static let safelistedResponseHeaders: Set<String> = [
        "cache-control", "content-language", "content-length", "content-type", "expires", "last-modified", "pragma",
    ]
    static let simpleContentTypes: Set<String> = ["application/x-www-form-urlencoded", "multipart/form-data", "text/plain"]

    /// Whether a request header is CORS-safelisted (the Fetch standard's table).
    public static func isSafelisted(name: String, value: String) -> Bool {
        guard value.utf8.count <= 128 else { return false }
        switch name.lowercased() {
        case "accept":
            return !value.utf8.contains(where: isUnsafeByte)
        case "accept-language", "content-language":
            return value.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || [0x20, 0x2A, 0x2C, 0x2D, 0x2E, 0x3B, 0x3D].contains(byte)
            }
        case "content-type":
            guard !value.utf8.contains(where: isUnsafeByte) else { return false }
            let essence = value.split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n")).lowercased()
            } ?? ""
            return simpleContentTypes.contains(essence)
        case "range":
            return isSimpleRange(value)
        default:
            return false
        }
    }

    /// The names the preflight's `Access-Control-Request-Headers` lists: the request's headers
    /// that are not safelisted (all of them once the safelisted values pass 1024 bytes),
    /// lower-cased, sorted, each once.
    public static func unsafeHeaderNames(_ headers: [(name: String, value: String)]) -> [String] {
        var unsafe = Set<String>()
        var safe = Set<String>()
        var size = 0
        for (name, value) in headers {
            if isSafelisted(name: name, value: value) {
                safe.insert(name.lowercased())
                size += value.utf8.count
            } else {
                unsafe.insert(name.lowercased())
            }
        }
        if size > 1024 { unsafe.formUnion(safe) }
        return unsafe.sorted()
    }

    private static func isUnsafeByte(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F || Array("\"():<>?@[\\]{}".utf8).contains(byte)
    }

    private static func isSimpleRange(_ value: String) -> Bool {
        guard value.hasPrefix("bytes=") else { return false }
        let spec = value.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        // ASCII digits only: `UInt64("+5")` is 5, but the standard's range has no sign.
        let digits = { (part: Substring) in part.utf8.allSatisfy { (0x30...0x39).contains($0) } }
        guard parts.count == 2, digits(parts[0]), digits(parts[1]), let start = UInt64(parts[0]) else { return false }
        if parts[1].isEmpty { return true }
        guard let end = UInt64(parts[1]) else { return false }
        return start <= end
    }

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// A comma-separated header value as its items (empty items dropped).
    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t")) }.filter { !$0.isEmpty }
    }

    /// Every value of header `name` in `[name, value]` pairs, in order.
    static func values(_ name: String, in headers: [[String]]) -> [String] {
        headers.compactMap { $0.count == 2 && $0[0].equalsIgnoringASCIICase(name) ? $0[1] : nil }
    }

    private static func describe(_ url: URL) -> String {
        BridgeOrigin(url: url)?.description ?? String(url.absoluteString.prefix(100))
    }
}

import Foundation
@testable import HybridBridge
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
@testable import HybridEngine
@testable import HybridHTTP
@testable import HybridHealth
@testable import HybridPackages
import Testing

/// The engine's CORS protocol as the proxy models it (``ProxyCORS``): pure policy, no network.
@Suite("ProxyCORS")
struct ProxyCORSTests {
    static let page = BridgeOrigin(url: URL(string: "https://app.example.com/index.html")!)
    static let api = URL(string: "https://api.example.com/v1/items")!
    static let same = URL(string: "https://app.example.com/data")!
    static let never: @Sendable (String, [String]) -> Bool = { _, _ in false }

    static func cors(_ mode: String? = nil, _ credentials: String? = nil, trusted: [String] = []) -> ProxyCORS {
        ProxyCORS(origin: page, mode: mode, credentials: credentials, trusted: trusted.map { try! ConfigURLPattern($0) })
    }

    @Test func sameOriginRequestsAreNotChecked() throws {
        var cors = Self.cors()
        let get = try cors.plan(url: Self.same, method: "GET", headers: [("X-Custom", "1")], forcePreflight: false, redirect: nil, cached: Self.never)
        #expect(get == ProxyCORS.Hop(checked: false, preflight: false, cookies: true, origin: nil))
        // The engine sends Origin with a same-origin request whose method is not GET or HEAD.
        let post = try cors.plan(url: Self.same, method: "POST", headers: [], forcePreflight: false, redirect: nil, cached: Self.never)
        #expect(post.origin == "https://app.example.com")
        #expect(cors.responseType(manualRedirect: false) == "basic")
        #expect(try Self.cors(nil, "omit").planned(Self.same).cookies == false)
    }

    @Test func simpleCrossOriginRequestsAreCheckedWithoutAPreflight() throws {
        var cors = Self.cors()
        let hop = try cors.plan(url: Self.api, method: "POST", headers: [("Content-Type", "text/plain;charset=UTF-8"), ("Accept", "application/json")],
                                forcePreflight: false, redirect: nil, cached: Self.never)
        #expect(hop == ProxyCORS.Hop(checked: true, preflight: false, cookies: false, origin: "https://app.example.com"))
        #expect(cors.responseType(manualRedirect: false) == "cors")
        #expect(try Self.cors(nil, "include").planned(Self.api).cookies)
    }

    @Test func unsafeMethodsAndHeadersArePreflighted() throws {
        #expect(try Self.cors().planned(Self.api, method: "PUT").preflight)
        #expect(try Self.cors().planned(Self.api, headers: [("X-Token", "t")]).preflight)
        #expect(try Self.cors().planned(Self.api, method: "POST", headers: [("Content-Type", "application/json")]).preflight)
        #expect(try !Self.cors().planned(Self.api, method: "POST", headers: [("Content-Type", "multipart/form-data; boundary=x")]).preflight)
        #expect(try Self.cors().planned(Self.api, headers: [("Accept-Language", "en-US;q=0.9\u{1}")]).preflight)
        #expect(try !Self.cors().planned(Self.api, headers: [("Range", "bytes=0-99")]).preflight)
        #expect(try Self.cors().planned(Self.api, headers: [("Range", "bytes=-99")]).preflight)
        // Digits only (a sign passed UInt64's parsing; the proxy-headers fuzz target's property).
        #expect(!ProxyCORS.isSafelisted(name: "Range", value: "bytes=+5-"))
        #expect(!ProxyCORS.isSafelisted(name: "Range", value: "bytes=0-+9"))
        // The XHR upload-listener case.
        #expect(try Self.cors().planned(Self.api, method: "POST", forced: true).preflight)
        // A cached preflight answers for it.
        var cors = Self.cors()
        let hop = try cors.plan(url: Self.api, method: "PUT", headers: [], forcePreflight: false, redirect: nil) { method, names in
            method == "PUT" && names.isEmpty
        }
        #expect(!hop.preflight && hop.checked)
    }

    @Test func unsafeHeaderNamesAreLowerCasedSortedAndUnique() {
        #expect(ProxyCORS.unsafeHeaderNames([("X-B", "1"), ("x-a", "2"), ("X-b", "3"), ("Accept", "*/*")]) == ["x-a", "x-b"])
        // Past 1024 bytes of safelisted values, they all count as unsafe.
        let long = String(repeating: "a", count: 120)
        let many = (0..<9).map { _ in (name: "Accept", value: long) } + [(name: "Content-Language", value: "fr")]
        #expect(ProxyCORS.unsafeHeaderNames(many) == ["accept", "content-language"])
        #expect(!ProxyCORS.isSafelisted(name: "Accept", value: String(repeating: "a", count: 129)))
    }

    @Test func theResponseCheckFollowsAllowOriginAndCredentials() {
        let plain = Self.cors()
        #expect(plain.check(status: 200, headers: [["access-control-allow-origin", "*"]]) == nil)
        #expect(plain.check(status: 200, headers: [["Access-Control-Allow-Origin", "https://app.example.com"]]) == nil)
        #expect(plain.check(status: 200, headers: [["access-control-allow-origin", "https://evil.example.com"]]) != nil)
        #expect(plain.check(status: 200, headers: []) != nil)
        #expect(plain.check(status: 200, headers: [["access-control-allow-origin", "*"], ["access-control-allow-origin", "*"]]) != nil)
        let credentialed = Self.cors(nil, "include")
        #expect(credentialed.check(status: 200, headers: [["access-control-allow-origin", "*"], ["access-control-allow-credentials", "true"]]) != nil)
        #expect(credentialed.check(status: 200, headers: [["access-control-allow-origin", "https://app.example.com"]]) != nil)
        #expect(credentialed.check(status: 200, headers: [["access-control-allow-origin", "https://app.example.com"],
                                                          ["access-control-allow-credentials", "true"]]) == nil)
    }

    @Test func preflightAnswersAllowMethodsAndHeaders() throws {
        let cors = Self.cors()
        let allow = [["access-control-allow-origin", "*"], ["access-control-allow-methods", "PUT, DELETE"],
                     ["access-control-allow-headers", "X-Token"], ["access-control-max-age", "86400"]]
        let preflight = try cors.checkPreflight(status: 204, headers: allow, method: "PUT", requestHeaders: [("x-token", "1")], forced: false)
        #expect(preflight.methods == ["PUT", "DELETE"])
        #expect(preflight.headers == ["x-token"])
        #expect(preflight.maxAge == ProxyCORS.maxPreflightMaxAge)
        #expect(throws: HybridError.self) { try cors.checkPreflight(status: 404, headers: allow, method: "PUT", requestHeaders: [], forced: false) }
        #expect(throws: HybridError.self) { try cors.checkPreflight(status: 204, headers: allow, method: "PATCH", requestHeaders: [], forced: false) }
        #expect(throws: HybridError.self) {
            try cors.checkPreflight(status: 204, headers: allow, method: "PUT", requestHeaders: [("X-Other", "1")], forced: false)
        }
        // `*` covers any method and header (Authorization too, as both engines do), only without credentials.
        let wildcard = [["access-control-allow-origin", "*"], ["access-control-allow-methods", "*"], ["access-control-allow-headers", "*"]]
        #expect(try cors.checkPreflight(status: 200, headers: wildcard, method: "PATCH", requestHeaders: [("X-Other", "1")], forced: false).maxAge
            == ProxyCORS.defaultPreflightMaxAge)
        #expect(throws: Never.self) {
            try cors.checkPreflight(status: 200, headers: wildcard, method: "GET", requestHeaders: [("Authorization", "x")], forced: false)
        }
        let credentialed = Self.cors(nil, "include")
        let exact = [["access-control-allow-origin", "https://app.example.com"], ["access-control-allow-credentials", "true"],
                     ["access-control-allow-methods", "*"]]
        #expect(throws: HybridError.self) { try credentialed.checkPreflight(status: 200, headers: exact, method: "PUT", requestHeaders: [], forced: false) }
        // A forced preflight with no methods listed allows the request's own.
        let none = [["access-control-allow-origin", "*"]]
        #expect(try cors.checkPreflight(status: 200, headers: none, method: "POST", requestHeaders: [], forced: true).methods == ["POST"])
    }

    @Test func corsResponsesExposeSafelistedAndListedHeaders() throws {
        var cors = Self.cors()
        _ = try cors.plan(url: Self.api, method: "GET", headers: [], forcePreflight: false, redirect: nil, cached: Self.never)
        let headers = [["content-type", "text/plain"], ["x-custom", "1"], ["x-other", "2"], ["cache-control", "no-store"]]
        #expect(cors.exposed(headers) == [["content-type", "text/plain"], ["cache-control", "no-store"]])
        #expect(cors.exposed(headers + [["access-control-expose-headers", "X-Custom"]]).map { $0[0] }
            == ["content-type", "x-custom", "cache-control"])
        #expect(cors.exposed(headers + [["access-control-expose-headers", "*"]]).count == 5)
        var credentialed = Self.cors(nil, "include")
        _ = try credentialed.plan(url: Self.api, method: "GET", headers: [], forcePreflight: false, redirect: nil, cached: Self.never)
        #expect(credentialed.exposed(headers + [["access-control-expose-headers", "*"]]).map { $0[0] } == ["content-type", "cache-control"])
    }

    @Test func modesNoCORSAndSameOrigin() throws {
        var opaque = Self.cors("no-cors")
        let hop = try opaque.plan(url: Self.api, method: "GET", headers: [], forcePreflight: false, redirect: "follow", cached: Self.never)
        #expect(!hop.checked && !hop.preflight && !hop.cookies)
        #expect(opaque.responseType(manualRedirect: false) == "opaque")
        #expect(throws: HybridError.self) { try Self.cors("no-cors").planned(Self.api, redirect: "manual") }
        #expect(throws: HybridError.self) { try Self.cors("same-origin").planned(Self.api) }
        #expect(try !Self.cors("navigate").planned(Self.api).checked)
        #expect(try !ProxyCORS(origin: nil, mode: "cors", credentials: nil).planned(Self.api).checked)
    }

    /// A redirect between two origins, neither the page's, taints the origin: `Origin: null`.
    @Test func crossOriginRedirectsTaintTheOrigin() throws {
        var cors = Self.cors()
        _ = try cors.plan(url: Self.api, method: "GET", headers: [], forcePreflight: false, redirect: nil, cached: Self.never)
        try cors.redirect(from: Self.api, to: URL(string: "https://api.example.com/v2")!)
        #expect(cors.serializedOrigin == "https://app.example.com")
        try cors.redirect(from: Self.api, to: URL(string: "https://cdn.example.net/x")!)
        #expect(cors.serializedOrigin == "null")
        #expect(try cors.plan(url: URL(string: "https://cdn.example.net/x")!, method: "GET", headers: [], forcePreflight: false,
                              redirect: nil, cached: Self.never).origin == "null")
        // Back on the page's origin, the request stays CORS-tainted.
        #expect(try cors.plan(url: Self.same, method: "GET", headers: [], forcePreflight: false, redirect: nil, cached: Self.never).checked)
        #expect(throws: HybridError.self) { try cors.redirect(from: Self.api, to: URL(string: "https://u:p@api.example.com/")!) }
    }

    @Test func trustedHostsSkipTheCheck() throws {
        var cors = Self.cors(nil, nil, trusted: ["https://api.example.com"])
        let hop = try cors.plan(url: Self.api, method: "PUT", headers: [("X-Token", "t")], forcePreflight: false, redirect: nil, cached: Self.never)
        #expect(hop == ProxyCORS.Hop(checked: false, preflight: false, cookies: true, origin: nil))
        #expect(cors.exposed([["x-custom", "1"]]) == [["x-custom", "1"]])
        #expect(cors.responseType(manualRedirect: false) == "cors")
        #expect(try !Self.cors(nil, "omit", trusted: ["https://api.example.com"]).planned(Self.api).cookies)
        // Only the listed host.
        #expect(try Self.cors(nil, nil, trusted: ["https://api.example.com"]).planned(URL(string: "https://evil.example.com/")!).checked)
    }

    @Test func thePreflightCacheRemembersUntilMaxAge() {
        let cache = ProxyPreflightCache()
        let now = Date()
        let allowed = ProxyCORS.Preflight(methods: ["PUT"], headers: ["x-token"], maxAge: 5)
        cache.store(origin: "https://app.example.com", url: Self.api, credentials: false, allowed, now: now)
        #expect(cache.allows(origin: "https://app.example.com", url: Self.api, credentials: false, method: "PUT", names: ["x-token"], now: now))
        #expect(!cache.allows(origin: "https://app.example.com", url: Self.api, credentials: false, method: "PUT", names: ["x-other"], now: now))
        #expect(!cache.allows(origin: "https://app.example.com", url: Self.api, credentials: true, method: "PUT", names: [], now: now))
        #expect(!cache.allows(origin: "https://other.example.com", url: Self.api, credentials: false, method: "PUT", names: [], now: now))
        #expect(!cache.allows(origin: "https://app.example.com", url: Self.api, credentials: false, method: "PUT", names: [],
                              now: now.addingTimeInterval(6)))
    }

    @Test func referrersFollowThePolicy() {
        let page = "https://app.example.com/a/b?q=1#frag"
        #expect(ProxyReferrer.header(source: page, policy: nil, target: Self.same) == "https://app.example.com/a/b?q=1")
        #expect(ProxyReferrer.header(source: page, policy: nil, target: Self.api) == "https://app.example.com/")
        #expect(ProxyReferrer.header(source: page, policy: nil, target: URL(string: "http://api.example.com/")!) == nil)
        #expect(ProxyReferrer.header(source: page, policy: "no-referrer", target: Self.same) == nil)
        #expect(ProxyReferrer.header(source: page, policy: "unsafe-url", target: Self.api) == "https://app.example.com/a/b?q=1")
        #expect(ProxyReferrer.header(source: "app://pkg/index.html", policy: nil, target: Self.api) == nil)
        #expect(ProxyReferrer.header(source: nil, policy: nil, target: Self.api) == nil)
    }
}

extension ProxyCORS {
    /// The first hop to `url`, no preflight cached.
    func planned(_ url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], forced: Bool = false,
                 redirect: String? = nil) throws -> Hop {
        var copy = self
        return try copy.plan(url: url, method: method, headers: headers, forcePreflight: forced, redirect: redirect) { _, _ in false }
    }
}

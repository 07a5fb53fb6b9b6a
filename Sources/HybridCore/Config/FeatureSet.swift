import Foundation

/// The container features a rule turns on for the pages it matches.
///
/// Every field may be left out of a document; what is left out is off (and the engine is the
/// app's default), so adding a feature to the format never turns it on for old documents.
public struct FeatureSet: Sendable, Hashable, Codable {
    /// Serve the page from this offline package id (when installed); `nil` = from the network.
    public var offlinePackage: String?
    /// Send XHR/fetch/form bodies through the native request proxy.
    public var requestProxy: Bool
    /// Keep the engine's cookies in sync with the app's jar.
    public var cookieSync: Bool
    /// Intercept URLs (custom-scheme serving and navigation policy hooks).
    public var urlInterception: Bool
    /// The name of an engine configuration in the document's registry; `nil` = the app's default.
    public var engine: String?
    /// Data requests the container starts when the app opens a matched page (see ``PrefetchDeclaration``).
    public var prefetch: [PrefetchDeclaration] = []
    /// Install ids whose views of a matched page a WebDriver client may drive
    /// (``HybridWebViewConfiguration/allowsAutomation``), so a tester can drive a production build.
    /// It takes effect only where the app said so (``FeatureProvisions/allowsRemoteAutomation``) and
    /// only from a signed document (the client refuses any other); empty, the default, allows none.
    public var automation: [String] = []
    /// Install ids whose views of a matched page the engine's inspector may open
    /// (``HybridWebViewConfiguration/inspectable``), so a tester can inspect a production build. As
    /// ``automation``: only where the app said so (``FeatureProvisions/allowsRemoteInspection``) and
    /// only from a signed document; empty, the default, allows none.
    public var inspectable: [String] = []
    /// Whether a matched page may be prerendered by a pool that follows remote config
    /// (``WebViewPool/prerenderConfig``); off by default, so a rule turns it on per URL pattern and
    /// the kill switch or an expired document turns every prerender off.
    public var prerender = false

    /// A feature set; everything is off by default (``safeDefaults``).
    public init(offlinePackage: String? = nil, requestProxy: Bool = false, cookieSync: Bool = false,
                urlInterception: Bool = false, engine: String? = nil, prefetch: [PrefetchDeclaration] = [],
                automation: [String] = [], inspectable: [String] = [], prerender: Bool = false) {
        self.offlinePackage = offlinePackage
        self.requestProxy = requestProxy
        self.cookieSync = cookieSync
        self.urlInterception = urlInterception
        self.engine = engine
        self.prefetch = prefetch
        self.automation = automation
        self.inspectable = inspectable
        self.prerender = prerender
    }

    /// Everything off on the app's default engine: what a page gets with no config, an expired
    /// one, or the kill switch on. Pages still load — from the network, as a plain web view would.
    public static let safeDefaults = FeatureSet()

    private enum CodingKeys: String, CodingKey {
        case offlinePackage, requestProxy, cookieSync, urlInterception, engine, prefetch, automation, inspectable, prerender
    }

    /// Decodes a feature set; every field left out is off.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        offlinePackage = try c.decodeIfPresent(String.self, forKey: .offlinePackage)
        requestProxy = try c.decodeIfPresent(Bool.self, forKey: .requestProxy) ?? false
        cookieSync = try c.decodeIfPresent(Bool.self, forKey: .cookieSync) ?? false
        urlInterception = try c.decodeIfPresent(Bool.self, forKey: .urlInterception) ?? false
        engine = try c.decodeIfPresent(String.self, forKey: .engine)
        prefetch = try c.decodeIfPresent([PrefetchDeclaration].self, forKey: .prefetch) ?? []
        automation = try c.decodeIfPresent([String].self, forKey: .automation) ?? []
        inspectable = try c.decodeIfPresent([String].self, forKey: .inspectable) ?? []
        prerender = try c.decodeIfPresent(Bool.self, forKey: .prerender) ?? false
    }

    /// Encodes the feature set; no prefetch, no automation, no inspectable installs and prerender
    /// off are left out, so documents without them keep their bytes.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(offlinePackage, forKey: .offlinePackage)
        try c.encode(requestProxy, forKey: .requestProxy)
        try c.encode(cookieSync, forKey: .cookieSync)
        try c.encode(urlInterception, forKey: .urlInterception)
        try c.encodeIfPresent(engine, forKey: .engine)
        if !prefetch.isEmpty { try c.encode(prefetch, forKey: .prefetch) }
        if !automation.isEmpty { try c.encode(automation, forKey: .automation) }
        if !inspectable.isEmpty { try c.encode(inspectable, forKey: .inspectable) }
        if prerender { try c.encode(prerender, forKey: .prerender) }
    }

    /// The features that are on, in words (`offline package 'app', request proxy`).
    public var summary: String {
        var parts: [String] = []
        if let offlinePackage { parts.append("offline package '\(offlinePackage)'") }
        if requestProxy { parts.append("request proxy") }
        if cookieSync { parts.append("cookie sync") }
        if urlInterception { parts.append("URL interception") }
        if !prefetch.isEmpty { parts.append("prefetch " + prefetch.map { "'\($0.key)'" }.joined(separator: ", ")) }
        if prerender { parts.append("prerender") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}

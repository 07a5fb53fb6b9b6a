import Foundation
import HybridNetwork
import HybridEngine
import HybridBase

/// What an app provides for the features remote config may turn on for a page: the decision
/// chooses, these say how. One instance serves every view an app makes.
///
/// ```swift
/// let provisions = try FeatureProvisions(jar: jar, proxyOrigins: ["app://m.example.com"])
/// let decision = remoteConfig.features(for: url)
/// let view = try await HybridWebView.make(for: decision, engines: engines, configuration: base,
///                                         packages: ["shop": binding], provisions: provisions)
/// view.load(url)
/// ```
///
/// A feature the decision does not turn on is never installed, whatever is provided here; a
/// feature it turns on gets exactly what is provided (cookie sync with ``jar``, the request
/// proxy with ``proxyPolicy`` for ``proxyOrigins``, URL interception with ``navigation``).
@MainActor
public final class FeatureProvisions {
    /// The app's cookie jar, the single source of truth: cookie sync keeps each engine's store
    /// in step with it, and the request proxy reads and writes it.
    public let jar: CookieJar
    /// The request proxy's policy where a decision turns the proxy on.
    public let proxyPolicy: ProxyPolicy
    /// The origins whose pages may use the proxy module (default deny: none unless listed).
    public let proxyOrigins: [OriginPattern]
    /// The navigation policy where a decision turns URL interception on.
    public var navigation: NavigationPolicy
    /// The origins whose pages may take what remote config prefetches for them (default deny).
    public var prefetchOrigins: [OriginPattern] = []
    /// The origins remote config may prefetch from (default deny: a declaration targeting any
    /// other origin is never started).
    public var prefetchTargets: [OriginPattern] = []
    /// Where responses of declarations with a `keep` are kept between opens (one directory per app
    /// and user profile; ``PrefetchKeepStore/defaultConfiguration`` by default).
    public var prefetchKeepStore: ProxyCache.Configuration = PrefetchKeepStore.defaultConfiguration
    /// Whether a signed rule may turn automation on for the install ids it lists
    /// (``FeatureSet/automation``): the explicit call a build makes to let its testers drive it with
    /// a WebDriver client. Off by default, so no document can open an app that did not ask for it.
    public var allowsRemoteAutomation = false
    /// Whether a signed rule may make views inspectable for the install ids it lists
    /// (``FeatureSet/inspectable``): the explicit call a build makes to let its testers open the
    /// engine's inspector on a production build. Off by default.
    public var allowsRemoteInspection = false
    /// One prefetcher per set of rules, made when a decision first declares it.
    var prefetchers: [[PrefetchRule]: DataPrefetcher] = [:]
    /// The proxy every proxied view shares (one `URLSession`), made when a decision first needs it.
    private var proxy: RequestProxy?
    private let proxyObserver: RequestProxy.Observer?
    /// One cookie sync per engine cookie store, started when a decision first needs it.
    private var syncs: [ObjectIdentifier: CookieSync] = [:]

    /// Provisions for an app.
    /// - Parameters:
    ///   - jar: The app's cookie jar.
    ///   - proxyPolicy: What the request proxy carries; `nil` for every http(s) request of a page
    ///     the decision turned the proxy on for.
    ///   - proxyOrigins: The origins whose pages may use the proxy.
    ///   - proxyObserver: Sees every proxied request once it is over (logging, metrics).
    ///   - navigation: The policy where a decision turns URL interception on.
    /// - Throws: `HybridError.config` when the default proxy policy cannot be made (never in practice).
    public init(jar: CookieJar, proxyPolicy: ProxyPolicy? = nil, proxyOrigins: [OriginPattern] = [],
                proxyObserver: RequestProxy.Observer? = nil, navigation: NavigationPolicy = NavigationPolicy()) throws {
        self.jar = jar
        self.proxyPolicy = try proxyPolicy ?? ProxyPolicy(requests: ["*"])
        self.proxyOrigins = proxyOrigins
        self.proxyObserver = proxyObserver
        self.navigation = navigation
    }

    /// The cookie sync for `store`, started on first use and kept for every later view on it.
    public func cookieSync(for store: any EngineCookieStore) async -> CookieSync {
        let key = ObjectIdentifier(store as AnyObject)
        if let sync = syncs[key] { return sync }
        let sync = CookieSync(jar: jar, store: store)
        syncs[key] = sync
        await sync.start()
        return sync
    }

    /// The shared request proxy.
    public var requestProxy: RequestProxy {
        if let proxy { return proxy }
        let made = RequestProxy(policy: proxyPolicy, jar: jar, observer: proxyObserver)
        proxy = made
        return made
    }
}

extension HybridWebViewConfiguration {
    /// This configuration with what `features` turns on installed from `provisions`, for a view
    /// whose engine keeps its cookies in `cookieStore`: cookie sync, the request proxy (module
    /// and page script), URL interception, prefetches, and automation (inspection) for an install the
    /// rule lists where ``FeatureProvisions/allowsRemoteAutomation`` (``FeatureProvisions/allowsRemoteInspection``) lets it (the install is the one of
    /// ``decision``, set by ``applying(_:packages:)``). Features `features` leaves off are not
    /// touched here (``applying(_:packages:)`` removes what a decision turns off).
    public func installing(_ features: FeatureSet, from provisions: FeatureProvisions,
                           cookieStore: any EngineCookieStore) async -> HybridWebViewConfiguration {
        var configuration = self
        if features.cookieSync {
            configuration.cookieSync = await provisions.cookieSync(for: cookieStore)
        }
        var policy = provisions.proxyPolicy.applying(features)
        // Synced cookies are in the engine too: they alone no longer need the proxy.
        policy.engineHasJarCookies = configuration.cookieSync != nil
        if let script = ProxyModule.userScript(policy: policy) {
            configuration.modules.append(ProxyModule(proxy: provisions.requestProxy, allowedOrigins: provisions.proxyOrigins))
            configuration.engine.userScripts.append(script)
        }
        if features.urlInterception { configuration.navigation = provisions.navigation }
        configuration.installPrefetch(features.prefetch, from: provisions)
        if provisions.allowsRemoteAutomation, let install = decision?.installID, features.automation.contains(install) {
            configuration.allowsAutomation = true
        }
        if provisions.allowsRemoteInspection, let install = decision?.installID, features.inspectable.contains(install) {
            configuration.inspectable = true
        }
        return configuration
    }
}

extension HybridWebView {
    /// Makes the container for `decision`'s page on the engine the decision names, with every
    /// feature the decision turns on installed from `provisions` and every one it turns off
    /// removed: the one place an app (and `hybrid run --config`) turns a remote-config decision
    /// into a configured view.
    ///
    /// The engine choice degrades as ``make(for:engines:configuration:packages:)`` does; cookie
    /// sync follows the engine the view really runs on.
    /// - Throws: what the default provider throws when it cannot make a view.
    public static func make(for decision: FeatureDecision, engines: EngineRegistry,
                            configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(),
                            packages: [String: PackageBinding] = [:],
                            provisions: FeatureProvisions) async throws -> HybridWebView {
        let decided = configuration.applying(decision, packages: packages)
        return try await engines.first(for: decision) { provider in
            let installed = await decided.installing(decision.features, from: provisions, cookieStore: provider.cookieStore)
            return try HybridWebView(provider: provider, configuration: installed.fitted(to: provider.capabilities))
        }
    }
}

extension WebViewPool {
    /// A pool of warm views for the pages `decision` covers: on the engine the decision names
    /// (the default provider when the app registers none for it or it cannot be made), with what
    /// the decision turns off removed and what it turns on installed from `provisions` — the
    /// pooled twin of ``HybridWebView/make(for:engines:configuration:packages:provisions:)``.
    ///
    /// ```swift
    /// let pool = await WebViewPool.make(for: config.features(for: home), engines: engines,
    ///                                   configuration: base, packages: packages, provisions: provisions)
    /// await pool.prewarm()
    /// ```
    public static func make(for decision: FeatureDecision, engines: EngineRegistry,
                            configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(),
                            packages: [String: PackageBinding] = [:], provisions: FeatureProvisions,
                            policy: WebViewPoolPolicy = WebViewPoolPolicy()) async -> WebViewPool {
        let provider = (try? engines.provider(for: decision)) ?? engines.defaultProvider
        let installed = await configuration.applying(decision, packages: packages)
            .installing(decision.features, from: provisions, cookieStore: provider.cookieStore)
        return WebViewPool(provider: provider, configuration: installed.fitted(to: provider.capabilities), policy: policy)
    }
}

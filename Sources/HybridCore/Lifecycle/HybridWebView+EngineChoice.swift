import Foundation

/// Remote config's engine choice where a container is made: the page's URL asks the config,
/// the decision names an engine, the app's ``EngineRegistry`` has the provider for it.
///
/// ```swift
/// let engines = EngineRegistry(defaultProvider: try GTKEngineProvider())
/// engines.register(kind: "blink") { _ in try BlinkEngineProvider() }
/// let view = try HybridWebView.make(for: url, remoteConfig: client, engines: engines, configuration: base)
/// view.load(url)   // view.engineName is "blink" or "webkitgtk", as the config decided
/// ```
extension HybridWebView {
    /// The engine this container runs on (`webkitgtk`, `wkwebview`, `blink`).
    public var engineName: String { engine.engineName }

    /// Makes the container for a page at `url` on the engine `remoteConfig` picks for it
    /// (its rule and this install's rollout bucket), with what the decision turns off removed
    /// from `configuration` (see ``HybridWebViewConfiguration/applying(_:packages:)``).
    ///
    /// Does not load `url`: call ``load(_:)`` (or the preloading variant) next.
    /// - Throws: what the default provider throws when it cannot make a view.
    public static func make(for url: URL, remoteConfig: RemoteConfigClient, engines: EngineRegistry,
                            configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(),
                            packages: [String: PackageBinding] = [:]) throws -> HybridWebView {
        try make(for: remoteConfig.features(for: url), engines: engines, configuration: configuration, packages: packages)
    }

    /// Makes the container for `decision`'s page on the engine the decision names.
    ///
    /// A page must always open, so the choice degrades and never fails on its own:
    /// - a decision naming no engine (no config, expired, kill switch) or a kind the app does not
    ///   register gets ``EngineRegistry/defaultProvider``;
    /// - a chosen engine that cannot start (no Chromium installed, its browser will not launch)
    ///   also falls back to the default provider.
    ///
    /// Scheme handlers for `http`/`https` in `configuration` serve pages only on an engine that
    /// can intercept HTTP (``EngineCapabilities/interceptsHTTP``, Blink's Fetch interception);
    /// on the others they are left out and those pages come from the network.
    /// - Throws: what the default provider throws when it cannot make a view.
    public static func make(for decision: FeatureDecision, engines: EngineRegistry,
                            configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(),
                            packages: [String: PackageBinding] = [:]) throws -> HybridWebView {
        let decided = configuration.applying(decision, packages: packages)
        let fallback = engines.defaultProvider
        let chosen = (try? engines.provider(for: decision)) ?? fallback
        do {
            return try HybridWebView(provider: chosen, configuration: decided.fitted(to: chosen.capabilities))
        } catch where chosen !== fallback {
            return try HybridWebView(provider: fallback, configuration: decided.fitted(to: fallback.capabilities))
        }
    }
}

extension HybridWebViewConfiguration {
    /// This configuration without the `http`/`https` handlers an engine with `capabilities`
    /// cannot install (WebKit takes over custom schemes only).
    func fitted(to capabilities: EngineCapabilities) -> HybridWebViewConfiguration {
        guard !capabilities.contains(.interceptsHTTP) else { return self }
        var configuration = self
        configuration.engine.schemeHandlers["http"] = nil
        configuration.engine.schemeHandlers["https"] = nil
        return configuration
    }
}

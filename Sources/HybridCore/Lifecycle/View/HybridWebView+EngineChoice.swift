import Foundation
import HybridEngine

/// Remote config's engine choice where a container is made: the page's URL asks the config,
/// the decision names an engine, the app's ``EngineRegistry`` has the provider for it.
///
/// ```swift
/// let engines = EngineRegistry(defaultProvider: try GTKEngineProvider())
/// engines.register(kind: "blink") { _ in try BlinkEngineProvider() }
/// let view = try HybridWebView.make(for: url, remoteConfig: client, engines: engines, configuration: base)
/// view.load(url)   // view.engineName is "blink" or "webkit", as the config decided
/// ```
extension HybridWebView {
    /// The engine this container runs on (`webkit` — WebKitGTK on Linux, WKWebView on Apple platforms — or `blink`).
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
        return try engines.first(for: decision) { provider in
            try HybridWebView(provider: provider, configuration: decided.fitted(to: provider.capabilities))
        }
    }
}

extension EngineRegistry {
    /// The first view `make` makes on the providers to try for `decision`, in order: the one the
    /// decision names (when registered and it starts), then the default provider.
    /// - Throws: what `make` throws for the default provider.
    func first<T>(for decision: FeatureDecision, _ make: (any WebEngineProvider) throws -> T) throws -> T {
        let chosen = (try? provider(for: decision)) ?? defaultProvider
        do {
            return try make(chosen)
        } catch where chosen !== defaultProvider {
            return try make(defaultProvider)
        }
    }

    /// ``first(for:_:)`` for a `make` that awaits.
    func first<T>(for decision: FeatureDecision, _ make: @MainActor (any WebEngineProvider) async throws -> T) async throws -> T {
        let chosen = (try? provider(for: decision)) ?? defaultProvider
        do {
            return try await make(chosen)
        } catch where chosen !== defaultProvider {
            return try await make(defaultProvider)
        }
    }
}

extension HybridWebViewConfiguration {
    /// This configuration without the `http`/`https` handlers an engine with `capabilities`
    /// cannot install (WebKit takes over custom schemes only; Blink intercepts HTTP).
    /// On an engine that cannot navigate to a custom scheme but intercepts HTTP (Blink), a bound
    /// package is served at its real origin's scheme instead (`https://m.example.com/app/`), so its
    /// pages open there with the same handler and resolver.
    public func fitted(to capabilities: EngineCapabilities) -> HybridWebViewConfiguration {
        guard !capabilities.contains(.interceptsHTTP) else {
            guard !capabilities.contains(.customSchemeNavigation), var package, let scheme = package.originScheme,
                  scheme != package.scheme else { return self }
            var configuration = self
            package.scheme = scheme
            configuration.package = package
            return configuration
        }
        var configuration = self
        configuration.engine.schemeHandlers["http"] = nil
        configuration.engine.schemeHandlers["https"] = nil
        return configuration
    }
}

import Foundation
import HybridBase

extension FeatureProvisions {
    /// The prefetcher rules for a decision's declarations: those whose target is one of
    /// ``prefetchTargets``; a declaration naming no pages covers every page the view opens.
    /// `refused` says why each other one is never started.
    public func prefetchRules(_ declarations: [PrefetchDeclaration]) -> (rules: [PrefetchRule], refused: [HybridError]) {
        var rules: [PrefetchRule] = [], refused: [HybridError] = []
        for declaration in declarations {
            do {
                rules.append(try declaration.prefetchRule(pages: try ConfigURLPattern("*"), allowedTargets: prefetchTargets,
                                                          rule: "app"))
            } catch let error as HybridError {
                refused.append(error)
            } catch {
                refused.append(.cfg(.internalError("\(error)")))
            }
        }
        return (rules, refused)
    }

    /// The prefetcher for `declarations` (one per set of allowed rules, shared by every view made
    /// for them, making its requests with ``jar``), or `nil` when none is allowed.
    public func prefetcher(for declarations: [PrefetchDeclaration]) -> DataPrefetcher? {
        let rules = prefetchRules(declarations).rules
        guard !rules.isEmpty else { return nil }
        if let made = prefetchers[rules] { return made }
        guard let made = try? DataPrefetcher(rules: rules, jar: jar, keepStore: prefetchKeepStore) else { return nil }
        prefetchers[rules] = made
        return made
    }
}

extension HybridWebViewConfiguration {
    /// Installs the prefetcher for `declarations` from `provisions`: its module for
    /// ``FeatureProvisions/prefetchOrigins``, its page script (after the request proxy's), and
    /// ``prefetcher``, replacing a prefetcher the configuration had. Nothing when none is allowed.
    mutating func installPrefetch(_ declarations: [PrefetchDeclaration], from provisions: FeatureProvisions) {
        guard !declarations.isEmpty, let prefetcher = provisions.prefetcher(for: declarations) else { return }
        modules.removeAll { $0.name == PrefetchModule.moduleName }
        if let previous = self.prefetcher { engine.userScripts.removeAll { $0.source == previous.userScript.source } }
        modules.append(PrefetchModule(prefetcher: prefetcher, allowedOrigins: provisions.prefetchOrigins))
        engine.userScripts.append(prefetcher.userScript)
        self.prefetcher = prefetcher
    }
}

extension HybridWebView {
    /// Opens `url` as an app's tap does: the configuration's prefetches for it start, the page
    /// loads, and each prefetched response is pushed into its document as soon as both exist.
    public func open(_ url: URL) {
        configuration.prefetcher?.start(for: url)
        feature(PrefetchDeliveryFeature.self)?.deliver(for: url)
        load(url)
    }

    /// Opens `decision`'s page in a new view: its prefetches start first, in parallel with making
    /// the view (``make(for:engines:configuration:packages:provisions:)``), then the page loads.
    /// - Throws: what the default provider throws when it cannot make a view.
    public static func open(_ decision: FeatureDecision, engines: EngineRegistry,
                            configuration: HybridWebViewConfiguration = HybridWebViewConfiguration(),
                            packages: [String: PackageBinding] = [:], provisions: FeatureProvisions) async throws -> HybridWebView {
        provisions.prefetcher(for: decision.features.prefetch)?.start(for: decision.url)
        let view = try await make(for: decision, engines: engines, configuration: configuration, packages: packages,
                                  provisions: provisions)
        view.open(decision.url)
        return view
    }
}

extension WebViewPool {
    /// Opens `url` in a pooled view: the configuration's prefetches for it start before the
    /// view is handed out, then the page loads. A page prerendered for `url`
    /// (``prerender(_:)``) is shown instead, with no new load.
    /// - Throws: what the provider throws when it cannot make a view.
    public func open(_ url: URL) async throws -> HybridWebView {
        if let view = await activatePrerender(url) { return view }
        configuration.prefetcher?.start(for: url)
        let view = try await dequeue()
        view.open(url)
        return view
    }
}

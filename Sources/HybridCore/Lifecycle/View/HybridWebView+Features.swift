import Foundation
import HybridNetwork

extension HybridWebView {
    /// The features a view made with `configuration` has, in the order they hear events and decide
    /// navigations: health first (it records what the others cause), dialogs before recovery (open
    /// dialogs are answered before a white screen is reported), recovery's retry link, crash-state restore, the
    /// navigation policy and new windows in that order of decision, then the package's launches,
    /// the proxy's documents, prefetch delivery and, in a prerendered view, its page's prerender. A new feature is added here (docs/architecture.md).
    static func makeFeatures(_ configuration: HybridWebViewConfiguration) -> [any ViewFeature] {
        var features: [any ViewFeature] = []
        if let recorder = configuration.health { features.append(ViewHealth(recorder: recorder, prerendered: configuration.prerender != nil)) }
        if configuration.health != nil || configuration.package != nil {
            features.append(PageCaptureFeature(recording: configuration.health != nil,
                                               world: .named(configuration.bridgeOptions.worldName)))
        }
        features.append(ProgressFeature(options: configuration.progress))
        features.append(DialogFeature())
        features.append(RecoveryFeature(policy: configuration.whiteScreen, livenessTimeout: configuration.livenessTimeout))
        if configuration.restore.isEnabled {
            features.append(RestoreFeature(policy: configuration.restore, world: .named(configuration.bridgeOptions.worldName)))
        }
        features.append(NavigationFeature(configuration))
        features.append(NewWindowFeature())
        features.append(PackageLaunchFeature(configuration))
        if configuration.modules.contains(where: { $0 is ProxyModule }) { features.append(ProxyDocumentFeature(configuration.modules)) }
        if let prefetcher = configuration.prefetcher { features.append(PrefetchDeliveryFeature(prefetcher)) }
        // Last: its setup sees every module the others added, to hold the effectful ones' calls.
        if let prerender = configuration.prerender { features.append(PrerenderFeature(prerender)) }
        return features
    }
}

import Foundation
import HybridBase
import HybridBridge
import HybridEngine

/// The `prerender` bridge module of a pool's views when its ``PrerenderPolicy/pagesMayPrerender``:
/// `request` {urls} asks the pool to prerender pages of the caller's own origin (the
/// speculation-rules script `hybrid-speculation.js` and `hybrid.prerender(url)` call it). Each URL
/// is checked here (``PrerenderPolicy/pageRefusal(for:from:packageScheme:)``) before the pool
/// starts it; the answer says which were accepted.
struct PrerenderModule: BridgeModule {
    /// The module's name.
    static let moduleName = "prerender"

    struct Request: Codable, Sendable { var urls: [String] }
    struct Reply: Codable, Sendable {
        var accepted: [String]
        var refused: [String]
    }

    let name = PrerenderModule.moduleName
    /// Any origin may ask; each URL must be of the caller's own origin.
    let allowedOrigins: [OriginPattern] = [.any]
    /// Starts a prerender of `url` for a page of `origin`; `false` when refused.
    let request: @MainActor @Sendable (URL, BridgeOrigin?) -> Bool

    var actions: [BridgeAction] {
        let request = self.request
        return [BridgeAction.immediate("request") { (params: Request, context) -> Reply in
            var reply = Reply(accepted: [], refused: [])
            for text in params.urls.prefix(16) {
                if let url = URL(string: text), request(url, context.origin) { reply.accepted.append(text) } else { reply.refused.append(text) }
            }
            return reply
        }]
    }

    /// `hybrid-speculation.js` as shipped: reads the document's speculation rules at document end.
    static let speculationScript = UserScript(source: ScriptResource.source("hybrid-speculation", in: .module),
                                              injectionTime: .documentEnd, frames: .mainFrameOnly, world: .page)
}

extension WebViewPool {
    /// What the pool's views are made with: its ``configuration`` and, when pages may ask for
    /// prerenders, the `prerender` module and the speculation-rules script.
    var viewConfiguration: HybridWebViewConfiguration {
        guard prerenderPolicy.pagesMayPrerender else { return configuration }
        var configuration = self.configuration
        configuration.modules.append(PrerenderModule { [weak self] url, origin in
            guard let self else { return false }
            return self.prerenderForPage(url, from: origin)
        })
        configuration.engine.userScripts.append(PrerenderModule.speculationScript)
        return configuration
    }

    /// A page's request: checked at once, started in the background.
    private func prerenderForPage(_ url: URL, from origin: BridgeOrigin?) -> Bool {
        guard prerenderPolicy.pageRefusal(for: url, from: origin, packageScheme: configuration.package?.scheme) == nil else {
            return false
        }
        Task { _ = try? await self.prerender(url) }
        return true
    }
}

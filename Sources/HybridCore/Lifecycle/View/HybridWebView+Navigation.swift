import Foundation
import HybridEngine

extension HybridWebView {
    /// The schemes this container serves itself (custom scheme handlers, its package, the bridge).
    var containerSchemes: Set<String> {
        var schemes = Set(configuration.engine.schemeHandlers.keys.map { $0.lowercased() })
        if let package = configuration.package { schemes.insert(package.scheme) }
        schemes.insert(bridge.options.urlScheme.lowercased())
        return schemes
    }

    /// Carries out ``NavigationPolicy``'s decision. `nil` lets the rest of the chain decide.
    func applyNavigationPolicy(_ policy: NavigationPolicy, to action: NavigationAction) -> NavigationActionPolicy? {
        let redirected = navigationRedirect
        if action.request.url == redirected { navigationRedirect = nil }
        switch policy.decide(action, knownSchemes: containerSchemes, redirectedURL: redirected) {
        case .allow:
            return nil
        case .intercept(let url):
            // The bridge routes its own scheme: hand it the call under that scheme, with the
            // same origin checks and main-frame rule as any URL call.
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.scheme = bridge.options.urlScheme
            var call = action
            if let rewritten = components?.url { call.request.url = rewritten }
            _ = bridge.handleNavigation(call)
            return .cancel
        case .external(let url):
            delegate?.webView(self, openExternal: ExternalNavigation(
                url: url, sourceURL: engine.url, isMainFrame: action.isMainFrame, isUserGesture: action.isUserGesture,
                targetsNewWindow: action.targetsNewWindow))
            return .cancel
        case .block(let url, let reason):
            delegate?.webView(self, didBlockNavigation: BlockedNavigation(url: url, sourceURL: engine.url, reason: reason))
            return .cancel
        case .redirect(let url, let headers):
            navigationRedirect = url
            return .redirect(to: url, headers: headers)
        }
    }
}

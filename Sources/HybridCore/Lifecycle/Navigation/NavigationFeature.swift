import Foundation
import HybridBridge
import HybridBase
import HybridEngine

/// The container's navigation: the configured ``NavigationPolicy`` (interception, token parameters,
/// system and payment schemes, unknown schemes), the bridge's `navigation` module for the view's own
/// page (``HybridWebViewConfiguration/navigationModuleOrigins``: the page asks, the app's delegate
/// decides, exactly as for the same gestures in native UI), and the text size reset after a back
/// navigation (``HybridWebViewConfiguration/resetsTextSizeAfterBack``).
@MainActor
final class NavigationFeature: ViewFeature, BridgeNavigationDelegate {
    private let policy: NavigationPolicy?
    private let moduleOrigins: [OriginPattern]?
    private let resetsTextSizeAfterBack: Bool
    /// The URL the policy last redirected to (its load is let through as is).
    private var redirect: URL?
    private weak var view: HybridWebView?

    init(_ configuration: HybridWebViewConfiguration) {
        policy = configuration.navigation
        moduleOrigins = configuration.navigationModuleOrigins
        resetsTextSizeAfterBack = configuration.resetsTextSizeAfterBack
    }

    func prepare(_ setup: inout ViewFeatureSetup) {
        // Each view gets its own module, so a pooled configuration still routes every page to the
        // view that shows it.
        if let moduleOrigins { setup.modules.append(NavigationModule(allowedOrigins: moduleOrigins, slot: BridgeDelegateSlot<any BridgeNavigationDelegate>(self))) }
    }

    func attach(to view: HybridWebView) { self.view = view }

    func viewDidReport(_ event: ViewEvent) {
        // The page comes back from the page cache with the size it had, which a pinch or a page
        // script may have changed.
        guard case .pageFinished(_, let finish) = event, finish.endedBackNavigation, resetsTextSizeAfterBack,
              let engine = view?.engine else { return }
        Task { _ = try? await engine.evaluate(ContainerScripts.resetTextSize) }
    }

    /// Carries out the ``NavigationPolicy``'s decision; `nil` lets the rest of the chain decide.
    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy? {
        guard let policy, let view else { return nil }
        let redirected = redirect
        if action.request.url == redirected { redirect = nil }
        switch policy.decide(action, knownSchemes: containerSchemes(view), redirectedURL: redirected) {
        case .allow:
            return nil
        case .intercept(let url):
            // The bridge routes its own scheme: hand it the call under that scheme, with the
            // same origin checks and main-frame rule as any URL call.
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.scheme = view.bridge.options.urlScheme
            var call = action
            if let rewritten = components?.url { call.request.url = rewritten }
            _ = view.bridge.handleNavigation(call)
            return .cancel
        case .external(let url):
            view.delegate?.webView(view, openExternal: ExternalNavigation(
                url: url, sourceURL: view.engine.url, isMainFrame: action.isMainFrame, isUserGesture: action.isUserGesture,
                targetsNewWindow: action.targetsNewWindow))
            return .cancel
        case .block(let url, let reason):
            view.delegate?.webView(view, didBlockNavigation: BlockedNavigation(url: url, sourceURL: view.engine.url, reason: reason))
            return .cancel
        case .redirect(let url, let headers):
            redirect = url
            return .redirect(to: url, headers: headers)
        }
    }

    /// The schemes the view serves itself (custom scheme handlers, its package, the bridge).
    private func containerSchemes(_ view: HybridWebView) -> Set<String> {
        var schemes = Set(view.configuration.engine.schemeHandlers.keys.map { $0.lowercased() })
        if let package = view.configuration.package { schemes.insert(package.scheme) }
        schemes.insert(view.bridge.options.urlScheme.lowercased())
        return schemes
    }

    // MARK: The `navigation` module

    /// `navigation.open`: a new container, through the delegate's new-window request.
    func bridgeOpen(_ url: URL, title: String?) async throws {
        guard let view, !view.isClosed else { throw BridgeFailure.unavailable("the container is closed") }
        view.delegate?.webView(view, requestsNewWindow: NewWindowRequest(url: url, openerURL: view.engine.url, isUserGesture: true))
    }

    /// `navigation.close`: the delegate closes the container.
    func bridgeClose() async throws {
        guard let view, !view.isClosed else { return }
        view.delegate?.webViewRequestsClose(view)
    }

    /// `navigation.setTitle`: the container's title until the page's next document.
    func bridgeSetTitle(_ title: String) async throws {
        view?.page.setTitle(title)
        view?.refreshState()
    }

    /// `navigation.back`: back in the page when the back policy allows; `false` otherwise (the
    /// page decides what to do then — closing is `navigation.close`).
    func bridgeGoBack() async throws -> Bool {
        guard let view, !view.isClosed, view.configuration.back.decide(view.engine.backForwardList) == .goBack else { return false }
        view.goBack()
        return true
    }
}

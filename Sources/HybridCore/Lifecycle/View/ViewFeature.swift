import Foundation
import HybridBridge
import HybridBase
import HybridEngine

/// One aspect of a ``HybridWebView`` (progress, recovery, dialogs, navigation, boot trial, health,
/// prefetch delivery, …) as a component that owns its state, reads its own part of the
/// configuration and installs its own modules and page scripts. The view holds a list of them
/// (``HybridWebView/makeFeatures(_:)``) and tells each what happens; it keeps none of their fields.
///
/// Adding a feature: write a class conforming to this protocol in the folder of its concern,
/// implement the hooks it needs (each has a default that does nothing), and add it to
/// ``HybridWebView/makeFeatures(_:)``. `HybridWebView.swift` does not change (docs/architecture.md).
@MainActor
protocol ViewFeature: AnyObject {
    /// Before the engine view is made: adds the feature's bridge modules, page scripts and script
    /// message handlers.
    func prepare(_ setup: inout ViewFeatureSetup)
    /// The view and its engine exist: the feature may keep the view (weakly) and observe the engine.
    func attach(to view: HybridWebView)
    /// A navigation the engine asks about, after the bridge's own URLs: the first feature that
    /// returns a policy decides; `nil` leaves it to the next one, then to the app's delegate.
    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy?
    /// Something happened to the view or its page (in the order of ``HybridWebView/features``).
    func viewDidReport(_ event: ViewEvent)
    /// The view found its page white and `recovery` would answer it: `true` when this feature
    /// answers it instead (a package version on trial rolls back and reloads), so nothing else does.
    func handlesWhiteScreen(_ reason: WhiteScreenReason, recovery: WhiteScreenRecovery) -> Bool
    /// The view's state is being made anew: the feature sets its part (the progress bar's value).
    func update(_ state: inout HybridWebView.State)
}

extension ViewFeature {
    func prepare(_ setup: inout ViewFeatureSetup) {}
    func attach(to view: HybridWebView) {}
    func decidePolicy(for action: NavigationAction) -> NavigationActionPolicy? { nil }
    func viewDidReport(_ event: ViewEvent) {}
    func handlesWhiteScreen(_ reason: WhiteScreenReason, recovery: WhiteScreenRecovery) -> Bool { false }
    func update(_ state: inout HybridWebView.State) {}
}

/// What features add to a view before its engine is made.
struct ViewFeatureSetup {
    /// The bridge modules: the configuration's, then each feature's.
    var modules: [any BridgeModule]
    /// Page scripts added after the configuration's own and the bridge's.
    var userScripts: [UserScript] = []
    /// Script message handlers added after the bridge's.
    var messageHandlers: [ScriptMessageHandler] = []
}

/// What a view tells its features.
enum ViewEvent {
    /// How the app asked for a page.
    enum Navigation: Equatable {
        /// ``HybridWebView/load(_:)-(EngineRequest)`` or ``HybridWebView/reload()``.
        case request
        /// ``HybridWebView/loadHTML(_:baseURL:)``.
        case html
        /// ``HybridWebView/load(_:preloaded:)``: the page's HTML was fetched in parallel.
        case preloaded
    }

    /// The view starts showing another page (the app's navigation, a package rollback's reload):
    /// a scheduled reload and the error page are over.
    case navigationBegan
    /// The app asked the view to show `url`.
    case appLoading(URL?, Navigation)
    /// An engine event of the page (the warm-up document's are not the page's and are not told).
    case engine(EngineEvent)
    /// A load of the page finished, with what the view's ``PageRecord`` made of it.
    case pageFinished(URL?, PageRecord.Finish)
    /// A load of the page failed (not cancelled).
    case pageFailed(URL?, message: String)
    /// A navigation's response arrived, of the main frame or a subframe (before the app's delegate decides on it).
    case navigationResponse(NavigationResponse)
    /// The container's page capture (`hybrid-health.js`) posted a message.
    case pageCaptured(HealthCapture.Message)
    /// The view found its page white and recovers it.
    case whiteScreen(WhiteScreenEvent)
    /// A package version was rolled back.
    case rolledBack(PackageRollback)
    /// A page marked itself ready (`hybrid.call('app', 'ready')`): a package page (`nil`) or a
    /// network page of that origin (``HybridWebViewConfiguration/readyOrigins``).
    case ready(BridgeOrigin?)
    /// The view became visible (`true`) or was hidden, parked or put in a transition (`false`):
    /// whatever the page asked of the user now gets its safe answer.
    case visibilityChanged(Bool)
    /// The view's prerendered page is being shown (``PrerenderFeature/activate()``).
    case prerenderActivated
    /// A pool took the view back.
    case enqueued
    /// The view is closing: the feature stops its tasks; nothing is told afterwards.
    case closing
}

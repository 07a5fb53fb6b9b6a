import Foundation
import HybridEngine
import HybridPackages

/// A page asked for a new window (`target=_blank`, `window.open`): the app opens a new
/// container for it (the engine never creates windows itself).
public struct NewWindowRequest: Sendable {
    /// The URL the page wants opened.
    public var url: URL
    /// The page that asked.
    public var openerURL: URL?
    /// A user gesture (click, key) started the request; apps commonly ignore requests without one.
    public var isUserGesture: Bool
    /// The container whose page asked, held weakly. A page in a new container has no
    /// `window.opener` (it is another engine view), so this is the opener relationship: the app
    /// answers the opener through it (`opener?.bridge.emit("childClosed", …)`, a reload).
    public weak var opener: HybridWebView?
}

/// A load that failed (not one that was cancelled or superseded).
public struct LoadFailure: Sendable, Equatable {
    /// The URL that failed to load, if the engine reported it.
    public var url: URL?
    /// The engine's description of the failure.
    public var message: String
    /// The HTTP status when the failure was an error response of the main document.
    public var statusCode: Int?
}

/// What happened about a white screen: why, and what the view did.
public struct WhiteScreenEvent: Sendable, Equatable {
    /// What made the view consider the page white.
    public var reason: WhiteScreenReason
    /// What the view did about it.
    public var recovery: WhiteScreenRecovery
    /// The page that went white.
    public var url: URL?
}

/// The app's side of a ``HybridWebView``: navigation decisions, dialogs, new windows, closing,
/// white screens and failures. Every method has a default, so an app implements only what it
/// shows.
@MainActor
public protocol HybridWebViewDelegate: AnyObject {
    /// Allow or cancel a navigation the bridge did not take. Default: allow.
    func webView(_ webView: HybridWebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy
    /// Allow, cancel or download a response. Default: show what the engine can show, download the rest.
    func webView(_ webView: HybridWebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy
    /// Show a script dialog. `completion.dialog` carries the page's title and URL for the UI.
    /// Answer it once; if the view is hidden, closed, in a transition or destroyed first, the
    /// safe default answers it and a later answer is ignored. Default: the safe default at once.
    func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion)
    /// Open a new container for a page's new-window request. Default: ignore it.
    func webView(_ webView: HybridWebView, requestsNewWindow request: NewWindowRequest)
    /// Close this container (the back policy found nowhere to go, or the page asked: the bridge's
    /// `navigation.close`, or `window.close()` where the engine reports it). Default: nothing.
    func webViewRequestsClose(_ webView: HybridWebView)
    /// A white screen was detected and handled as `event.recovery` says.
    func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent)
    /// A main-frame load failed.
    func webView(_ webView: HybridWebView, didFailLoad failure: LoadFailure)
    /// The page's state was given back after its content process died, or from a snapshot the app
    /// stored (``HybridWebView/restore(from:)``); `event.reason` says which. Default: nothing.
    func webView(_ webView: HybridWebView, didRestore event: PageRestoreEvent)
    /// Open a system or payment link (`tel:`, `mailto:`, `weixin://`, `alipays://`, an app-store
    /// page) that ``HybridWebViewConfiguration/navigation`` hands to the app. Default: nothing.
    func webView(_ webView: HybridWebView, openExternal navigation: ExternalNavigation)
    /// The navigation policy refused a navigation (an unknown scheme). Default: nothing.
    func webView(_ webView: HybridWebView, didBlockNavigation navigation: BlockedNavigation)
    /// Boot health rolled a package version back (``BootHealthPolicy``): `rollback.from` is blocked,
    /// `rollback.to` serves and the page is loading again on it; `rollback.reason` says why.
    /// Default: nothing.
    func webView(_ webView: HybridWebView, didRollBack rollback: PackageRollback)
    /// Answer a permission request whose ``PermissionPolicy`` rule is ``PermissionRule/ask`` (only
    /// then: listed allow/deny rules and remembered answers never reach here). Default: deny.
    func webView(_ webView: HybridWebView, decidePermission request: PermissionRequest) async -> PermissionDecision
    /// Choose where a download goes (``Download/destination(in:)`` keeps it inside a directory),
    /// or cancel it. Default: cancel.
    func webView(_ webView: HybridWebView, decideDownload download: Download) async -> DownloadDecision
    /// A download the app placed progressed, finished, failed or was cancelled. Default: nothing.
    func webView(_ webView: HybridWebView, download id: String, didChange event: DownloadEvent)
    /// Choose files for the page's `<input type=file>`; an empty answer chooses none. Default: none.
    func webView(_ webView: HybridWebView, chooseFiles request: FileChooserRequest) async -> [URL]
}

extension HybridWebViewDelegate {
    /// Allows every navigation.
    public func webView(_ webView: HybridWebView, decidePolicyFor action: NavigationAction) async -> NavigationActionPolicy { .allow }
    /// Allows a response the engine can render; an attachment or any other becomes a download,
    /// which ``webView(_:decideDownload:)`` places or cancels (see `EngineDefaults`).
    public func webView(_ webView: HybridWebView, decidePolicyFor response: NavigationResponse) async -> NavigationResponsePolicy {
        EngineDefaults.policy(for: response)
    }
    /// Answers the dialog with its safe default at once.
    public func webView(_ webView: HybridWebView, runDialog completion: ScriptDialogCompletion) {
        completion.completeWithSafeDefault()
    }
    /// Ignores the request: no window opens.
    public func webView(_ webView: HybridWebView, requestsNewWindow request: NewWindowRequest) {}
    /// Does nothing: the container stays.
    public func webViewRequestsClose(_ webView: HybridWebView) {}
    /// Does nothing; the view has already recovered as `event.recovery` says.
    public func webView(_ webView: HybridWebView, didDetectWhiteScreen event: WhiteScreenEvent) {}
    /// Does nothing.
    public func webView(_ webView: HybridWebView, didFailLoad failure: LoadFailure) {}
    /// Does nothing; the page has its state back and heard `restored`.
    public func webView(_ webView: HybridWebView, didRestore event: PageRestoreEvent) {}
    /// Does nothing: the link is not opened.
    public func webView(_ webView: HybridWebView, openExternal navigation: ExternalNavigation) {}
    /// Does nothing.
    public func webView(_ webView: HybridWebView, didBlockNavigation navigation: BlockedNavigation) {}
    /// Does nothing; the view already shows the last confirmed version.
    public func webView(_ webView: HybridWebView, didRollBack rollback: PackageRollback) {}
    /// Denies.
    public func webView(_ webView: HybridWebView, decidePermission request: PermissionRequest) async -> PermissionDecision { .deny }
    /// Cancels: nothing is written.
    public func webView(_ webView: HybridWebView, decideDownload download: Download) async -> DownloadDecision { .cancel }
    /// Does nothing.
    public func webView(_ webView: HybridWebView, download id: String, didChange event: DownloadEvent) {}
    /// Chooses no file.
    public func webView(_ webView: HybridWebView, chooseFiles request: FileChooserRequest) async -> [URL] { [] }
}

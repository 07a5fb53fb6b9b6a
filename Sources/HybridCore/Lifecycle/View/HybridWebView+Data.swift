import Foundation
import HybridEngine

/// Permissions go through the configuration's ``PermissionPolicy`` (deny for an origin it does
/// not list, the delegate only for an ``PermissionRule/ask`` rule not yet remembered); downloads
/// and file pickers go to the app's delegate. A hidden-or-closed view's questions get the safe
/// answer (deny, cancel, no files).
extension HybridWebView {
    /// Decides by the ``HybridWebViewConfiguration/permissions`` policy; denies when there is none
    /// or the view is closed.
    public func engine(_ engine: any WebEngine, decidePermission request: PermissionRequest) async -> PermissionDecision {
        guard !isClosed, let policy = configuration.permissions else { return .deny }
        let decision = await policy.decide(request) { [weak self] question in
            guard let self, !self.isClosed, let delegate = self.delegate else { return .deny }
            return await delegate.webView(self, decidePermission: question)
        }
        return isClosed ? .deny : decision
    }

    /// Asks the app's delegate; cancels without one.
    public func engine(_ engine: any WebEngine, decideDownload download: Download) async -> DownloadDecision {
        guard !isClosed, let delegate else { return .cancel }
        return await delegate.webView(self, decideDownload: download)
    }

    /// Passes the event on to the app's delegate.
    public func engine(_ engine: any WebEngine, download id: String, didChange event: DownloadEvent) {
        guard !isClosed else { return }
        delegate?.webView(self, download: id, didChange: event)
    }

    /// Asks the app's delegate; no files without one.
    public func engine(_ engine: any WebEngine, chooseFiles request: FileChooserRequest) async -> [URL] {
        guard !isClosed, let delegate else { return [] }
        return await delegate.webView(self, chooseFiles: request)
    }
}

#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// A page that closes its own window. Chromium never asks: it ignores `window.close()` while the
/// view's history has more than one entry, and with one entry it destroys the target itself
/// (`Target.detachedFromTarget`, then `Target.targetDestroyed`, after the script's reply).
extension BlinkDriver {
    /// Chromium destroyed target `id`. When it is this view's page (not torn down by the app),
    /// the target is forgotten, the page's request is reported (``EngineDriverHost/closeRequested()``)
    /// and so is the loss of its content (``EngineDriverHost/contentProcessTerminated(_:)`` with
    /// ``TerminationReason/closedByPage``, so
    /// pending calls fail once and the container's recovery runs); the next load or reload
    /// creates a new target.
    func targetDestroyed(_ id: String?) {
        guard !isTornDown, let id, id == targetID else { return }
        forgetClosedTarget()
        host?.closeRequested()
        // The delegate may have closed the view (then nothing more is reported).
        contentProcessDidTerminate(.closedByPage)
    }
}
#endif

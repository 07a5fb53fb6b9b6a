import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// `close` on a WebKitWebView: `void (WebKitWebView *, gpointer)`.
private typealias CloseThunk = @convention(c) (gpointer?, gpointer?) -> Void

/// The page asked to close its window (`window.close()` where WebKit lets a script close it):
/// WebKit emits `close` and does nothing else, like WKWebView's `webViewDidClose(_:)`. The
/// request goes to the contract, which tells the delegate; the view stays open.
private let closeThunk: CloseThunk = { _, data in
    onMain(data) { signalHandler($0, as: Weak<GTKDriver>.self)?.value?.host?.closeRequested() }
}

extension GTKDriver {
    /// Connects the view's `close` signal to ``EngineDriverHost/closeRequested()``.
    func connectCloseSignal() {
        append(connectSignal(UnsafeMutableRawPointer(view), "close", thunk: signalThunk(closeThunk),
                             handler: Weak(self)))
    }
}

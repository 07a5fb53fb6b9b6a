// Script messages: `window.webkit.messageHandlers.NAME.postMessage(body)`.
import FoundationAppleOnly

@MainActor
public protocol WKScriptMessageHandler: NSObjectProtocol {
    func userContentController(_ userContentController: WKUserContentController, didReceive message: WKScriptMessage)
}

/// iOS 14 / macOS 11.
@MainActor
public protocol WKScriptMessageHandlerWithReply: NSObjectProtocol {
    func userContentController(
        _ userContentController: WKUserContentController, didReceive message: WKScriptMessage,
        replyHandler: @escaping @MainActor @Sendable (Any?, String?) -> Void)
}

@MainActor
open class WKScriptMessage: NSObject {
    open var body: Any { surfaceOnly() }
    weak open var webView: WKWebView? { surfaceOnly() }
    open var frameInfo: WKFrameInfo { surfaceOnly() }
    open var name: String { surfaceOnly() }
    open var world: WKContentWorld { surfaceOnly() }
}

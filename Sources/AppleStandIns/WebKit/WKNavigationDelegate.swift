// WKNavigationDelegate and the values it carries.
//
// Apple's protocol methods are `optional` (Objective-C). Swift on Linux has no optional
// requirements, so the methods the adapter implements are declared as plain requirements: a
// signature that drifts from Apple's is then an error here, where on Apple it would only be a
// "nearly matches an optional requirement" warning and a delegate method that never runs.
import FoundationAppleOnly

@MainActor
public protocol WKNavigationDelegate: NSObjectProtocol {
    func webView(
        _ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationActionPolicy) -> Void)
    func webView(
        _ webView: WKWebView, decidePolicyFor navigationResponse: WKNavigationResponse,
        decisionHandler: @escaping @MainActor @Sendable (WKNavigationResponsePolicy) -> Void)
    func webView(_ webView: WKWebView, didStartProvisionalNavigation navigation: WKNavigation!)
    func webView(_ webView: WKWebView, didReceiveServerRedirectForProvisionalNavigation navigation: WKNavigation!)
    func webView(_ webView: WKWebView, didFailProvisionalNavigation navigation: WKNavigation!, withError error: any Error)
    func webView(_ webView: WKWebView, didCommit navigation: WKNavigation!)
    func webView(_ webView: WKWebView, didFinish navigation: WKNavigation!)
    func webView(_ webView: WKWebView, didFail navigation: WKNavigation!, withError error: any Error)
    func webViewWebContentProcessDidTerminate(_ webView: WKWebView)
    @available(iOS 14.5, macOS 11.3, *)
    func webView(_ webView: WKWebView, navigationAction: WKNavigationAction, didBecome download: WKDownload)
    @available(iOS 14.5, macOS 11.3, *)
    func webView(_ webView: WKWebView, navigationResponse: WKNavigationResponse, didBecome download: WKDownload)
}

public enum WKNavigationActionPolicy: Int, Sendable {
    case cancel = 0
    case allow = 1
    @available(iOS 14.5, macOS 11.3, *)
    case download = 2
}

public enum WKNavigationResponsePolicy: Int, Sendable {
    case cancel = 0
    case allow = 1
    @available(iOS 14.5, macOS 11.3, *)
    case download = 2
}

public enum WKNavigationType: Int, Sendable {
    case linkActivated = 0
    case formSubmitted = 1
    case backForward = 2
    case reload = 3
    case formResubmitted = 4
    case other = -1
}

@MainActor
open class WKNavigationAction: NSObject {
    open var sourceFrame: WKFrameInfo { surfaceOnly() }
    open var targetFrame: WKFrameInfo? { surfaceOnly() }
    open var navigationType: WKNavigationType { surfaceOnly() }
    open var request: URLRequest { surfaceOnly() }
    @available(iOS 14.5, macOS 11.3, *)
    open var shouldPerformDownload: Bool { surfaceOnly() }
}

@MainActor
open class WKNavigationResponse: NSObject {
    open var isForMainFrame: Bool { surfaceOnly() }
    open var response: URLResponse { surfaceOnly() }
    open var canShowMIMEType: Bool { surfaceOnly() }
}

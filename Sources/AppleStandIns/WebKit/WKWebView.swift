// WebKit's WKWebView as Apple declares it for Swift (iOS 15+ / macOS 12+), limited to the
// members the adapter uses. Signatures follow developer.apple.com/documentation/webkit.
import FoundationAppleOnly
import UIKit

@MainActor
open class WKWebView: UIView {
    public init(frame: CGRect, configuration: WKWebViewConfiguration) { surfaceOnly() }
    public required init?(coder: NSCoder) { surfaceOnly() }

    open var configuration: WKWebViewConfiguration { surfaceOnly() }
    weak open var navigationDelegate: (any WKNavigationDelegate)?
    weak open var uiDelegate: (any WKUIDelegate)?

    open var url: URL? { surfaceOnly() }
    open var title: String? { surfaceOnly() }
    open var isLoading: Bool { surfaceOnly() }
    open var estimatedProgress: Double { surfaceOnly() }
    open var canGoBack: Bool { surfaceOnly() }
    open var canGoForward: Bool { surfaceOnly() }
    open var backForwardList: WKBackForwardList { surfaceOnly() }
    open var allowsBackForwardNavigationGestures: Bool = false
    open var customUserAgent: String?
    @available(iOS 16.4, macOS 13.3, *)
    open var isInspectable: Bool = false

    @discardableResult open func load(_ request: URLRequest) -> WKNavigation? { surfaceOnly() }
    @discardableResult open func loadHTMLString(_ string: String, baseURL: URL?) -> WKNavigation? { surfaceOnly() }
    @available(iOS 15.0, macOS 12.0, *)
    @discardableResult open func loadSimulatedRequest(_ request: URLRequest, response: URLResponse, responseData data: Data) -> WKNavigation {
        surfaceOnly()
    }
    open func stopLoading() { surfaceOnly() }
    @discardableResult open func reload() -> WKNavigation? { surfaceOnly() }
    @discardableResult open func goBack() -> WKNavigation? { surfaceOnly() }
    @discardableResult open func goForward() -> WKNavigation? { surfaceOnly() }

    // The script calls as WebKit's Swift overlay declares them (WebKitSwiftOverlay.swift): the
    // Result-based completion forms, iOS 14 / macOS 11. WebKit reports JavaScript `undefined` to
    // them as `.success(Optional<Any>.none as Any)` (webkit.org/b/216198).
    //
    // The async forms `evaluateJavaScript(_:in:contentWorld:)` and
    // `callAsyncJavaScript(_:arguments:in:contentWorld:)` (iOS 15 / macOS 12) are deliberately not
    // declared: before iOS 18 they trap when a script's value is `undefined` (webkit.org/b/282918),
    // so using them fails this check.
    @preconcurrency public func evaluateJavaScript(
        _ javaScript: String, in frame: WKFrameInfo? = nil, in contentWorld: WKContentWorld,
        completionHandler: (@MainActor (Result<Any, any Error>) -> Void)? = nil
    ) {
        surfaceOnly()
    }

    @preconcurrency public func callAsyncJavaScript(
        _ functionBody: String, arguments: [String: Any] = [:], in frame: WKFrameInfo? = nil, in contentWorld: WKContentWorld,
        completionHandler: (@MainActor (Result<Any, any Error>) -> Void)? = nil
    ) {
        surfaceOnly()
    }

    /// iOS: the image is a `UIImage` (macOS: `NSImage`, not declared here).
    open func takeSnapshot(
        with snapshotConfiguration: WKSnapshotConfiguration?,
        completionHandler: @escaping @MainActor @Sendable (UIImage?, (any Error)?) -> Void
    ) {
        surfaceOnly()
    }
}

@MainActor
open class WKSnapshotConfiguration: NSObject {
    open var rect: CGRect = .null
    open var snapshotWidth: NSNumber?
    open var afterScreenUpdates: Bool = true
    public override init() { super.init() }
}

@MainActor
open class WKNavigation: NSObject {}

@MainActor
open class WKBackForwardList: NSObject {
    open var currentItem: WKBackForwardListItem? { surfaceOnly() }
    open var backItem: WKBackForwardListItem? { surfaceOnly() }
    open var forwardItem: WKBackForwardListItem? { surfaceOnly() }
    open var backList: [WKBackForwardListItem] { surfaceOnly() }
    open var forwardList: [WKBackForwardListItem] { surfaceOnly() }
}

@MainActor
open class WKBackForwardListItem: NSObject {
    open var url: URL { surfaceOnly() }
    open var title: String? { surfaceOnly() }
    open var initialURL: URL { surfaceOnly() }
}

@MainActor
open class WKFrameInfo: NSObject {
    open var isMainFrame: Bool { surfaceOnly() }
    open var securityOrigin: WKSecurityOrigin { surfaceOnly() }
    open var request: URLRequest { surfaceOnly() }
    weak open var webView: WKWebView? { surfaceOnly() }
}

@MainActor
open class WKWindowFeatures: NSObject {}

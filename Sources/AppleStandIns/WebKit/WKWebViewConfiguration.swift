// WKWebViewConfiguration and what it carries: data store, user content, content worlds, media
// policy, scheme handlers. (`processPool` / `WKProcessPool`, deprecated since iOS 15 / macOS 12
// and without effect, are not declared: the adapter does not use them.)
import FoundationAppleOnly

@MainActor
open class WKWebViewConfiguration: NSObject {
    public override init() { super.init() }
    open var websiteDataStore: WKWebsiteDataStore = WKWebsiteDataStore.default()
    open var userContentController: WKUserContentController = WKUserContentController()
    open var applicationNameForUserAgent: String?
    open var mediaTypesRequiringUserActionForPlayback: WKAudiovisualMediaTypes = .all
    /// iOS only.
    open var allowsInlineMediaPlayback: Bool = false
    open func setURLSchemeHandler(_ urlSchemeHandler: (any WKURLSchemeHandler)?, forURLScheme urlScheme: String) { surfaceOnly() }
    open func urlSchemeHandler(forURLScheme urlScheme: String) -> (any WKURLSchemeHandler)? { surfaceOnly() }
}

@MainActor
open class WKWebsiteDataStore: NSObject {
    open class func `default`() -> WKWebsiteDataStore { surfaceOnly() }
    open class func nonPersistent() -> WKWebsiteDataStore { surfaceOnly() }
    @available(iOS 17.0, macOS 14.0, *)
    public convenience init(forIdentifier identifier: UUID) { surfaceOnly() }
    open var isPersistent: Bool { surfaceOnly() }
    open var httpCookieStore: WKHTTPCookieStore { surfaceOnly() }
}

public struct WKAudiovisualMediaTypes: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let audio = WKAudiovisualMediaTypes(rawValue: 1 << 0)
    public static let video = WKAudiovisualMediaTypes(rawValue: 1 << 1)
    public static let all = WKAudiovisualMediaTypes(rawValue: UInt.max)
}

@MainActor
open class WKUserContentController: NSObject {
    public override init() { super.init() }
    open var userScripts: [WKUserScript] { surfaceOnly() }
    open func addUserScript(_ userScript: WKUserScript) { surfaceOnly() }
    open func removeAllUserScripts() { surfaceOnly() }
    open func add(_ scriptMessageHandler: any WKScriptMessageHandler, contentWorld world: WKContentWorld, name: String) { surfaceOnly() }
    open func addScriptMessageHandler(
        _ scriptMessageHandlerWithReply: any WKScriptMessageHandlerWithReply, contentWorld: WKContentWorld, name: String
    ) {
        surfaceOnly()
    }
    open func removeScriptMessageHandler(forName name: String, contentWorld: WKContentWorld) { surfaceOnly() }
    open func removeAllScriptMessageHandlers() { surfaceOnly() }
}

@MainActor
open class WKUserScript: NSObject {
    public init(source: String, injectionTime: WKUserScriptInjectionTime, forMainFrameOnly: Bool, in contentWorld: WKContentWorld) {
        surfaceOnly()
    }
    open var source: String { surfaceOnly() }
    open var injectionTime: WKUserScriptInjectionTime { surfaceOnly() }
    open var isForMainFrameOnly: Bool { surfaceOnly() }
}

public enum WKUserScriptInjectionTime: Int, Sendable {
    case atDocumentStart = 0
    case atDocumentEnd = 1
}

@MainActor
open class WKContentWorld: NSObject {
    open class var page: WKContentWorld { surfaceOnly() }
    open class var defaultClient: WKContentWorld { surfaceOnly() }
    open class func world(name: String) -> WKContentWorld { surfaceOnly() }
    open var name: String? { surfaceOnly() }
}

// WKHTTPCookieStore with its Swift async forms, and its observer protocol.
import FoundationAppleOnly

@MainActor
open class WKHTTPCookieStore: NSObject {
    open func getAllCookies(_ completionHandler: @escaping @MainActor @Sendable ([HTTPCookie]) -> Void) { surfaceOnly() }
    /// The async form of `getAllCookies(_:)`.
    public func allCookies() async -> [HTTPCookie] { surfaceOnly() }
    open func setCookie(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)? = nil) { surfaceOnly() }
    /// The async form of `setCookie(_:completionHandler:)`.
    public func setCookie(_ cookie: HTTPCookie) async { surfaceOnly() }
    open func delete(_ cookie: HTTPCookie, completionHandler: (@MainActor @Sendable () -> Void)? = nil) { surfaceOnly() }
    /// The async form of `delete(_:completionHandler:)`.
    public func deleteCookie(_ cookie: HTTPCookie) async { surfaceOnly() }
    open func add(_ observer: any WKHTTPCookieStoreObserver) { surfaceOnly() }
    open func remove(_ observer: any WKHTTPCookieStoreObserver) { surfaceOnly() }
}

@MainActor
public protocol WKHTTPCookieStoreObserver: NSObjectProtocol {
    func cookiesDidChange(in cookieStore: WKHTTPCookieStore)
}

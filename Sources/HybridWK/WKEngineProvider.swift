#if canImport(WebKit)
import Foundation
import HybridCore
import WebKit

/// WKWebView's data store: one `WKWebsiteDataStore` shared by every view it makes, so views share
/// cookies, caches and storage (the twin of `GTKEngineProvider`'s `WebKitWebContext` +
/// `WebKitNetworkSession`). Content processes need no provider: since iOS 15 / macOS 12 WebKit
/// shares one process pool per app by itself (`WKProcessPool` is deprecated and has no effect).
///
/// ```swift
/// let provider = WKEngineProvider(store: .shared)
/// let engine = try provider.makeEngine(EngineConfiguration(userScripts: [...]))
/// ```
@MainActor
public final class WKEngineProvider: WebEngineProvider {
    /// Where the views keep cookies, caches and storage.
    public enum Store: Sendable, Hashable {
        /// `WKWebsiteDataStore.default()`: the app's persistent store.
        case shared
        /// `WKWebsiteDataStore.nonPersistent()`: memory only, gone with the provider.
        case ephemeral
        /// A persistent store of its own (`WKWebsiteDataStore(forIdentifier:)`, iOS 17 / macOS 14).
        /// Earlier systems have a single persistent store and use ``shared``.
        case profile(UUID)
    }

    /// `webkit`, the name remote config and reports use for this engine (the WebKit engine, as on Linux).
    public let engineName = "webkit"
    /// What WKWebView can do: ``WKDriver/capabilities``.
    public var capabilities: EngineCapabilities { WKDriver.capabilities }
    /// Why WKWebView lacks the rest: ``WKDriver/limitations``.
    public var limitations: [EngineCapabilities: String] { WKDriver.limitations }

    /// The `WKWebsiteDataStore` every view's configuration names (``store`` says which one).
    public let dataStore: WKWebsiteDataStore
    /// The kind of store this provider was made with.
    public let store: Store
    private lazy var sharedCookieStore = WKCookieStore(store: dataStore.httpCookieStore)

    /// - Parameter store: the data store the views share (cookies, cache, local storage).
    public init(store: Store = .shared) {
        self.store = store
        switch store {
        case .shared:
            dataStore = WKWebsiteDataStore.default()
        case .ephemeral:
            dataStore = WKWebsiteDataStore.nonPersistent()
        case .profile(let identifier):
            if #available(iOS 17.0, macOS 14.0, *) {
                dataStore = WKWebsiteDataStore(forIdentifier: identifier)
            } else {
                dataStore = WKWebsiteDataStore.default()
            }
        }
    }

    /// The seam's session kinds: `.ephemeral` is a non-persistent store; `.persistent` is the
    /// app's default store (WebKit chooses its directory; the URL is not used here).
    public convenience init(session: EngineSessionKind) {
        switch session {
        case .ephemeral: self.init(store: .ephemeral)
        case .persistent: self.init(store: .shared)
        }
    }

    /// The store shared by every view this provider makes.
    public var cookieStore: any EngineCookieStore { sharedCookieStore }

    /// A new `WKWebView` on this provider's data store, set up from `configuration` (user
    /// content, scheme handlers, media policy), under the engine contract. It never throws: WebKit
    /// makes views synchronously and cannot refuse one.
    public func makeEngine(_ configuration: EngineConfiguration) throws -> any WebEngine {
        makeWKEngine(configuration)
    }

    /// Like ``makeEngine(_:)`` with the concrete type (for the view controller, which embeds
    /// `webView`).
    public func makeWKEngine(_ configuration: EngineConfiguration) -> WKWebEngine {
        WKWebEngine(driver: WKDriver(provider: self, configuration: configuration), messageHandlers: configuration.messageHandlers)
    }
}
#endif

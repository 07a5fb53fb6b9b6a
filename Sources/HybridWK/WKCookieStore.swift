#if canImport(WebKit)
import Foundation
import HybridCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import WebKit

/// `EngineCookieStore` on a data store's `WKHTTPCookieStore`, observed with
/// `WKHTTPCookieStoreObserver`.
@MainActor
final class WKCookieStore: NSObject, EngineCookieStore, WKHTTPCookieStoreObserver {
    private let store: WKHTTPCookieStore
    private var handlers: [UInt64: @MainActor () -> Void] = [:]
    private var nextHandlerID: UInt64 = 0

    /// Schemes whose documents receive `Secure` cookies.
    private static let secureSchemes: Set<String> = ["https", "wss"]

    init(store: WKHTTPCookieStore) {
        self.store = store
        super.init()
    }

    /// WKHTTPCookieStore has no per-URL query before iOS 27; the store's cookies are matched
    /// with RFC 6265's rules (domain, path, Secure, expiry), as the jar does.
    func cookies(for url: URL) async throws -> [Cookie] {
        try await allCookies().filter { !$0.isExpired() && CookieMatch.matches($0, url: url, secureSchemes: Self.secureSchemes) }
    }

    func allCookies() async throws -> [Cookie] {
        await store.allCookies().map { Cookie(webKit: $0) }
    }

    func setCookie(_ cookie: Cookie) async throws {
        guard let httpCookie = cookie.webKitCookie else {
            throw HybridError.engine(.cookies("Foundation refused cookie \(cookie.name) for \(cookie.domain)"))
        }
        await store.setCookie(httpCookie)
    }

    func deleteCookie(_ cookie: Cookie) async throws {
        // WebKit deletes by name, domain and path; the stored cookie's own object is the surest key.
        let stored = await store.allCookies().filter { Cookie(webKit: $0).identity == cookie.identity }
        if stored.isEmpty, let httpCookie = cookie.webKitCookie {
            await store.deleteCookie(httpCookie)
        }
        for httpCookie in stored { await store.deleteCookie(httpCookie) }
    }

    func observeChanges(_ handler: @escaping @MainActor () -> Void) -> ObservationToken {
        // WebKit holds observers weakly; the provider keeps this store alive.
        if handlers.isEmpty { store.add(self) }
        nextHandlerID += 1
        let id = nextHandlerID
        handlers[id] = handler
        return ObservationToken { [weak self] in
            guard let self, self.handlers.removeValue(forKey: id) != nil else { return }
            if self.handlers.isEmpty { self.store.remove(self) }
        }
    }

    func cookiesDidChange(in cookieStore: WKHTTPCookieStore) {
        for id in handlers.keys.sorted() { handlers[id]?() }
    }
}
#endif

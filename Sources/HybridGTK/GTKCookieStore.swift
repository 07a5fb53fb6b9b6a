import CHybridGTK
import CWebKitGTK
import Foundation
import HybridCore

/// `EngineCookieStore` on a network session's `WebKitCookieManager` (libsoup's RFC 6265 jar).
@MainActor
final class GTKCookieStore: EngineCookieStore {
    private let session: OpaquePointer  // WebKitNetworkSession*, one ref of ours
    private let manager: OpaquePointer  // WebKitCookieManager*, owned by the session
    private var connections: [SignalConnection] = []

    /// The store of `session`'s cookie manager. It keeps the session alive: a CookieSync (and so
    /// this store) can outlive the provider that made the session (a view released by a pending
    /// task after the app dropped its provider), and the manager cannot outlive its session.
    init(session: OpaquePointer) {
        g_object_ref(UnsafeMutableRawPointer(session))
        self.session = session
        manager = webkit_network_session_get_cookie_manager(session)
    }

    isolated deinit {
        for connection in connections { connection.disconnect() }
        g_object_unref(UnsafeMutableRawPointer(session))
    }

    func cookies(for url: URL) async throws -> [Cookie] {
        try await GAsyncCall<[Cookie]>.run(finish: { [manager] result in
            var error: UnsafeMutablePointer<GError>?
            let list = webkit_cookie_manager_get_cookies_finish(manager, result, &error)
            if let error = consumeGError(error) { throw error }
            return Self.consume(list)
        }) { callback, data in
            webkit_cookie_manager_get_cookies(manager, url.absoluteString, nil, callback, data)
        }
    }

    func allCookies() async throws -> [Cookie] {
        try await GAsyncCall<[Cookie]>.run(finish: { [manager] result in
            var error: UnsafeMutablePointer<GError>?
            let list = webkit_cookie_manager_get_all_cookies_finish(manager, result, &error)
            if let error = consumeGError(error) { throw error }
            return Self.consume(list)
        }) { callback, data in
            webkit_cookie_manager_get_all_cookies(manager, nil, callback, data)
        }
    }

    func setCookie(_ cookie: Cookie) async throws {
        let soupCookie = try Self.soupCookie(cookie)
        defer { soup_cookie_free(soupCookie) }
        try await GAsyncCall<Void>.run(finish: { [manager] result in
            var error: UnsafeMutablePointer<GError>?
            webkit_cookie_manager_add_cookie_finish(manager, result, &error)
            if let error = consumeGError(error) { throw error }
        }) { callback, data in
            webkit_cookie_manager_add_cookie(manager, soupCookie, nil, callback, data)
        }
    }

    func deleteCookie(_ cookie: Cookie) async throws {
        let soupCookie = try Self.soupCookie(cookie)
        defer { soup_cookie_free(soupCookie) }
        try await GAsyncCall<Void>.run(finish: { [manager] result in
            var error: UnsafeMutablePointer<GError>?
            webkit_cookie_manager_delete_cookie_finish(manager, result, &error)
            if let error = consumeGError(error) { throw error }
        }) { callback, data in
            webkit_cookie_manager_delete_cookie(manager, soupCookie, nil, callback, data)
        }
    }

    func observeChanges(_ handler: @escaping @MainActor () -> Void) -> ObservationToken {
        let thunk: @convention(c) (gpointer?, gpointer?) -> Void = { _, data in
            onMain(data) { signalHandler($0, as: (@MainActor () -> Void).self)?() }
        }
        let connection = connectSignal(
            UnsafeMutableRawPointer(manager), "changed", thunk: signalThunk(thunk), handler: handler)
        connections.append(connection)
        return ObservationToken { [weak self] in
            // A store already gone disconnected every connection in its deinit and released the
            // session, so the manager may be freed: touch it only while the store is alive.
            guard let self else { return }
            connection.disconnect()
            connections.removeAll { $0.id == connection.id }
        }
    }

    /// Converts a `GList` of `SoupCookie*` (transfer full) and frees it.
    private static func consume(_ list: UnsafeMutablePointer<GList>?) -> [Cookie] {
        var result: [Cookie] = []
        var node = list
        while let current = node {
            if let raw = current.pointee.data {
                let soup = OpaquePointer(raw)
                result.append(cookie(soup))
                soup_cookie_free(soup)
            }
            node = current.pointee.next
        }
        g_list_free(list)
        return result
    }

    private static func cookie(_ soup: OpaquePointer) -> Cookie {
        let rawDomain = soup_cookie_get_domain(soup).map { String(cString: $0) } ?? ""
        var expires: Date?
        if let date = soup_cookie_get_expires(soup) {
            expires = Date(timeIntervalSince1970: TimeInterval(g_date_time_to_unix(date)))
        }
        let sameSite: Cookie.SameSite = switch soup_cookie_get_same_site_policy(soup) {
        case SOUP_SAME_SITE_POLICY_LAX: .lax
        case SOUP_SAME_SITE_POLICY_STRICT: .strict
        default: .none
        }
        return Cookie(
            name: soup_cookie_get_name(soup).map { String(cString: $0) } ?? "",
            value: soup_cookie_get_value(soup).map { String(cString: $0) } ?? "",
            domain: rawDomain, path: soup_cookie_get_path(soup).map { String(cString: $0) } ?? "/",
            expires: expires, secure: soup_cookie_get_secure(soup) != 0, httpOnly: soup_cookie_get_http_only(soup) != 0,
            hostOnly: !rawDomain.hasPrefix("."), sameSite: sameSite)
    }

    /// libsoup marks a domain cookie with a leading dot and a host-only cookie without one.
    private static func soupCookie(_ cookie: Cookie) throws -> OpaquePointer {
        let domain = cookie.hostOnly ? cookie.domain : "." + cookie.domain
        guard let soup = soup_cookie_new(cookie.name, cookie.value, domain, cookie.path, -1) else {
            throw HybridError.engine(.cookies("libsoup refused cookie \(cookie.name) for \(cookie.domain)"))
        }
        if let expires = cookie.expires {
            let date = g_date_time_new_from_unix_utc(gint64(expires.timeIntervalSince1970))
            soup_cookie_set_expires(soup, date)
            g_date_time_unref(date)
        }
        soup_cookie_set_secure(soup, cookie.secure ? 1 : 0)
        soup_cookie_set_http_only(soup, cookie.httpOnly ? 1 : 0)
        switch cookie.sameSite {
        case .lax: soup_cookie_set_same_site_policy(soup, SOUP_SAME_SITE_POLICY_LAX)
        case .strict: soup_cookie_set_same_site_policy(soup, SOUP_SAME_SITE_POLICY_STRICT)
        case .none, .unspecified: soup_cookie_set_same_site_policy(soup, SOUP_SAME_SITE_POLICY_NONE)
        }
        return soup
    }
}

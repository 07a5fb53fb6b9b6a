import Foundation
import HybridCore

/// Cookies are the container's: with cookie sync (``HybridWebViewConfiguration/cookieSync``) the
/// app's ``CookieJar`` — the source of truth, so a cookie added here is in the jar and the next
/// request of the page carries it — otherwise the engine's store.
extension WebDriverSession {
    func cookies(_ command: WebDriverCommand, _ body: JSONValue) async throws -> JSONValue {
        let url = currentURL
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), ["http", "https"].contains(scheme) else {
            throw WebDriverError(.invalidCookieDomain, "\(url.absoluteString) is not an http(s) page: it has no cookies")
        }
        let visible = try await visibleCookies(for: url)
        switch command {
        case .allCookies: return .array(visible.map(Self.json))
        case .namedCookie(let name):
            guard let cookie = visible.first(where: { $0.name == name }) else { throw WebDriverError(.noSuchCookie, "no cookie \(name)") }
            return Self.json(cookie)
        case .deleteCookie(let name):
            for cookie in visible where cookie.name == name { try await delete(cookie) }
            return .null
        case .deleteAllCookies:
            for cookie in visible { try await delete(cookie) }
            return .null
        case .addCookie:
            try await add(try Self.cookie(body["cookie"], host: host, secureScheme: scheme == "https"))
            return .null
        default: throw WebDriverError(.unknownError, "not a cookie command")
        }
    }

    private func visibleCookies(for url: URL) async throws -> [Cookie] {
        if let sync = view.configuration.cookieSync {
            await sync.pullFromEngine()
            return sync.jar.cookies(for: url, via: .http)
        }
        return try await view.engine.cookieStore.cookies(for: url)
    }

    private func add(_ cookie: Cookie) async throws {
        if let sync = view.configuration.cookieSync {
            sync.jar.setCookie(cookie)
            await sync.flush()   // in the engine's store before the command returns: the next request carries it
            if let error = sync.lastError { throw WebDriverError(.unableToSetCookie, "\(error)") }
            return
        }
        do { try await view.engine.cookieStore.setCookie(cookie) } catch { throw WebDriverError(.unableToSetCookie, "\(error)") }
    }

    private func delete(_ cookie: Cookie) async throws {
        if let sync = view.configuration.cookieSync {
            sync.jar.deleteCookie(cookie)
            await sync.flush()
        } else {
            try await view.engine.cookieStore.deleteCookie(cookie)
        }
    }

    /// The standard's serialized cookie (§14.1): a domain cookie's domain with its leading dot.
    nonisolated static func json(_ cookie: Cookie) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(cookie.name), "value": .string(cookie.value), "path": .string(cookie.path),
            "domain": .string(cookie.hostOnly ? cookie.domain : "." + cookie.domain),
            "secure": .bool(cookie.secure), "httpOnly": .bool(cookie.httpOnly),
            "sameSite": .string(cookie.sameSite == .unspecified ? "Lax" : cookie.sameSite.rawValue),
        ]
        if let expires = cookie.expires { object["expiry"] = .number(expires.timeIntervalSince1970.rounded(.down)) }
        return .object(object)
    }

    /// The cookie of an Add Cookie body, for a page at `host`.
    /// - Throws: `invalid argument` for a malformed cookie, `invalid cookie domain` for another site's.
    nonisolated static func cookie(_ value: JSONValue?, host: String, secureScheme: Bool) throws -> Cookie {
        guard let object = value?.objectValue, let name = object["name"]?.stringValue, let text = object["value"]?.stringValue else {
            throw WebDriverError(.invalidArgument, "cookie needs a name and a value (strings)")
        }
        let flag = { (key: String) throws -> Bool in
            guard let value = object[key], value != .null else { return false }
            guard let bool = value.boolValue else { throw WebDriverError(.invalidArgument, "cookie \(key) is not a boolean") }
            return bool
        }
        var domain = host
        var hostOnly = true
        if let given = object["domain"], given != .null {
            guard let text = given.stringValue else { throw WebDriverError(.invalidArgument, "cookie domain is not a string") }
            let bare = (text.hasPrefix(".") ? String(text.dropFirst()) : text).lowercased()
            guard host == bare || host.hasSuffix("." + bare) else {
                throw WebDriverError(.invalidCookieDomain, "\(text) is not the current page's domain (\(host))")
            }
            domain = bare
            hostOnly = false
        }
        var expires: Date?
        if let expiry = object["expiry"], expiry != .null {
            guard let seconds = expiry.numberValue, seconds >= 0, seconds.rounded() == seconds else {
                throw WebDriverError(.invalidArgument, "cookie expiry is not an integer number of seconds")
            }
            expires = Date(timeIntervalSince1970: seconds)
        }
        var sameSite = Cookie.SameSite.unspecified
        if let given = object["sameSite"], given != .null {
            guard let text = given.stringValue, let parsed = Cookie.SameSite(rawValue: text), parsed != .unspecified else {
                throw WebDriverError(.invalidArgument, "cookie sameSite is Lax, Strict or None")
            }
            sameSite = parsed
        }
        let path = object["path"]?.stringValue ?? "/"
        guard path.hasPrefix("/") else { throw WebDriverError(.invalidArgument, "cookie path must begin with /") }
        return Cookie(name: name, value: text, domain: domain, path: path, expires: expires, secure: try flag("secure"),
                      httpOnly: try flag("httpOnly"), hostOnly: hostOnly, sameSite: sameSite)
    }
}

#if os(Linux)  // Chromium over a pipe: Linux only (Apple platforms use WKWebView)
import Foundation
import HybridCore

/// `EngineCookieStore` on the browser's cookie jar (`Storage.getCookies`/`setCookies`, which
/// need no page), shared by every view of a provider.
///
/// Deleting sets an already-expired copy (Chromium then drops the stored one). Changes are
/// observed by polling the jar every ``EngineHeuristics/cookiePollInterval`` while someone observes: the protocol has no
/// cookie-change event (see docs/engines.md).
@MainActor
final class BlinkCookieStore: EngineCookieStore {
    private let browser: () throws -> BlinkBrowser
    /// The browser if one runs now (polling must not start one).
    private let runningBrowser: () -> BlinkBrowser?
    private var observers: [UInt64: @MainActor () -> Void] = [:]
    private var nextObserverID: UInt64 = 0
    private var poller: Task<Void, Never>?
    private var lastSeen: Set<Cookie>?

    init(provider: BlinkEngineProvider) {
        browser = { [weak provider] in
            guard let provider else { throw HybridError.engine(.closed) }
            return try provider.runningBrowser()
        }
        runningBrowser = { [weak provider] in provider?.currentBrowser }
    }

    init(browser fixed: BlinkBrowser) {
        browser = { fixed }
        runningBrowser = { fixed.hasExited ? nil : fixed }
    }

    isolated deinit { poller?.cancel() }

    func cookies(for url: URL) async throws -> [Cookie] {
        try await allCookies().filter { CookieMatch.matches($0, url: url, secureSchemes: ["https", "wss"]) }
    }

    func allCookies() async throws -> [Cookie] {
        let result = try await call("Storage.getCookies")
        return (result["cookies"]?.arrayValue ?? []).map(Self.cookie)
    }

    func setCookie(_ cookie: Cookie) async throws {
        _ = try await call("Storage.setCookies", ["cookies": [Self.parameter(cookie)]])
    }

    func deleteCookie(_ cookie: Cookie) async throws {
        var expired = cookie
        expired.expires = Date(timeIntervalSince1970: 1)
        _ = try await call("Storage.setCookies", ["cookies": [Self.parameter(expired)]])
    }

    func observeChanges(_ handler: @escaping @MainActor () -> Void) -> ObservationToken {
        nextObserverID += 1
        let id = nextObserverID
        observers[id] = handler
        startPolling()
        return ObservationToken { [weak self] in
            guard let self else { return }
            self.observers[id] = nil
            if self.observers.isEmpty {
                self.poller?.cancel()
                self.poller = nil
                self.lastSeen = nil
            }
        }
    }

    private func startPolling() {
        guard poller == nil else { return }
        poller = Task { @MainActor [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                if self.runningBrowser() != nil, let cookies = try? await self.allCookies() {
                    let current = Set(cookies)
                    if let last = self.lastSeen, last != current, !Task.isCancelled {
                        for id in self.observers.keys.sorted() { self.observers[id]?() }
                    }
                    self.lastSeen = current
                }
                try? await Task.sleep(nanoseconds: UInt64(EngineHeuristics.cookiePollInterval * 1_000_000_000))
            }
        }
    }

    private func call(_ method: String, _ params: [String: JSONValue] = [:]) async throws -> JSONValue {
        do {
            return try await browser().call(method, params)
        } catch let error as DevToolsError {
            throw HybridError.engine(.cookies(error.description))
        }
    }

    private static func cookie(_ value: JSONValue) -> Cookie {
        let domain = value.string("domain") ?? ""
        let expires = value["expires"]?.numberValue ?? -1
        let session = value.flag("session") || expires < 0
        let sameSite: Cookie.SameSite = switch value.string("sameSite") {
        case "Strict": .strict
        case "Lax": .lax
        case "None": .none
        default: .unspecified
        }
        return Cookie(
            name: value.string("name") ?? "", value: value.string("value") ?? "", domain: domain, path: value.string("path") ?? "/",
            expires: session ? nil : Date(timeIntervalSince1970: expires.rounded()), secure: value.flag("secure"),
            httpOnly: value.flag("httpOnly"), hostOnly: !domain.hasPrefix("."), sameSite: sameSite)
    }

    /// A host-only cookie is set through a URL (Chromium derives host-only from it); a domain
    /// cookie through a dotted `domain`. The URL's scheme follows the cookie's Secure flag
    /// (Chromium makes a cookie set through an https URL Secure), and the cookie is bound to
    /// no source scheme or port: cookies do not separate by scheme or port on WebKit, nor
    /// for cookies a server sets here.
    static func parameter(_ cookie: Cookie) -> JSONValue {
        var parameter: [String: JSONValue] = [
            "name": .string(cookie.name), "value": .string(cookie.value), "path": .string(cookie.path),
            "secure": .bool(cookie.secure), "httpOnly": .bool(cookie.httpOnly),
            "sourceScheme": "Unset", "sourcePort": -1,
        ]
        if cookie.hostOnly {
            let scheme = cookie.secure ? "https" : "http"
            parameter["url"] = .string("\(scheme)://\(cookie.domain)\(cookie.path.hasPrefix("/") ? cookie.path : "/")")
        } else {
            parameter["domain"] = .string("." + cookie.domain)
        }
        if let expires = cookie.expires { parameter["expires"] = .number(expires.timeIntervalSince1970.rounded()) }
        switch cookie.sameSite {
        case .strict: parameter["sameSite"] = "Strict"
        case .lax: parameter["sameSite"] = "Lax"
        case .none: parameter["sameSite"] = "None"
        case .unspecified: break
        }
        return .object(parameter)
    }
}
#endif

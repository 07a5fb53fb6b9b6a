import Foundation

/// A cookie as RFC 6265 defines it (the storage model of §5.3), independent of any engine.
///
/// HybridKit does not use Foundation's `HTTPCookie` as its model: on Linux it splits headers on
/// commas and mishandles `Max-Age=0` (see `docs/cookies.md`).
public struct Cookie: Sendable, Hashable, Codable {
    /// The cookie's name.
    public var name: String
    /// The cookie's value, as it was set.
    public var value: String
    /// Lower-case, without a leading dot.
    public var domain: String
    /// The path the cookie is scoped to; it is sent to this path and below it.
    public var path: String
    /// `nil` = a session cookie.
    public var expires: Date?
    /// Sent over secure connections only (`Secure`).
    public var secure: Bool
    /// Hidden from `document.cookie` (`HttpOnly`).
    public var httpOnly: Bool
    /// `true` when the cookie was set without a `Domain` attribute (sent to that exact host only).
    public var hostOnly: Bool
    /// The `SameSite` attribute; `.unspecified` when the cookie had none.
    public var sameSite: SameSite

    /// The `SameSite` attribute's values; the raw value is the attribute's spelling, empty when absent.
    public enum SameSite: String, Sendable, Hashable, Codable { case none = "None", lax = "Lax", strict = "Strict", unspecified = "" }

    /// A cookie; `domain` is stored lower-case without a leading dot.
    public init(name: String, value: String, domain: String, path: String = "/", expires: Date? = nil,
                secure: Bool = false, httpOnly: Bool = false, hostOnly: Bool = true, sameSite: SameSite = .unspecified) {
        self.name = name
        self.value = value
        // The dot is a scalar, not a Character: `.` followed by a combining mark is one Character.
        let lower = domain.lowercased()
        self.domain = lower.unicodeScalars.first == "." ? String(lower.unicodeScalars.dropFirst()) : lower
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.hostOnly = hostOnly
        self.sameSite = sameSite
    }

    /// A cookie is identified by (name, domain, path) — RFC 6265 §5.3 step 11.
    public var identity: String { "\(name)\u{0}\(domain)\u{0}\(path)" }

    /// Whether the cookie has expired at `now`; a session cookie never does.
    /// - Parameter now: The moment to check against (the current time by default).
    public func isExpired(at now: Date = Date()) -> Bool {
        if let expires { return expires <= now }
        return false
    }
}

/// A view's cookie store (WKHTTPCookieStore, WebKitCookieManager, CDP `Network.*Cookies`).
@MainActor
public protocol EngineCookieStore: AnyObject {
    /// The cookies the engine would send to `url`.
    func cookies(for url: URL) async throws -> [Cookie]
    /// Every cookie in the store.
    func allCookies() async throws -> [Cookie]
    /// Stores `cookie`, replacing the one with the same name, domain and path.
    func setCookie(_ cookie: Cookie) async throws
    /// Removes the cookie with the same name, domain and path as `cookie`, if the store has one.
    func deleteCookie(_ cookie: Cookie) async throws
    /// Calls `handler` whenever the store changes; keep the token to keep observing.
    func observeChanges(_ handler: @escaping @MainActor () -> Void) -> ObservationToken
}

/// Keeps an observation alive; cancel it (or drop it) to stop.
@MainActor
public final class ObservationToken {
    private var onCancel: (@MainActor () -> Void)?
    /// A token that calls `onCancel` once, when it is cancelled or released.
    public init(_ onCancel: @escaping @MainActor () -> Void) { self.onCancel = onCancel }
    /// Stops the observation; calling it again does nothing.
    public func cancel() {
        onCancel?()
        onCancel = nil
    }
    isolated deinit { cancel() }
}

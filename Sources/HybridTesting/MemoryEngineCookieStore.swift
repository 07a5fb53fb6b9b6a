import Foundation
import HybridCore

/// An engine cookie store in memory that behaves like WebKit's: it signals every change,
/// including the ones the app makes, and the test can play the network's part.
@MainActor
public final class MemoryEngineCookieStore: EngineCookieStore {
    /// The cookies stored, by identity (name, domain, path).
    public private(set) var stored: [String: Cookie] = [:]
    /// How many times the app set or deleted a cookie.
    public private(set) var writes = 0
    private var handlers: [Int: @MainActor () -> Void] = [:]
    private var nextHandler = 0

    /// An empty store.
    public init() {}

    /// The cookies that go with a request to `url` (https counts as secure).
    /// - Parameter url: The request's URL.
    /// - Returns: The matching cookies.
    public func cookies(for url: URL) async throws -> [Cookie] {
        stored.values.filter { CookieMatch.matches($0, url: url, secureSchemes: ["https"]) }
    }
    /// Every stored cookie.
    /// - Returns: The cookies, in no particular order.
    public func allCookies() async throws -> [Cookie] { Array(stored.values) }
    /// Stores `cookie` (replacing one with its identity) and signals the change.
    /// - Parameter cookie: The cookie to store.
    public func setCookie(_ cookie: Cookie) async throws {
        writes += 1
        stored[cookie.identity] = cookie
        signal()
    }
    /// Removes `cookie` and signals the change.
    /// - Parameter cookie: The cookie to remove.
    public func deleteCookie(_ cookie: Cookie) async throws {
        writes += 1
        stored.removeValue(forKey: cookie.identity)
        signal()
    }
    /// Calls `handler` after every change until the token is cancelled.
    /// - Parameter handler: Called once per change.
    /// - Returns: The token that ends the calls.
    public func observeChanges(_ handler: @escaping @MainActor () -> Void) -> ObservationToken {
        let id = nextHandler
        nextHandler += 1
        handlers[id] = handler
        return ObservationToken { [weak self] in self?.handlers.removeValue(forKey: id) }
    }
    /// What the engine's network process does on a `Set-Cookie`.
    /// - Parameter cookie: The cookie the server set.
    public func receiveFromNetwork(_ cookie: Cookie) {
        stored[cookie.identity] = cookie
        signal()
    }
    /// What the engine's network process does when a server expires a cookie.
    /// - Parameter cookie: The cookie the server removed.
    public func dropFromNetwork(_ cookie: Cookie) {
        stored.removeValue(forKey: cookie.identity)
        signal()
    }
    private func signal() { for handler in handlers.values { handler() } }
}

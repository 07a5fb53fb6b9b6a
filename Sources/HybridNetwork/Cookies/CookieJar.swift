import Foundation
import HybridBase
import HybridEngine

/// The app's cookie store, implementing the storage model of RFC 6265 §5.3 and the retrieval
/// rules of §5.4 without Foundation's `HTTPCookie` (which on Linux splits headers on commas,
/// keeps `Max-Age=0` cookies and misreads `Secure=value`).
///
/// Thread-safe: every operation takes one lock; observers are called after it is released, on
/// the thread that made the change. With a file, every change is written through atomically
/// (see ``init(persistingTo:policy:clock:)``).
///
/// Rules beyond RFC 6265, from RFC 6265bis, each switchable in ``Policy``: a Secure cookie is
/// refused from an insecure origin, an insecure origin cannot overwrite or shadow a Secure
/// cookie, and `__Secure-`/`__Host-` name prefixes are enforced. ``Policy/isPublicSuffix`` is the
/// Public Suffix List's (``PublicSuffixList``: `Domain=co.uk` or `Domain=github.io` is refused, as
/// the engines refuse it); where there is no list, single-label domains (`Domain=com`).
public final class CookieJar: @unchecked Sendable {
    /// Who hands the jar a cookie or asks for cookies: the network (`Set-Cookie`, the `Cookie`
    /// header) or a script (`document.cookie`, RFC 6265's "non-HTTP API", which never sees or
    /// sets HttpOnly cookies).
    public enum Source: Sendable, Hashable { case http, script }

    /// The jar's rules.
    public struct Policy: Sendable {
        /// Schemes whose origins are secure: `https`, `wss`, and an app's own secure schemes.
        public var secureSchemes: Set<String>
        /// Refuse `Secure` cookies (and `__Secure-`/`__Host-` names) from insecure origins (RFC 6265bis).
        public var requireSecureOriginForSecure: Bool
        /// An insecure origin cannot overwrite or shadow a Secure cookie of the same name (RFC 6265bis).
        public var protectSecureCookies: Bool
        /// Whether a `Domain` attribute names a public suffix (§5.3 step 5): such a cookie is refused
        /// unless the suffix is the request host itself. By default the Public Suffix List's answer
        /// (``PublicSuffixList/isPublicSuffix(_:)``).
        public var isPublicSuffix: @Sendable (String) -> Bool

        /// A policy; by default `https` and `wss` are secure, Secure cookies are protected as RFC 6265bis
        /// asks, and public suffixes are the Public Suffix List's.
        public init(secureSchemes: Set<String> = ["https", "wss"], requireSecureOriginForSecure: Bool = true,
                    protectSecureCookies: Bool = true,
                    isPublicSuffix: @escaping @Sendable (String) -> Bool = PublicSuffixList.isPublicSuffix) {
            self.secureSchemes = Set(secureSchemes.map { $0.lowercased() })
            self.requireSecureOriginForSecure = requireSecureOriginForSecure
            self.protectSecureCookies = protectSecureCookies
            self.isPublicSuffix = isPublicSuffix
        }
    }

    /// A stored cookie with what §5.3 keeps beside it: its creation time, and an insertion
    /// counter that orders cookies created in the same instant.
    struct Entry: Codable, Sendable {
        var cookie: Cookie
        var creation: Date
        var sequence: UInt64
    }

    /// The rules this jar applies.
    public let policy: Policy
    /// The file the jar writes through to, if any.
    public let fileURL: URL?
    let clock: @Sendable () -> Date
    let lock = NSLock()
    var entries: [String: Entry] = [:]
    var nextSequence: UInt64 = 0
    var observers: [UInt64: @Sendable (Change) -> Void] = [:]
    var nextObserver: UInt64 = 0
    let saveLock = NSLock()

    /// An in-memory jar.
    /// - Parameter clock: the current time (injectable so tests can expire cookies).
    public init(policy: Policy = Policy(), clock: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.fileURL = nil
        self.clock = clock
    }

    init(policy: Policy, fileURL: URL?, clock: @escaping @Sendable () -> Date) {
        self.policy = policy
        self.fileURL = fileURL
        self.clock = clock
    }

    // MARK: Receiving cookies

    /// Stores the cookie of one `Set-Cookie` header (or `document.cookie` assignment) received for `url`.
    /// - Returns: the cookie as stored; an expired one (e.g. `Max-Age=0`) has deleted its namesake.
    /// - Throws: `HybridError.network(.malformedCookie)` when §5.2 ignores the header,
    ///   `HybridError.network(.cookieRejected)` when §5.3 (or a ``Policy`` rule) refuses it.
    @discardableResult
    public func setCookie(fromHeader header: String, for url: URL, via source: Source = .http) throws -> Cookie {
        guard let parsed = SetCookieParser.parse(header) else { throw HybridError.network(.malformedCookie(header)) }
        let cookie = try makeCookie(parsed, for: url, via: source)
        try insert(cookie, from: url, via: source)
        return cookie
    }

    /// Stores every `Set-Cookie` header of a response for `url`, skipping the ones that are
    /// malformed or refused (as a browser does). Pass each header separately: never join them.
    /// - Returns: the cookies stored.
    @discardableResult
    public func setCookies(fromHeaders headers: [String], for url: URL) -> [Cookie] {
        headers.compactMap { try? setCookie(fromHeader: $0, for: url) }
    }

    /// Applies a `document.cookie = assignment` made by a page at `url` (no HttpOnly, ever).
    public func setDocumentCookie(_ assignment: String, for url: URL) throws {
        try setCookie(fromHeader: assignment, for: url, via: .script)
    }

    /// Stores `cookie` as given (from the app or the engine's store), replacing the cookie with
    /// the same name, domain and path and keeping its creation time. An expired cookie deletes.
    public func setCookie(_ cookie: Cookie) {
        let changes = lock.withLock { insertLocked(cookie, now: clock()) }
        publish(changes)
    }

    /// Deletes the cookie with `cookie`'s name, domain and path, if stored.
    public func deleteCookie(_ cookie: Cookie) {
        let changes: [Change] = lock.withLock {
            entries.removeValue(forKey: cookie.identity).map { [.removed($0.cookie)] } ?? []
        }
        publish(changes)
    }

    /// Deletes every cookie.
    public func deleteAll() {
        let changes = lock.withLock {
            defer { entries.removeAll() }
            return entries.values.sorted { $0.sequence < $1.sequence }.map { Change.removed($0.cookie) }
        }
        publish(changes)
    }

    // MARK: Retrieving cookies

    /// The cookies to send to `url` (§5.4): host, path, Secure and — for scripts — HttpOnly
    /// honoured, expired ones evicted; longer paths first, then earlier creation.
    public func cookies(for url: URL, via source: Source = .http) -> [Cookie] {
        let (matching, changes) = lock.withLock { () -> ([Entry], [Change]) in
            let changes = evictExpiredLocked(now: clock())
            let matching = entries.values.filter { entry in
                (source == .http || !entry.cookie.httpOnly)
                    && CookieMatch.matches(entry.cookie, url: url, secureSchemes: policy.secureSchemes)
            }
            return (matching, changes)
        }
        publish(changes)
        return matching.sorted { lhs, rhs in
            let left = lhs.cookie.path.utf8.count, right = rhs.cookie.path.utf8.count
            return left != right ? left > right : lhs.sequence < rhs.sequence
        }.map(\.cookie)
    }

    /// The `Cookie` request header for `url`, or `nil` when no cookie applies.
    public func cookieHeader(for url: URL) -> String? {
        let pairs = cookies(for: url).map { "\($0.name)=\($0.value)" }
        return pairs.isEmpty ? nil : pairs.joined(separator: "; ")
    }

    /// What `document.cookie` reads at `url`: the matching non-HttpOnly cookies (Secure ones only
    /// on a secure scheme), in §5.4 order. Empty when none apply.
    public func documentCookieString(for url: URL) -> String {
        cookies(for: url, via: .script).map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Every unexpired cookie, oldest first.
    public var allCookies: [Cookie] {
        let (all, changes) = lock.withLock { () -> ([Entry], [Change]) in
            let changes = evictExpiredLocked(now: clock())
            return (Array(entries.values), changes)
        }
        publish(changes)
        return all.sorted { $0.sequence < $1.sequence }.map(\.cookie)
    }

    /// The creation time §5.3 keeps for the stored cookie with `cookie`'s identity.
    public func creationDate(of cookie: Cookie) -> Date? {
        lock.withLock { entries[cookie.identity]?.creation }
    }
}

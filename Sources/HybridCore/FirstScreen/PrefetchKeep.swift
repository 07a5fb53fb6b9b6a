import Foundation
import HybridNetwork
import HybridBridge
import HybridBase

/// Keeping a prefetch's response for later opens (stale-while-revalidate), opted into per rule
/// (``PrefetchRule/keep``, ``PrefetchDeclaration/keep``): the next open of a page hands it the
/// kept response at once, and goes to the network only when the kept one is older than
/// ``maxAge``.
///
/// Ages are seconds since the kept response arrived. Within ``maxAge`` it is *fresh*: delivered
/// with no request (as an HTTP cache serves a fresh response). Older but within
/// ``maxAge`` + ``maxStale`` it is *stale*: the page can render it at once while the prefetch goes
/// to the network, and the network's response, when it arrives, is delivered too and replaces it.
/// Older still it is never delivered: the open waits for the network as without a keep.
public struct PrefetchKeep: Sendable, Hashable, Codable {
    /// Seconds a kept response is fresh (no request made); 0: always refreshed.
    public var maxAge: Double
    /// Seconds past ``maxAge`` a kept response is still handed out, stale, while the network refreshes it.
    public var maxStale: Double

    /// The longest ``maxAge`` + ``maxStale``: 30 days.
    public static let maximumSeconds: Double = 30 * 86_400

    /// A keep: fresh for `maxAge` seconds, then stale (handed out while refreshing) for `maxStale` more.
    public init(maxAge: Double, maxStale: Double = 0) {
        self.maxAge = maxAge
        self.maxStale = maxStale
    }

    private enum CodingKeys: String, CodingKey { case maxAge, maxStale }

    /// Decodes a keep; `maxStale` defaults to 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        maxAge = try c.decode(Double.self, forKey: .maxAge)
        maxStale = try c.decodeIfPresent(Double.self, forKey: .maxStale) ?? 0
    }

    /// Why the keep is not valid, or `nil`: both finite and not negative, their sum over 0 and
    /// at most ``maximumSeconds``.
    public var invalidReason: String? {
        guard maxAge.isFinite, maxStale.isFinite, maxAge >= 0, maxStale >= 0, maxAge + maxStale > 0,
              maxAge + maxStale <= Self.maximumSeconds else {
            return "keep maxAge \(maxAge) + maxStale \(maxStale) is not within 0–\(Int(Self.maximumSeconds)) s"
        }
        return nil
    }
}

/// Where kept prefetch responses live: a bounded directory of the app (the request proxy's
/// on-disk store, ``ProxyCache``, in a directory of its own), so they survive a relaunch.
///
/// An entry is stored under the request URL and an *identity*: a SHA-256 of the page's origin, the
/// rule's request headers and the `Cookie` header the app's jar sends for that URL (never the
/// cookies themselves). Another page origin, other headers or other cookies — a sign-in, a sign-out,
/// a changed session — make another key, so nothing kept for one is handed to another. Only a
/// whole `2xx` response that was not redirected and does not say `Cache-Control: no-store` is kept;
/// a file that does not decode whole is deleted and counts as nothing kept.
public final class PrefetchKeepStore: Sendable {
    /// A response found in the store.
    public struct Kept: Sendable, Hashable {
        /// The response as the page receives it.
        public var response: ProxyResponse
        /// When it arrived from the network.
        public var received: Date
        /// Whether it is older than the rule's ``PrefetchKeep/maxAge``: the network refreshes it.
        public var stale: Bool
    }

    /// `<the user's cache directory>/HybridKit/prefetch-keep/<process name>`, at most 8 MB and
    /// 256 responses on disk (1 MB each at most), 1 MB held in memory.
    public static var defaultConfiguration: ProxyCache.Configuration {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        return ProxyCache.Configuration(
            directory: caches.appendingPathComponent("HybridKit/prefetch-keep/\(ProcessInfo.processInfo.processName)", isDirectory: true),
            maxDiskBytes: 8 << 20, maxMemoryBytes: 1 << 20, maxEntryBytes: 1 << 20, maxEntries: 256)
    }

    /// The store itself (one per directory in a process, shared by every prefetcher using it).
    public let cache: ProxyCache

    /// The store in `configuration`'s directory (made if missing).
    public init(configuration: ProxyCache.Configuration = PrefetchKeepStore.defaultConfiguration) {
        cache = ProxyCache.opening(configuration)
    }

    /// The identity of a request made for a page of `origin` with `headers` and, when it carries
    /// cookies, the jar's `cookie` header for its URL: a hex SHA-256 (never the values themselves).
    public static func identity(origin: BridgeOrigin?, headers: [[String]], cookie: String?) -> String {
        // JSON, so no header value can pass for another field.
        let fields: JSONValue = [
            "origin": origin.map { .string($0.description) } ?? .null,
            "headers": .array(headers.filter { $0.count == 2 }.map { [.string($0[0].lowercased()), .string($0[1])] }),
            "cookie": cookie.map(JSONValue.string) ?? .null,
        ]
        return SubresourceIntegrity.Algorithm.sha256.digest(Data(fields.jsonText.utf8)).prefix(20).lowercaseHex
    }

    /// The response kept for `url` and `identity`, when it is at most ``PrefetchKeep/maxAge`` +
    /// ``PrefetchKeep/maxStale`` old at `now`. An older one (or one more than a second in the
    /// future: the clock moved back) is removed and never handed out.
    public func lookup(url: URL, identity: String, keep: PrefetchKeep, now: Date) -> Kept? {
        let key = Self.key(url)
        guard let entry = cache.entry(url: key, identity: identity) else { return nil }
        // Stored to the millisecond: a response kept just now may read as a little in the future.
        let age = now.timeIntervalSince(entry.responseTime)
        guard age > -1, age <= keep.maxAge + keep.maxStale else {
            cache.remove(url: key, identity: identity)
            return nil
        }
        // Fresh while younger than maxAge (as HTTP's freshness lifetime): maxAge 0 is always stale.
        return Kept(response: ProxyResponse(stored: entry), received: entry.responseTime, stale: !(age < keep.maxAge))
    }

    /// Keeps `response` to `url` for `identity` (replacing what was kept) when it may be kept:
    /// ``isKeepable(_:)``. Returns whether it was.
    @discardableResult
    public func keep(_ response: ProxyResponse, url: URL, identity: String, sent: Date, received: Date) -> Bool {
        guard Self.isKeepable(response),
              let entry = response.entry(url: Self.key(url), identity: identity, requestTime: sent, responseTime: received) else { return false }
        cache.store(entry)
        return cache.entry(url: entry.url, identity: identity) != nil
    }

    /// Whether `response` may be kept: a `2xx` of type `basic` (what a prefetch makes), not redirected, and
    /// without `Cache-Control: no-store`.
    public static func isKeepable(_ response: ProxyResponse) -> Bool {
        let cacheControl = response.headers.filter { $0.count == 2 && $0[0].lowercased() == "cache-control" }.map { $0[1] }
        return (200..<300).contains(response.status) && !response.redirected && response.type == "basic"
            && !HTTPCachePolicy.Directives(cacheControl).noStore
    }

    private static func key(_ url: URL) -> String {
        let text = url.absoluteString
        return text.firstIndex(of: "#").map { String(text[..<$0]) } ?? text
    }
}

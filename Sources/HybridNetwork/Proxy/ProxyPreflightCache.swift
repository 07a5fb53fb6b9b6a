import Foundation

/// The CORS-preflight cache of one ``RequestProxy``: what a preflight allowed, per page origin,
/// URL and credentials, until its `Access-Control-Max-Age` runs out — so a second identical
/// request is not preflighted again, as in the engine.
final class ProxyPreflightCache: @unchecked Sendable {
    private struct Key: Hashable {
        var origin: String
        var url: String
        var credentials: Bool
    }

    private struct Entry {
        var methods: [String: Date] = [:]
        var headers: [String: Date] = [:]
    }

    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]

    /// Whether a cached preflight allows `method` with the unsafe header `names` (lower-case).
    func allows(origin: String, url: URL, credentials: Bool, method: String, names: [String], now: Date = Date()) -> Bool {
        let key = Key(origin: origin, url: url.absoluteString, credentials: credentials)
        return lock.withLock {
            guard let entry = entries[key] else { return false }
            func live(_ table: [String: Date], _ name: String) -> Bool { (table[name].map { $0 > now }) ?? false }
            let methodAllowed = ProxyCORS.safelistedMethods.contains(method) || live(entry.methods, method)
                || (!credentials && live(entry.methods, "*"))
            guard methodAllowed else { return false }
            return names.allSatisfy { name in
                live(entry.headers, name) || (!credentials && live(entry.headers, "*"))
            }
        }
    }

    /// Remembers what a preflight allowed.
    func store(origin: String, url: URL, credentials: Bool, _ preflight: ProxyCORS.Preflight, now: Date = Date()) {
        guard preflight.maxAge > 0 else { return }
        let key = Key(origin: origin, url: url.absoluteString, credentials: credentials)
        let expiry = now.addingTimeInterval(preflight.maxAge)
        lock.withLock {
            var entry = entries[key] ?? Entry()
            for method in preflight.methods { entry.methods[method] = expiry }
            for name in preflight.headers { entry.headers[name] = expiry }
            entries[key] = entry
        }
    }
}

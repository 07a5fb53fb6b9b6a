import Foundation

/// The rules of a private HTTP cache (RFC 9111) and fetch's `cache` modes (Fetch standard,
/// "HTTP-network-or-cache fetch"), as pure functions of a request, a stored response and the time.
///
/// A value type with no I/O: ``ProxyCache`` asks it what to do and does it. Private cache: the
/// response is for one user (keyed by the credentials sent, ``ProxyCache``), so `private` is
/// storable and `s-maxage` is ignored (§5.2.2.10).
public struct HTTPCachePolicy: Sendable, Hashable {
    /// fetch's `cache` mode (`RequestCache`): how a request uses the cache.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Fresh entries are used, stale ones revalidated, responses stored.
        case `default`
        /// The cache is neither read nor written.
        case noStore = "no-store"
        /// The cache is not read; the response is stored.
        case reload
        /// A stored response is always revalidated first.
        case noCache = "no-cache"
        /// A stored response is used however stale; the network only on a miss.
        case forceCache = "force-cache"
        /// A stored response is used however stale; a miss fails without touching the network.
        case onlyIfCached = "only-if-cached"

        /// The mode named `text` (`default` for none or an unknown name, as a Request would refuse it first).
        public init(fetch text: String?) { self = text.flatMap(Mode.init(rawValue:)) ?? .default }
    }

    /// The `Cache-Control` directives of a request or response that the cache acts on (§5.2).
    public struct Directives: Sendable, Hashable {
        /// `max-age=N` (seconds).
        public var maxAge: Int?
        /// `s-maxage=N`: shared caches only, kept to be ignored knowingly.
        public var sharedMaxAge: Int?
        /// `max-stale` (`Int.max` without a value) — request only.
        public var maxStale: Int?
        /// `min-fresh=N` — request only.
        public var minFresh: Int?
        /// `no-cache` (a response's field-name list is treated as the whole response, §5.2.2.4).
        public var noCache = false
        /// `no-store`.
        public var noStore = false
        /// `must-revalidate` (`proxy-revalidate` binds shared caches only and is ignored).
        public var mustRevalidate = false
        /// `public`.
        public var isPublic = false
        /// `private`.
        public var isPrivate = false
        /// `only-if-cached` — request only.
        public var onlyIfCached = false

        /// Parses `Cache-Control` field values (several fields joined by commas). Unknown
        /// directives are ignored; a malformed delta makes its directive count as absent, except
        /// `max-age`, which then counts as 0 (stale, §4.2.1's "invalid means stale").
        public init(_ fields: [String]) {
            for field in fields {
                for part in Self.split(field) {
                    let equals = part.utf8.firstIndex(of: UInt8(ascii: "="))
                    let name = Self.trimmed(part.utf8[..<(equals ?? part.utf8.endIndex)]).lowercased()
                    let argument = equals.map { Self.trimmed(part.utf8[part.utf8.index(after: $0)...], quotes: true) }
                    let seconds = argument.flatMap(Self.delta)
                    switch name {
                    case "max-age": maxAge = min(maxAge ?? Int.max, seconds ?? 0)
                    case "s-maxage": sharedMaxAge = seconds
                    case "max-stale": maxStale = argument == nil ? Int.max : seconds
                    case "min-fresh": minFresh = seconds
                    case "no-cache": noCache = true
                    case "no-store": noStore = true
                    case "must-revalidate": mustRevalidate = true
                    case "public": isPublic = true
                    case "private": isPrivate = true
                    case "only-if-cached": onlyIfCached = true
                    default: break
                    }
                }
            }
        }

        /// A delta-seconds value (§1.2.2): digits only; too large means "a very large number".
        static func delta(_ text: String) -> Int? {
            guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return Int(text) ?? Int(Int32.max)
        }

        /// Splits at commas outside quoted strings, each part without the whitespace around it.
        /// Bytes, not characters: every cache hit parses a stored `Cache-Control` (RFC 9110's
        /// syntax is ASCII; other bytes pass through untouched).
        static func split(_ field: String) -> [String] {
            var parts: [String] = []
            let bytes = field.utf8
            var start = bytes.startIndex
            var quoted = false
            for index in bytes.indices {
                if bytes[index] == UInt8(ascii: "\"") { quoted.toggle() }
                if bytes[index] == UInt8(ascii: ","), !quoted {
                    parts.append(trimmed(bytes[start..<index]))
                    start = bytes.index(after: index)
                }
            }
            parts.append(trimmed(bytes[start...]))
            return parts.filter { !$0.isEmpty }
        }

        /// `bytes` without the spaces and tabs around them (and, with `quotes`, then without the
        /// double quotes around that).
        static func trimmed(_ bytes: Substring.UTF8View, quotes: Bool = false) -> String {
            func strip(_ bytes: Substring.UTF8View, _ skipped: (UInt8) -> Bool) -> Substring.UTF8View {
                var rest = bytes.drop(while: skipped)
                while let last = rest.last, skipped(last) { rest = rest.dropLast() }
                return rest
            }
            var rest = strip(bytes) { $0 == 0x20 || $0 == 0x09 }
            if quotes { rest = strip(rest) { $0 == 0x22 } }
            return String(Substring(rest))
        }
    }

    /// What the cache does with a request, given what it holds.
    public enum Decision: Sendable, Hashable {
        /// Serve the stored response without the network.
        case serve
        /// Send the request with these conditional headers; a 304 then serves the stored body.
        case revalidate([HTTPCacheEntry.Field])
        /// Send the request as it is (nothing usable stored, or the mode says so).
        case network
        /// Fail without the network: `only-if-cached` and nothing stored (Fetch: a network error).
        case fail
    }

    /// Status codes cacheable by default (RFC 9110 §15.1): heuristic freshness may apply to them.
    public static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The share of the time since `Last-Modified` a heuristic lifetime takes (§4.2.2's "10%").
    public static let heuristicFraction = 0.1
    /// The longest heuristic lifetime given (a day, as browsers cap it), in seconds.
    public static let heuristicCap: Double = 86_400
    /// Request headers whose presence makes fetch's `default` mode `no-store` (Fetch §4.5 step 8.14:
    /// the page is doing its own validation).
    public static let conditionalRequestHeaders: Set<String> = ["if-modified-since", "if-none-match", "if-unmodified-since", "if-match", "if-range"]
    /// Headers a 304 does not change in the stored response (§3.2: the stored body's own framing).
    public static let keptOn304: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range", "connection", "keep-alive"]

    /// fetch's mode as the cache applies it: `default` becomes `no-store` when the page sent its
    /// own conditional headers, and a request `Cache-Control: no-store`/`no-cache` or
    /// `Pragma: no-cache` (without `Cache-Control`) narrows it (§5.2.1, §5.4).
    public static func effectiveMode(_ mode: Mode, requestHeaders: [HTTPCacheEntry.Field]) -> Mode {
        let names = Set(requestHeaders.map { $0.name.lowercased() })
        let control = Directives(values("cache-control", in: requestHeaders))
        if mode == .default, !names.isDisjoint(with: conditionalRequestHeaders) { return .noStore }
        if control.noStore { return .noStore }
        let pragmaNoCache = !names.contains("cache-control")
            && values("pragma", in: requestHeaders).contains { $0.lowercased().contains("no-cache") }
        if mode == .default, control.noCache || pragmaNoCache { return .noCache }
        if mode == .default, control.onlyIfCached { return .onlyIfCached }
        return mode
    }

    /// The headers fetch adds to the request for `mode` before the network (Fetch §4.5 step 8.16–17):
    /// `Cache-Control: max-age=0` for `no-cache`; `Pragma: no-cache` and `Cache-Control: no-cache`
    /// for `no-store` and `reload`; never over the page's own.
    public static func addedRequestHeaders(_ mode: Mode, requestHeaders: [HTTPCacheEntry.Field]) -> [HTTPCacheEntry.Field] {
        let names = Set(requestHeaders.map { $0.name.lowercased() })
        var added: [HTTPCacheEntry.Field] = []
        switch mode {
        case .noCache:
            if !names.contains("cache-control") { added.append(.init("Cache-Control", "max-age=0")) }
        case .noStore, .reload:
            if !names.contains("pragma") { added.append(.init("Pragma", "no-cache")) }
            if !names.contains("cache-control") { added.append(.init("Cache-Control", "no-cache")) }
        default: break
        }
        return added
    }

    /// Whether a response may be stored (§3): a GET's final response with a status the cache
    /// understands, no `no-store` on either side, an `Authorization` request only when the
    /// response allows it (§3.5: `public`, `must-revalidate` or `s-maxage`), and a validator
    /// (`ETag`, `Last-Modified`) or a freshness lifetime over 0.
    public static func isStorable(method: String, requestHeaders: [HTTPCacheEntry.Field], status: Int,
                                  responseHeaders: [HTTPCacheEntry.Field]) -> Bool {
        guard method == "GET", (200..<600).contains(status), status != 206, status != 304 else { return false }
        let request = Directives(values("cache-control", in: requestHeaders))
        let response = Directives(values("cache-control", in: responseHeaders))
        guard !request.noStore, !response.noStore else { return false }
        if values("vary", in: responseHeaders).contains(where: { $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "*" } }) {
            return false
        }
        if !values("authorization", in: requestHeaders).isEmpty,
           !(response.isPublic || response.mustRevalidate || response.sharedMaxAge != nil) {
            return false
        }
        // Worth keeping only when something can reuse it: a validator, or a lifetime. (A response
        // with neither could serve only force-cache; WebKit keeps none of those either.)
        let validator = !values("etag", in: responseHeaders).isEmpty || !values("last-modified", in: responseHeaders).isEmpty
        return validator || freshnessLifetime(status: status, responseHeaders: responseHeaders, responseTime: Date()) > 0
    }

    /// The response's freshness lifetime in seconds (§4.2.1): `max-age`, else `Expires − Date`
    /// (an invalid `Expires` means already stale), else the heuristic for a cacheable status or a
    /// `public` response: 10% of `Date − Last-Modified`, at most a day; else 0.
    public static func freshnessLifetime(status: Int, responseHeaders: [HTTPCacheEntry.Field], responseTime: Date) -> Double {
        let control = Directives(values("cache-control", in: responseHeaders))
        if let maxAge = control.maxAge { return Double(maxAge) }
        let date = values("date", in: responseHeaders).first.flatMap(httpDate) ?? responseTime
        if let expires = values("expires", in: responseHeaders).first {
            guard let instant = httpDate(expires) else { return 0 }
            return max(0, instant.timeIntervalSince(date))
        }
        if heuristicallyCacheable.contains(status) || control.isPublic,
           let modified = values("last-modified", in: responseHeaders).first.flatMap(httpDate) {
            return min(heuristicCap, max(0, date.timeIntervalSince(modified)) * heuristicFraction)
        }
        return 0
    }

    /// The stored response's current age in seconds (§4.2.3).
    public static func currentAge(_ entry: HTTPCacheEntry, now: Date) -> Double {
        let date = values("date", in: entry.headers).first.flatMap(httpDate)
        let apparent = max(0, entry.responseTime.timeIntervalSince(date ?? entry.responseTime))
        let ageValue = values("age", in: entry.headers).first.flatMap { Directives.delta($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let delay = max(0, entry.responseTime.timeIntervalSince(entry.requestTime))
        let corrected = max(apparent, Double(ageValue) + delay)
        return corrected + max(0, now.timeIntervalSince(entry.responseTime))
    }

    /// What to do with a GET in `mode` when `entry` is stored for its URL and credentials
    /// (already matched on `Vary`, ``HTTPCacheEntry/matches(varying:)``), at `now`.
    public static func decide(mode: Mode, requestHeaders: [HTTPCacheEntry.Field], entry: HTTPCacheEntry?, now: Date) -> Decision {
        guard let entry else { return mode == .onlyIfCached ? .fail : .network }
        switch mode {
        case .noStore, .reload: return .network
        case .forceCache, .onlyIfCached: return .serve
        case .noCache: return revalidation(entry)
        case .default: break
        }
        let request = Directives(values("cache-control", in: requestHeaders))
        let response = Directives(values("cache-control", in: entry.headers))
        if response.noCache { return revalidation(entry) }
        let lifetime = freshnessLifetime(status: entry.status, responseHeaders: entry.headers, responseTime: entry.responseTime)
        let age = currentAge(entry, now: now)
        var fresh = age < lifetime
        if let maxAge = request.maxAge, age > Double(maxAge) { fresh = false }
        if let minFresh = request.minFresh, lifetime - age < Double(minFresh) { fresh = false }
        if fresh { return .serve }
        // A stale response may go out only where the request allows staleness and the response
        // does not forbid it (§4.2.4).
        if let maxStale = request.maxStale, !response.mustRevalidate, age - lifetime <= Double(maxStale) { return .serve }
        return revalidation(entry)
    }

    /// The conditional headers for `entry` (§4.3.1): `If-None-Match` with its `ETag`,
    /// `If-Modified-Since` with its `Last-Modified`; none when it has no validator (the request then
    /// goes out plain and replaces the entry).
    static func revalidation(_ entry: HTTPCacheEntry) -> Decision {
        var fields: [HTTPCacheEntry.Field] = []
        if let etag = values("etag", in: entry.headers).first { fields.append(.init("If-None-Match", etag)) }
        if let modified = values("last-modified", in: entry.headers).first { fields.append(.init("If-Modified-Since", modified)) }
        return fields.isEmpty ? .network : .revalidate(fields)
    }

    /// The stored response after a 304 (§4.3.4): its headers updated by the 304's, except those
    /// describing the stored body's framing; the times are the new exchange's.
    public static func updated(_ entry: HTTPCacheEntry, with notModified: [HTTPCacheEntry.Field], requestTime: Date,
                               responseTime: Date) -> HTTPCacheEntry {
        var next = entry
        let replaced = Set(notModified.map { $0.name.lowercased() }).subtracting(keptOn304).subtracting(["set-cookie", "set-cookie2"])
        next.headers.removeAll { replaced.contains($0.name.lowercased()) }
        next.headers += notModified.filter { replaced.contains($0.name.lowercased()) }
        next.requestTime = requestTime
        next.responseTime = responseTime
        return next
    }

    /// Every value of header `name` (case-insensitive), in order.
    public static func values(_ name: String, in headers: [HTTPCacheEntry.Field]) -> [String] {
        headers.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate and the two obsolete forms, which the cookie
    /// date algorithm reads alike); `nil` for anything else.
    static func httpDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 20 else { return nil }
        return CookieDate.parse(trimmed)
    }
}

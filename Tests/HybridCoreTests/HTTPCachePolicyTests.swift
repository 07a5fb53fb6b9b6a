import Foundation
@testable import HybridCore
@testable import HybridNetwork
@testable import HybridBase
import Testing

/// ``HTTPCachePolicy`` against RFC 9111's rules and the Fetch standard's cache modes.
@Suite("HTTP cache policy")
struct HTTPCachePolicyTests {
    typealias Field = HTTPCacheEntry.Field
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The IMF-fixdate `offset` seconds from ``now``.
    static func date(_ offset: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: now.addingTimeInterval(offset))
    }

    /// An entry received `age` seconds before ``now`` with `headers`.
    static func entry(_ headers: [Field], age: Double = 0, status: Int = 200) -> HTTPCacheEntry {
        let received = now.addingTimeInterval(-age)
        return HTTPCacheEntry(url: "https://a.example/x", identity: "anonymous", varying: [:], status: status,
                              headers: headers, body: Data("body".utf8), requestTime: received, responseTime: received)
    }

    static func decide(_ entry: HTTPCacheEntry?, _ mode: HTTPCachePolicy.Mode = .default, request: [Field] = []) -> HTTPCachePolicy.Decision {
        HTTPCachePolicy.decide(mode: mode, requestHeaders: request, entry: entry, now: now)
    }

    @Test func directivesParseAsTheRFCSays() {
        let d = HTTPCachePolicy.Directives(["max-age=60, s-maxage=\"120\", private", "no-cache=\"Set-Cookie\", must-revalidate, max-stale"])
        #expect(d.maxAge == 60 && d.sharedMaxAge == 120 && d.isPrivate && d.noCache && d.mustRevalidate && d.maxStale == Int.max)
        // §4.2.1: an invalid max-age counts as stale; the lowest of duplicates wins.
        #expect(HTTPCachePolicy.Directives(["max-age=abc"]).maxAge == 0)
        #expect(HTTPCachePolicy.Directives(["max-age=600, max-age=5"]).maxAge == 5)
        #expect(HTTPCachePolicy.Directives(["max-age=99999999999999999999"]).maxAge == Int(Int32.max))
        #expect(HTTPCachePolicy.Directives(["x-foo=\"a,b\", no-store"]).noStore)
    }

    @Test func freshnessComesFromMaxAgeThenExpiresThenTheHeuristic() {
        let t = Self.now
        #expect(HTTPCachePolicy.freshnessLifetime(status: 200, responseHeaders: [Field("Cache-Control", "max-age=30"),
                                                                                 Field("Expires", Self.date(900))], responseTime: t) == 30)
        // s-maxage is for shared caches; this one is private.
        #expect(HTTPCachePolicy.freshnessLifetime(status: 200, responseHeaders: [Field("Cache-Control", "s-maxage=300")], responseTime: t) == 0)
        #expect(HTTPCachePolicy.freshnessLifetime(status: 200, responseHeaders: [Field("Date", Self.date(0)), Field("Expires", Self.date(120))],
                                                  responseTime: t) == 120)
        // An invalid Expires means already expired (§5.3).
        #expect(HTTPCachePolicy.freshnessLifetime(status: 200, responseHeaders: [Field("Expires", "0")], responseTime: t) == 0)
        // Heuristic: 10% of the time since Last-Modified, for a status cacheable by default only.
        let modified = [Field("Date", Self.date(0)), Field("Last-Modified", Self.date(-1000))]
        #expect(HTTPCachePolicy.freshnessLifetime(status: 200, responseHeaders: modified, responseTime: t) == 100)
        #expect(HTTPCachePolicy.freshnessLifetime(status: 302, responseHeaders: modified, responseTime: t) == 0)
        #expect(HTTPCachePolicy.freshnessLifetime(status: 200, responseHeaders: [Field("Last-Modified", Self.date(-86_400 * 100))],
                                                  responseTime: t) == HTTPCachePolicy.heuristicCap)
    }

    @Test func ageCountsTheAgeHeaderTheDelayAndTheTimeResident() {
        var stored = Self.entry([Field("Age", "100"), Field("Date", Self.date(-50))], age: 50)
        stored.requestTime = stored.responseTime.addingTimeInterval(-2)
        // corrected initial age = max(apparent 0, 100 + 2) = 102; resident 50.
        #expect(HTTPCachePolicy.currentAge(stored, now: Self.now) == 152)
        // A Date before the response's arrival makes its apparent age count.
        let late = Self.entry([Field("Date", Self.date(-500))], age: 100)
        #expect(HTTPCachePolicy.currentAge(late, now: Self.now) == 500)
    }

    @Test func freshEntriesServeAndStaleOnesRevalidateWithTheirValidators() {
        #expect(Self.decide(Self.entry([Field("Cache-Control", "max-age=60")], age: 10)) == .serve)
        let stale = Self.entry([Field("Cache-Control", "max-age=60"), Field("ETag", "\"v1\""), Field("Last-Modified", Self.date(-900))], age: 61)
        #expect(Self.decide(stale) == .revalidate([Field("If-None-Match", "\"v1\""), Field("If-Modified-Since", Self.date(-900))]))
        // Without a validator the request goes out plain.
        #expect(Self.decide(Self.entry([Field("Cache-Control", "max-age=60")], age: 61)) == .network)
        // Response no-cache: always revalidate, even while fresh.
        #expect(Self.decide(Self.entry([Field("Cache-Control", "no-cache, max-age=600"), Field("ETag", "\"e\"")])) == .revalidate([Field("If-None-Match", "\"e\"")]))
        #expect(Self.decide(nil) == .network)
    }

    @Test func requestDirectivesNarrowOrWidenFreshness() {
        let entry = Self.entry([Field("Cache-Control", "max-age=60"), Field("ETag", "\"v\"")], age: 30)
        #expect(Self.decide(entry, request: [Field("Cache-Control", "max-age=10")]) == .revalidate([Field("If-None-Match", "\"v\"")]))
        #expect(Self.decide(entry, request: [Field("Cache-Control", "min-fresh=40")]) == .revalidate([Field("If-None-Match", "\"v\"")]))
        let stale = Self.entry([Field("Cache-Control", "max-age=60"), Field("ETag", "\"v\"")], age: 90)
        #expect(Self.decide(stale, request: [Field("Cache-Control", "max-stale=60")]) == .serve)
        #expect(Self.decide(stale, request: [Field("Cache-Control", "max-stale=10")]) == .revalidate([Field("If-None-Match", "\"v\"")]))
        // must-revalidate forbids serving stale even when the request accepts it.
        let strict = Self.entry([Field("Cache-Control", "max-age=60, must-revalidate"), Field("ETag", "\"v\"")], age: 90)
        #expect(Self.decide(strict, request: [Field("Cache-Control", "max-stale")]) == .revalidate([Field("If-None-Match", "\"v\"")]))
    }

    @Test func fetchCacheModesDecideAsTheFetchStandardSays() {
        let stale = Self.entry([Field("Cache-Control", "max-age=0"), Field("ETag", "\"v\"")], age: 5)
        let fresh = Self.entry([Field("Cache-Control", "max-age=600"), Field("ETag", "\"v\"")])
        #expect(Self.decide(fresh, .noStore) == .network)
        #expect(Self.decide(fresh, .reload) == .network)
        #expect(Self.decide(fresh, .noCache) == .revalidate([Field("If-None-Match", "\"v\"")]))
        #expect(Self.decide(stale, .forceCache) == .serve)
        #expect(Self.decide(nil, .forceCache) == .network)
        #expect(Self.decide(stale, .onlyIfCached) == .serve)
        #expect(Self.decide(nil, .onlyIfCached) == .fail)
        // The page's own conditional request is not answered from the cache (default → no-store).
        #expect(HTTPCachePolicy.effectiveMode(.default, requestHeaders: [Field("If-None-Match", "\"v\"")]) == .noStore)
        #expect(HTTPCachePolicy.effectiveMode(.forceCache, requestHeaders: [Field("If-None-Match", "\"v\"")]) == .forceCache)
        #expect(HTTPCachePolicy.effectiveMode(.default, requestHeaders: [Field("Pragma", "no-cache")]) == .noCache)
        #expect(HTTPCachePolicy.effectiveMode(.default, requestHeaders: [Field("Cache-Control", "no-store")]) == .noStore)
        #expect(HTTPCachePolicy.addedRequestHeaders(.reload, requestHeaders: []) == [Field("Pragma", "no-cache"), Field("Cache-Control", "no-cache")])
        #expect(HTTPCachePolicy.addedRequestHeaders(.noCache, requestHeaders: []) == [Field("Cache-Control", "max-age=0")])
        #expect(HTTPCachePolicy.addedRequestHeaders(.noCache, requestHeaders: [Field("cache-control", "max-age=5")]).isEmpty)
        #expect(HTTPCachePolicy.Mode(fetch: "only-if-cached") == .onlyIfCached)
        #expect(HTTPCachePolicy.Mode(fetch: nil) == .default)
    }

    @Test func whatIsStoredFollowsSection3() {
        func storable(_ response: [Field], request: [Field] = [], status: Int = 200, method: String = "GET") -> Bool {
            HTTPCachePolicy.isStorable(method: method, requestHeaders: request, status: status, responseHeaders: response)
        }
        let ok = [Field("Cache-Control", "max-age=60")]
        #expect(storable(ok))
        #expect(!storable(ok, method: "POST"))
        #expect(!storable(ok, request: [Field("Cache-Control", "no-store")]))
        #expect(!storable([Field("Cache-Control", "max-age=60, no-store")]))
        #expect(!storable(ok, status: 206))
        #expect(!storable(ok + [Field("Vary", "Accept, *")]))
        // Authorization: only when the response says so (§3.5).
        let authorized = [Field("Authorization", "Bearer t")]
        #expect(!storable(ok, request: authorized))
        #expect(storable([Field("Cache-Control", "max-age=60, public")], request: authorized))
        #expect(storable([Field("Cache-Control", "max-age=60, must-revalidate")], request: authorized))
        #expect(storable([Field("Cache-Control", "s-maxage=60, max-age=60")], request: authorized))
        #expect(!storable([Field("Cache-Control", "max-age=0")]))
        // private is storable by a private cache.
        #expect(storable([Field("Cache-Control", "private, max-age=60")]))
        // No lifetime and no validator: nothing to reuse it for, not stored.
        #expect(!storable([Field("Content-Type", "text/plain")]))
        #expect(storable([Field("ETag", "\"v\"")]))
        #expect(!storable([Field("Location", "/x")], status: 302))
        #expect(storable([Field("Location", "/x"), Field("Cache-Control", "max-age=60")], status: 301))
    }

    @Test func a304UpdatesTheStoredHeadersButNotTheBodysFraming() {
        let stored = Self.entry([Field("Cache-Control", "max-age=0"), Field("ETag", "\"v\""), Field("X-Version", "1"),
                                 Field("Content-Length", "4")], age: 100)
        let updated = HTTPCachePolicy.updated(stored, with: [Field("Cache-Control", "max-age=60"), Field("X-Version", "2"),
                                                             Field("Content-Length", "0"), Field("Set-Cookie", "a=b")],
                                              requestTime: Self.now, responseTime: Self.now)
        #expect(HTTPCachePolicy.values("x-version", in: updated.headers) == ["2"])
        #expect(HTTPCachePolicy.values("cache-control", in: updated.headers) == ["max-age=60"])
        #expect(HTTPCachePolicy.values("content-length", in: updated.headers) == ["4"])
        #expect(HTTPCachePolicy.values("etag", in: updated.headers) == ["\"v\""])
        #expect(HTTPCachePolicy.values("set-cookie", in: updated.headers).isEmpty)
        #expect(updated.body == stored.body && updated.responseTime == Self.now)
        #expect(Self.decide(updated) == .serve)
    }

    @Test func varyMatchesTheStoredRequestHeaders() {
        var entry = Self.entry([Field("Vary", "Accept-Language, X-Absent")])
        entry.varying = ["accept-language": HTTPCacheEntry.normalized([Field("Accept-Language", "en, fr")], "accept-language"), "x-absent": String?.none]
        #expect(entry.matches(varying: [Field("Accept-Language", "en,fr")]))
        #expect(!entry.matches(varying: [Field("Accept-Language", "de")]))
        #expect(!entry.matches(varying: [Field("Accept-Language", "en,fr"), Field("X-Absent", "1")]))
        #expect(HTTPCacheEntry.varyNames([Field("Vary", "Accept-Language, X-Absent")]) == ["accept-language", "x-absent"])
    }
}

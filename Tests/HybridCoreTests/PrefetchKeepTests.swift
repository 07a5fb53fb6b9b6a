import Foundation
import HybridCore
import Testing

/// The prefetch keep (stale-while-revalidate) without an engine: what is kept, for whom, for how
/// long, within which bounds, and what a damaged file on disk becomes. The store is a real
/// directory; the prefetcher's requests go to a port that refuses them, so every "fresh" answer
/// here comes from the store and every refresh fails.
@Suite("Prefetch keep")
struct PrefetchKeepTests {
    static let page = URL(string: "app://m.example.com/item/?id=1")!
    static let api = URL(string: "http://127.0.0.1:1/item?id=1")!
    static let origin = BridgeOrigin(url: page)

    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("prefetch-keep-\(UUID().uuidString)", isDirectory: true)
    }

    static func configuration(_ directory: URL, maxEntries: Int = 256) -> ProxyCache.Configuration {
        ProxyCache.Configuration(directory: directory, maxDiskBytes: 1 << 20, maxMemoryBytes: 0, maxEntryBytes: 64 << 10,
                                 maxEntries: maxEntries)
    }

    static func response(_ body: String, status: Int = 200, headers: [[String]] = [], redirected: Bool = false) -> ProxyResponse {
        ProxyResponse(status: status, statusText: "", url: api.absoluteString, redirected: redirected,
                      headers: [["content-type", "application/json"]] + headers, body: Data(body.utf8))
    }

    static func identity(cookie: String? = "session=a") -> String {
        PrefetchKeepStore.identity(origin: origin, headers: [["Accept", "application/json"]], cookie: cookie)
    }

    @Test func freshThenStaleThenGone() throws {
        let store = PrefetchKeepStore(configuration: Self.configuration(Self.directory()))
        let keep = PrefetchKeep(maxAge: 10, maxStale: 100)
        let received = Date(timeIntervalSince1970: 1_000_000)
        #expect(store.keep(Self.response(#"{"n":1}"#), url: Self.api, identity: Self.identity(), sent: received, received: received))
        let fresh = store.lookup(url: Self.api, identity: Self.identity(), keep: keep, now: received.addingTimeInterval(5))
        #expect(fresh?.stale == false)
        #expect(fresh?.response.text == #"{"n":1}"#)
        #expect(fresh?.response.status == 200 && fresh?.response.statusText == "OK")
        #expect(store.lookup(url: Self.api, identity: Self.identity(), keep: keep, now: received.addingTimeInterval(50))?.stale == true)
        // Past maxAge + maxStale: never handed out, and removed.
        #expect(store.lookup(url: Self.api, identity: Self.identity(), keep: keep, now: received.addingTimeInterval(111)) == nil)
        #expect(store.lookup(url: Self.api, identity: Self.identity(), keep: keep, now: received.addingTimeInterval(5)) == nil)
        // One from the future (the clock moved back) is not handed out either.
        store.keep(Self.response("{}"), url: Self.api, identity: Self.identity(), sent: received, received: received)
        #expect(store.lookup(url: Self.api, identity: Self.identity(), keep: keep, now: received.addingTimeInterval(-60)) == nil)
    }

    @Test func anotherCookieOriginOrHeaderSetFindsNothingAndNoRawCookieIsOnDisk() throws {
        let directory = Self.directory()
        let store = PrefetchKeepStore(configuration: Self.configuration(directory))
        let keep = PrefetchKeep(maxAge: 60), now = Date()
        store.keep(Self.response("{}"), url: Self.api, identity: Self.identity(cookie: "session=secret-a"), sent: now, received: now)
        #expect(store.lookup(url: Self.api, identity: Self.identity(cookie: "session=secret-a"), keep: keep, now: now) != nil)
        #expect(store.lookup(url: Self.api, identity: Self.identity(cookie: "session=secret-b"), keep: keep, now: now) == nil)
        #expect(store.lookup(url: Self.api, identity: Self.identity(cookie: nil), keep: keep, now: now) == nil)
        let otherOrigin = PrefetchKeepStore.identity(origin: BridgeOrigin(url: URL(string: "https://evil.example/")!),
                                                     headers: [["Accept", "application/json"]], cookie: "session=secret-a")
        #expect(store.lookup(url: Self.api, identity: otherOrigin, keep: keep, now: now) == nil)
        let otherHeaders = PrefetchKeepStore.identity(origin: Self.origin, headers: [["Accept", "text/html"]], cookie: "session=secret-a")
        #expect(store.lookup(url: Self.api, identity: otherHeaders, keep: keep, now: now) == nil)
        #expect(store.lookup(url: URL(string: "http://127.0.0.1:1/item?id=2")!, identity: Self.identity(cookie: "session=secret-a"),
                             keep: keep, now: now) == nil)
        for file in try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil) {
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("secret-a".utf8)) == nil, "the cookie's value is never written")
        }
    }

    @Test func errorsRedirectsAndNoStoreAreNeverKept() throws {
        let store = PrefetchKeepStore(configuration: Self.configuration(Self.directory()))
        let now = Date()
        for refused in [Self.response("{}", status: 500), Self.response("{}", status: 404), Self.response("{}", redirected: true),
                        Self.response("{}", headers: [["cache-control", "private, no-store"]])] {
            #expect(!PrefetchKeepStore.isKeepable(refused))
            #expect(!store.keep(refused, url: Self.api, identity: Self.identity(), sent: now, received: now))
        }
        #expect(store.lookup(url: Self.api, identity: Self.identity(), keep: PrefetchKeep(maxAge: 60), now: now) == nil)
        #expect(PrefetchKeepStore.isKeepable(Self.response("{}", status: 204)))
    }

    @Test func boundedInCountAndCorruptFilesAreRemoved() throws {
        let directory = Self.directory()
        let store = PrefetchKeepStore(configuration: Self.configuration(directory, maxEntries: 3))
        let keep = PrefetchKeep(maxAge: 60), now = Date()
        let urls = (1...5).map { URL(string: "http://127.0.0.1:1/item?id=\($0)")! }
        for url in urls { store.keep(Self.response("{}"), url: url, identity: Self.identity(), sent: now, received: now) }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".entry") }
        #expect(files.count == 3, "at most maxEntries on disk")
        #expect(store.lookup(url: urls[0], identity: Self.identity(), keep: keep, now: now) == nil, "the least recently used went first")
        #expect(store.lookup(url: urls[4], identity: Self.identity(), keep: keep, now: now) != nil)

        // Each kind of damage: nothing handed out, the file gone (maxMemoryBytes 0: every lookup
        // reads the file).
        for damage in [{ (data: Data) in data.dropLast(3) }, { _ in Data("HKCACHE1\nurl x\n".utf8) }, { _ in Data() },
                       { data in var changed = data; changed[changed.count - 2] ^= 0x20; return changed }] {
            store.keep(Self.response(#"{"a":1}"#), url: urls[4], identity: Self.identity(), sent: now, received: now)
            let file = try #require(try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil).first {
                $0.pathExtension == "entry" && ((try? Data(contentsOf: $0))?.range(of: Data("id=5\n".utf8)) != nil)
            })
            #expect(store.lookup(url: urls[4], identity: Self.identity(), keep: keep, now: now) != nil)
            try damage(try Data(contentsOf: file)).write(to: file)
            #expect(store.lookup(url: urls[4], identity: Self.identity(), keep: keep, now: now) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path), "a damaged file is removed")
        }
    }

    @Test func keptResponsesSurviveANewStoreOnTheSameDirectory() throws {
        let directory = Self.directory()
        let now = Date()
        PrefetchKeepStore(configuration: Self.configuration(directory))
            .keep(Self.response(#"{"kept":true}"#), url: Self.api, identity: Self.identity(), sent: now, received: now)
        // What a relaunched app opens: a cache indexing the files already in the directory.
        let relaunched = ProxyCache(configuration: Self.configuration(directory))
        let entry = try #require(relaunched.entry(url: Self.api.absoluteString, identity: Self.identity()))
        #expect(String(decoding: entry.body, as: UTF8.self) == #"{"kept":true}"#)
    }

    @Test func keepsAreValidated() throws {
        #expect(PrefetchKeep(maxAge: 60, maxStale: 86_400).invalidReason == nil)
        #expect(PrefetchKeep(maxAge: 0, maxStale: 60).invalidReason == nil)
        for bad in [PrefetchKeep(maxAge: 0), PrefetchKeep(maxAge: -1), PrefetchKeep(maxAge: .infinity), PrefetchKeep(maxAge: 10, maxStale: .nan),
                    PrefetchKeep(maxAge: 1, maxStale: PrefetchKeep.maximumSeconds)] {
            #expect(bad.invalidReason != nil)
        }
        let json = #"{"key":"item","url":"https://api.example.com/i?id={query.id}","keep":{"maxAge":60,"maxStale":600}}"#
        let declaration = try JSONDecoder().decode(PrefetchDeclaration.self, from: Data(json.utf8))
        #expect(declaration.keep == PrefetchKeep(maxAge: 60, maxStale: 600))
        let rule = try declaration.prefetchRule(pages: try ConfigURLPattern("*"), allowedTargets: [OriginPattern("https://api.example.com")],
                                                rule: "r")
        #expect(rule.keep == PrefetchKeep(maxAge: 60, maxStale: 600))
        var bad = declaration
        bad.keep = PrefetchKeep(maxAge: -5)
        #expect(throws: HybridError.self) { try bad.validate(rule: "r") }
    }

    @Test func aStaleKeptResponseIsHandedOutAtOnceAndAFailedRefreshKeepsIt() async throws {
        let directory = Self.directory()
        let keep = PrefetchKeep(maxAge: 10, maxStale: 1000)
        let rule = PrefetchRule(pages: try ConfigURLPattern("app://m.example.com/item/*"), key: "item",
                                url: "http://127.0.0.1:1/item?id={query.id}", withCookies: false, keep: keep)
        let prefetcher = try DataPrefetcher(rules: [rule], jar: nil, keepStore: Self.configuration(directory))
        let store = try #require(prefetcher.keepStore)
        let identity = PrefetchKeepStore.identity(origin: Self.origin, headers: [], cookie: nil)
        let old = Date().addingTimeInterval(-100)
        store.keep(Self.response(#"{"n":"kept"}"#), url: Self.api, identity: identity, sent: old, received: old)

        prefetcher.start(for: Self.page)
        let kept = try #require(prefetcher.kept("item", page: Self.page.absoluteString, origin: Self.origin))
        #expect(kept.stale && kept.refreshing && kept.age >= 100)
        #expect(kept.response.text == #"{"n":"kept"}"#)
        #expect(prefetcher.kept("item", page: Self.page.absoluteString, origin: BridgeOrigin(url: URL(string: "https://other.example/")!)) == nil)
        // Port 1 refuses: the refresh fails, its error reaches `fresh`, and the kept copy stays.
        await #expect(throws: HybridError.self) { try await prefetcher.fresh("item", page: Self.page.absoluteString, origin: Self.origin) }
        #expect(store.lookup(url: Self.api, identity: identity, keep: keep, now: Date())?.response.text == #"{"n":"kept"}"#)
        // An existing caller (`take`) gets the freshest there is: the kept one, as the refresh failed.
        prefetcher.start(for: Self.page)
        #expect(await prefetcher.take("item", page: Self.page.absoluteString, origin: Self.origin)?.text == #"{"n":"kept"}"#)

        // Fresh (within maxAge): handed out with no request, and `fresh` has nothing newer.
        let now = Date()
        store.keep(Self.response(#"{"n":"fresh"}"#), url: Self.api, identity: identity, sent: now, received: now)
        prefetcher.start(for: Self.page)
        let fresh = try #require(prefetcher.kept("item", page: Self.page.absoluteString, origin: Self.origin))
        #expect(!fresh.stale && !fresh.refreshing)
        #expect(try await prefetcher.fresh("item", page: Self.page.absoluteString, origin: Self.origin) == nil)
    }
}

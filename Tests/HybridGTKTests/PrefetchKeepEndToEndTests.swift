import Foundation
import HybridCore
import HybridFixtures
import HybridServer
import Testing

/// Stale-while-revalidate in the real engine (a rule's `keep`): the second open of a page renders
/// the response kept from the first at once and then gets the network's; another cookie identity
/// finds nothing kept; past max-stale the page waits for the network. The server counts every
/// API request and answers with that count, so which response the page got is seen, not guessed.
@Suite("First screen: kept prefetch (stale-while-revalidate)", .serialized)
@MainActor
struct PrefetchKeepEndToEndTests {
    static let read = PrefetchEndToEndTests.read + """
        const copies = async (key) => {
          const got = await hybrid.prefetched(key, { stale: true });
          let freshSettled = false;
          got.fresh.then(() => { freshSettled = true; }, () => { freshSettled = true; });
          const data = await read(got.data);
          const beforeFresh = !freshSettled;
          const next = await got.fresh;
          return { data, age: got.age, stale: got.stale, beforeFresh, fresh: next && await read(next.data), freshAge: next && next.age };
        };
        """

    @Test(arguments: EngineKind.allCases)
    func theNextOpenRendersTheKeptDataAtOnceThenTheFreshOneAndNeverAnotherIdentitysOrPastMaxStale(_ kind: EngineKind) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = Locked(0), delay = Locked(0)
        rig.server.route("/api/kept") { _ in
            hits.mutate { $0 += 1 }
            let response = ServerResponse(status: 200, headers: ["Content-Type": "application/json"],
                                          body: Data(#"{"served":\#(hits.value)}"#.utf8))
            return delay.value > 0 ? response.delayed(by: .milliseconds(delay.value)) : response
        }
        rig.page("/kept/page", "<!doctype html><title>kept</title><p>kept page</p>")
        let port = rig.url("/").port ?? 0
        let api = URL(string: "http://127.0.0.1:\(port)/api/kept")!
        let jar = CookieJar()
        jar.setCookies(fromHeaders: ["session=alice"], for: api)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("keep-e2e-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Always stale (maxAge 0): every open refreshes; kept for 3 s past that.
        let prefetcher = try DataPrefetcher(rules: [PrefetchRule(
            pages: try ConfigURLPattern("*://*:\(port)/kept/*"), key: "item", url: api.absoluteString,
            keep: PrefetchKeep(maxAge: 0, maxStale: 3))], jar: jar, keepStore: ProxyCache.Configuration(directory: directory))
        var configuration = HybridWebViewConfiguration()
        configuration.modules = [PrefetchModule(prefetcher: prefetcher, allowedOrigins: [OriginPattern("http://127.0.0.1:\(port)")])]
        configuration.engine.userScripts.append(prefetcher.userScript)
        configuration.prefetcher = prefetcher
        let view = try rig.view(configuration)
        let page = rig.server.url("/kept/page")
        func open() async throws -> JSONValue {
            try await view.engine.waitForLoad(timeout: 20) { view.open(page) }
            return try await view.engine.callAsync("await hybrid.ready;" + Self.read + "return await copies('item');")
        }

        // With nothing kept, the first response the page sees is the network's: in `fresh`, or as
        // `data` (not stale) when it arrived before the page asked.
        func firstSeen(_ result: JSONValue) -> JSONValue? {
            #expect(result["stale"] == false)
            return result["data"] == .null ? result["fresh"]?["body"] : result["data"]?["body"]
        }

        // First open: nothing kept; the network's response, which is kept.
        let first = try await open()
        #expect(firstSeen(first) == ["served": 1])

        // Second open, the API now slow: the kept response at once (stale, with its age), the
        // network's after it.
        delay.set(800)
        let second = try await open()
        #expect(second["data"]?["body"] == ["served": 1], "\(kind): the kept response")
        #expect(second["stale"] == true)
        #expect(second["beforeFresh"] == true, "rendered before the network's response arrived")
        #expect((second["age"]?.numberValue ?? -1) >= 0)
        #expect(second["fresh"]?["body"] == ["served": 2], "then the network's")
        #expect((second["freshAge"]?.numberValue ?? -1) >= 0 && (second["freshAge"]?.numberValue ?? 99) < (second["age"]?.numberValue ?? 0) + 1)

        // Another cookie identity (a sign-in as someone else): nothing kept for it.
        delay.set(0)
        jar.setCookies(fromHeaders: ["session=mallory"], for: api)
        let other = try await open()
        #expect(firstSeen(other) == ["served": 3], "nothing kept for another identity")
        // An existing caller of `hybrid.prefetched(key)` gets the freshest: the network's.
        jar.setCookies(fromHeaders: ["session=alice"], for: api)
        try await view.engine.waitForLoad(timeout: 20) { view.open(page) }
        let legacy = try await view.engine.callAsync("await hybrid.ready;" + Self.read + "return await read(await hybrid.prefetched('item'));")
        #expect(legacy["body"] == ["served": 4])

        // Past max-stale: nothing handed out; the page waits for the network.
        try await Task.sleep(for: .milliseconds(3200))
        let expired = try await open()
        #expect(firstSeen(expired) == ["served": 5], "never after max-stale")
        #expect(hits.value == 5, "one request per open")
    }
}

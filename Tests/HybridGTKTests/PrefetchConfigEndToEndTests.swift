import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Prefetch declared by a remote-config rule, in the real engine: the app's open starts it, the
/// page's own `fetch` is answered from it without a second request, and a page origin the app
/// did not list never gets it (its request goes to the network).
@Suite("First screen: prefetch from remote config", .serialized)
@MainActor
struct PrefetchConfigEndToEndTests {
    /// The page fetches its data at once and leaves what it got in `window.__done`.
    static let page = """
        <!doctype html><title>item</title><script>
        (async () => {
          const id = new URLSearchParams(location.search).get('item');
          const response = await fetch('/api/item?id=' + id);
          return { status: response.status, item: response.headers.get('x-item'), body: await response.json() };
        })().then((value) => { window.__done = value; }, (error) => { window.__done = { error: String(error) }; });
        </script><p>item page</p>
        """

    static func run(_ kind: EngineKind, pageOrigins: (Int) -> [OriginPattern]) async throws -> (done: JSONValue, hits: Int, untaken: Int?) {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        let hits = Locked(0)
        rig.server.route("/api/item") { request in
            hits.mutate { $0 += 1 }
            let body = #"{"id":"\#(request.query("id") ?? "")","served":\#(hits.value)}"#
            return ServerResponse(status: 200, headers: ["Content-Type": "application/json", "X-Item": "yes"], body: Data(body.utf8))
                .delayed(by: .milliseconds(200))
        }
        rig.page("/prefetch/page", page)
        let port = rig.url("/").port ?? 0
        let config = try RemoteConfig.decode(Data("""
            {"format": 1, "version": 1, "created": "2026-01-01T00:00:00Z", "expires": "2036-01-01T00:00:00Z",
             "killSwitch": false, "engines": {},
             "rules": [
               {"id": "item", "match": "http://127.0.0.1:\(port)/prefetch/*",
                "features": {"prefetch": [{"key": "item", "url": "http://127.0.0.1:\(port)/api/item?id={query.item}",
                                           "headers": {"Accept": "application/json"}, "maxAge": 20}]}},
               {"id": "default", "match": "*", "features": {}}]}
            """.utf8))
        let url = rig.url("/prefetch/page?item=42")
        let decision = config.features(for: url, installID: "e2e")
        let provisions = try FeatureProvisions(jar: CookieJar())
        provisions.prefetchTargets = [OriginPattern("http://127.0.0.1:\(port)")]
        provisions.prefetchOrigins = pageOrigins(port)
        let view = try await HybridWebView.open(decision, engines: EngineRegistry(defaultProvider: rig.provider), provisions: provisions)
        defer { view.close() }
        try await view.engine.waitUntil("window.__done", timeout: 15)
        let done = try await view.engine.evaluate("window.__done")
        return (done, hits.value, view.configuration.prefetcher?.pending)
    }

    @Test(arguments: EngineKind.allCases)
    func aConfigDeclaredPrefetchAnswersThePagesOwnFetch(_ kind: EngineKind) async throws {
        let (done, hits, untaken) = try await Self.run(kind) { [OriginPattern("http://127.0.0.1:\($0)")] }
        #expect(done["body"] == ["id": "42", "served": 1])
        #expect(done["status"] == 200)
        #expect(done["item"] == "yes", "the server's headers")
        #expect(hits == 1, "the page's fetch was answered by the prefetch, not a second request")
        #expect(untaken == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func aPageOriginTheAppDidNotListNeverGetsIt(_ kind: EngineKind) async throws {
        let (done, hits, untaken) = try await Self.run(kind) { [OriginPattern("http://localhost:\($0)")] }
        #expect(done["body"]?["id"] == "42")
        #expect(done["body"]?["served"] == 2, "the page's own request went to the network")
        #expect(hits == 2)
        #expect(untaken == 1, "started at the open, never handed out")
    }
}

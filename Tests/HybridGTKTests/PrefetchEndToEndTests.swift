import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// Data prefetch in the real engine: the request the app starts at open answers the page's own
/// `fetch` (or `hybrid.prefetched`) once, with what the server sent, and never another origin,
/// another page, other credentials or an expired one. The server counts every API request, so a
/// duplicate or a miss is seen, not guessed.
@Suite("First screen: data prefetch", .serialized)
@MainActor
struct PrefetchEndToEndTests {
    @MainActor
    final class Fixture {
        let rig: LifecycleRig
        let hits = Locked(0)
        let prefetcher: DataPrefetcher
        let view: HybridWebView

        init(_ kind: EngineKind, withCookies: Bool = true, maxAge: Double = 10) throws {
            rig = try LifecycleRig(kind)
            let hits = self.hits
            rig.server.route("/api/item") { request in
                hits.mutate { $0 += 1 }
                let body = #"{"id":"\#(request.query("id") ?? "")","served":\#(hits.value)}"#
                var response = ServerResponse(status: 200, headers: ["Content-Type": "application/json", "X-Item": "yes"], body: Data(body.utf8))
                response.headers.add("Access-Control-Allow-Origin", "*")
                let delay = request.query("delay").flatMap(Int.init) ?? 0
                return delay > 0 ? response.delayed(by: .milliseconds(delay)) : response
            }
            rig.page("/prefetch/page", "<!doctype html><title>item</title><p>item page</p>")
            let port = rig.url("/").port ?? 0
            prefetcher = try DataPrefetcher(rules: [PrefetchRule(
                pages: try ConfigURLPattern("*://*:\(port)/prefetch/*"), key: "item",
                url: "http://127.0.0.1:\(port)/api/item?id={query.item}&delay={query.delay}", withCookies: withCookies, maxAge: maxAge)],
                jar: CookieJar())
            var configuration = HybridWebViewConfiguration()
            configuration.modules = [PrefetchModule(prefetcher: prefetcher, allowedOrigins: [
                OriginPattern("http://127.0.0.1:\(port)"), OriginPattern("http://localhost:\(port)"),
            ])]
            configuration.engine.userScripts.append(prefetcher.userScript)
            configuration.prefetcher = prefetcher
            view = try rig.view(configuration)
        }

        func page(_ item: String, delay: Int = 0, host: String = "127.0.0.1") -> URL {
            rig.server.url("/prefetch/page?item=\(item)&delay=\(delay)", host: host)
        }

        /// Opens `url` as an app does: the prefetch starts, then the view loads.
        func open(_ url: URL, prefetch: Bool = true) async throws {
            if prefetch { prefetcher.start(for: url) }
            try await view.loadAndWait(url)
            _ = try await view.engine.callAsync("await hybrid.ready; return true")
        }

        func js(_ body: String) async throws -> JSONValue { try await view.engine.callAsync(body) }

        /// Opens `url` with ``HybridWebView/open(_:)``: the prefetch starts and its response is
        /// pushed into the document once both exist. Waits for the load, not for the push.
        func openPushing(_ url: URL) async throws {
            try await view.engine.waitForLoad(timeout: 20) { view.open(url) }
        }

        /// Item 5 (prefetched without cookies): the page's same-origin fetch sends cookies and goes
        /// to the network; the same fetch with `credentials: 'omit'` is answered from the prefetch.
        func expectOnlyACookielessRequestIsAnswered() async throws {
            let result = try await js(PrefetchEndToEndTests.read + """
                const withCookies = await read(await fetch('/api/item?id=5&delay=0'));
                const omitted = await read(await fetch('/api/item?id=5&delay=0', { credentials: 'omit' }));
                return { withCookies, omitted };
                """)
            #expect(result["withCookies"]?["body"]?["served"] == 2, "same-origin credentials send cookies: not the prefetch")
            #expect(result["omitted"]?["body"]?["served"] == 1, "credentials 'omit': the prefetch")
        }

        /// Waits until the container pushed `key` into the document (the page has not asked).
        func waitForPush(_ key: String) async throws {
            try await view.engine.waitUntil("window.__hybridkitPrefetchEarly.has('\(key)')", timeout: 10)
        }
    }

    static let read = """
        const read = async (r) => r && { status: r.status, type: r.headers.get('content-type'), item: r.headers.get('x-item'),
                                         url: r.url, body: await r.json() };
        """

    @Test(arguments: EngineKind.allCases)
    func thePagesOwnFetchIsAnsweredOnceFromThePrefetchEvenWhileItIsInFlight(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        // The API takes 400 ms: the page asks while the prefetch is still in flight.
        try await fixture.open(fixture.page("42", delay: 400))
        let result = try await fixture.js(Self.read + """
            const prefetched = await read(await fetch('/api/item?id=42&delay=400'));
            const again = await hybrid.prefetched('item');
            const direct = await read(await fetch('/api/item?id=43'));
            return { prefetched, again, direct };
            """)
        // One request reached the server for item 42: the prefetch, which the page waited for.
        #expect(result["prefetched"]?["body"] == ["id": "42", "served": 1])
        #expect(result["again"] == .null, "a prefetched response is used once")
        #expect(fixture.hits.value == 2)
        // What the page saw is what the engine's own fetch shows for the same kind of request.
        for field in ["status", "type", "item"] {
            #expect(result["prefetched"]?[field] == result["direct"]?[field], "\(kind) \(field)")
        }
        #expect(result["prefetched"]?["url"] == .string(fixture.rig.url("/api/item?id=42&delay=400").absoluteString))
    }

    @Test(arguments: EngineKind.allCases)
    func explicitlyByKeyAndNeverForAnotherOriginOrPage(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        try await fixture.open(fixture.page("1"))
        let explicit = try await fixture.js(Self.read + "return await read(await hybrid.prefetched('item'));")
        #expect(explicit["body"] == ["id": "1", "served": 1])
        // Started for 127.0.0.1, opened at localhost (another origin the module serves): nothing.
        fixture.prefetcher.start(for: fixture.page("2"))
        try await fixture.open(fixture.page("2", host: "localhost"), prefetch: false)
        #expect(try await fixture.js("return await hybrid.prefetched('item');") == .null)
        // Another page of the right origin (a pooled view's next page) gets nothing either.
        try await fixture.open(fixture.page("3"), prefetch: false)
        #expect(try await fixture.js("return await hybrid.prefetched('item');") == .null)
        let own = try await fixture.js(Self.read + "return await read(await fetch('/api/item?id=3&delay=0'));")
        #expect(own["body"]?["id"] == "3", "the page's own request goes to the network")
        // The page that was prefetched for still gets its response.
        try await fixture.open(fixture.page("2"), prefetch: false)
        let late = try await fixture.js(Self.read + "return await read(await hybrid.prefetched('item'));")
        #expect(late["body"]?["id"] == "2")
        #expect(fixture.hits.value == 3)
    }

    @Test(arguments: EngineKind.allCases)
    func anExpiredPrefetchOrOtherCredentialsGoToTheNetwork(_ kind: EngineKind) async throws {
        let expiring = try Fixture(kind, maxAge: 0.2)
        defer { expiring.rig.close() }
        expiring.prefetcher.start(for: expiring.page("9"))
        // maxAge passes (the prefetcher's own clock): the response expires.
        try await eventually("the prefetch to expire") { expiring.prefetcher.pending == 0 }
        try await expiring.open(expiring.page("9"), prefetch: false)
        let expired = try await expiring.js(Self.read + "return await read(await fetch('/api/item?id=9&delay=0'));")
        #expect(expired["body"] == ["id": "9", "served": 2], "the page's own request, after the expired prefetch")

        // A prefetch made without cookies never answers a request that sends them, and does
        // answer one that does not.
        let cookieless = try Fixture(kind, withCookies: false)
        defer { cookieless.rig.close() }
        try await cookieless.open(cookieless.page("5"))
        try await cookieless.expectOnlyACookielessRequestIsAnswered()
        #expect(cookieless.hits.value == 2)
    }
}

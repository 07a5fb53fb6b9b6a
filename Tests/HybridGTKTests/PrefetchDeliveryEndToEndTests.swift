import Foundation
import HybridCore
import HybridFixtures
import Testing

/// The prefetched response pushed into the document as soon as the document and the response
/// both exist (``HybridWebView/open(_:)``): the page takes it without a bridge round trip, once,
/// with the credentials it was made with, and the document of another page never gets it.
@Suite("First screen: prefetch pushed into the document", .serialized)
@MainActor
struct PrefetchDeliveryEndToEndTests {
    typealias Fixture = PrefetchEndToEndTests.Fixture

    @Test(arguments: EngineKind.allCases)
    func theResponseReachesTheDocumentBeforeThePageAsksAndOnlyOnce(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        // The API takes 300 ms: the document exists long before the response, which follows it in.
        try await fixture.openPushing(fixture.page("42", delay: 300))
        try await fixture.waitForPush("item")
        #expect(fixture.prefetcher.pending == 0, "handed to the document: the bridge has nothing left to take")
        let result = try await fixture.js(PrefetchEndToEndTests.read + """
            const pushed = await read(await hybrid.prefetched('item'));
            const again = await hybrid.prefetched('item');
            const own = await read(await fetch('/api/item?id=42&delay=0'));
            return { pushed, again, own };
            """)
        #expect(result["pushed"]?["body"] == ["id": "42", "served": 1])
        #expect(result["pushed"]?["status"] == 200)
        #expect(result["pushed"]?["item"] == "yes", "the server's headers")
        #expect(result["pushed"]?["url"] == .string(fixture.rig.url("/api/item?id=42&delay=300").absoluteString))
        #expect(result["again"] == .null, "used once")
        #expect(result["own"]?["body"]?["served"] == 2, "a second fetch of the URL goes to the network")
        #expect(fixture.hits.value == 2)
    }

    @Test(arguments: EngineKind.allCases)
    func aPushedResponseKeepsItsCredentialsAndStaysWithItsDocument(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind, withCookies: false)
        defer { fixture.rig.close() }
        try await fixture.openPushing(fixture.page("5"))
        try await fixture.waitForPush("item")
        try await fixture.expectOnlyACookielessRequestIsAnswered()

        // Started for item 6, the view opens item 7 (another page of the origin): nothing is pushed
        // into item 7's document, and item 6's response waits for its own page.
        fixture.prefetcher.start(for: fixture.page("6"))
        try await fixture.openPushing(fixture.page("7"))
        try await fixture.waitForPush("item")    // item 7's own prefetch
        let seven = try await fixture.js(PrefetchEndToEndTests.read + "return await read(await hybrid.prefetched('item'));")
        #expect(seven["body"]?["id"] == "7")
        #expect(fixture.prefetcher.pending == 1, "item 6's response is still there for item 6")
        // A page cannot plant a response for another page's URL.
        let planted = try await fixture.js("""
            return window.__hybridkitPrefetchEarly.deliver(location.origin + '/prefetch/page?item=6&delay=0', 'x', false, { status: 200 });
            """)
        #expect(planted == false)
    }

    @Test(arguments: EngineKind.allCases)
    func aForeignOriginFrameCannotReadAPushedResponse(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        // A frame of another origin (localhost) inside the prefetched page (127.0.0.1) reaches for
        // the page's pushed responses and reports what it got.
        fixture.rig.page("/prefetch/foreign", """
            <!doctype html><script>
            let got;
            try { got = JSON.stringify(window.parent.__hybridkitPrefetchEarly.take('item')); } catch (e) { got = e.name; }
            window.parent.postMessage({ foreign: got, own: typeof window.__hybridkitPrefetchEarly }, '*');
            </script>
            """)
        fixture.rig.page("/prefetch/framed", """
            <!doctype html><title>framed</title><script>
            addEventListener('message', (event) => { window.__foreign = event.data; });
            </script><iframe src="\(fixture.rig.server.url("/prefetch/foreign", host: "localhost").absoluteString)"></iframe>
            """)
        try await fixture.openPushing(fixture.rig.server.url("/prefetch/framed?item=11&delay=200"))
        try await fixture.waitForPush("item")
        try await fixture.view.engine.waitUntil("window.__foreign", timeout: 10)
        let foreign = try await fixture.js("return window.__foreign;")
        #expect(foreign["foreign"] == "SecurityError", "the frame cannot touch the page's pushed responses")
        #expect(foreign["own"] == "undefined", "and has none of its own: the page script is for the main frame only")
        let own = try await fixture.js(PrefetchEndToEndTests.read + "return await read(await hybrid.prefetched('item'));")
        #expect(own["body"] == ["id": "11", "served": 1], "the page still gets its response")
    }

    @Test(arguments: EngineKind.allCases)
    func aPushedResponseThePageNeverTookDoesNotReachTheNextPage(_ kind: EngineKind) async throws {
        let fixture = try Fixture(kind)
        defer { fixture.rig.close() }
        try await fixture.openPushing(fixture.page("20"))
        try await fixture.waitForPush("item")
        // The page never asks; the view shows the next page (as a reused view would), opened
        // without a prefetch of its own.
        try await fixture.open(fixture.page("21"), prefetch: false)
        let next = try await fixture.js(PrefetchEndToEndTests.read + """
            const pushed = window.__hybridkitPrefetchEarly.has('item');
            const explicit = await hybrid.prefetched('item');
            const own = await read(await fetch('/api/item?id=21&delay=0'));
            return { pushed, explicit, own };
            """)
        #expect(next["pushed"] == false)
        #expect(next["explicit"] == .null)
        #expect(next["own"]?["body"] == ["id": "21", "served": 2], "its own request, to the network")
        #expect(fixture.prefetcher.pending == 0, "item 20's response went with its document")
    }
}

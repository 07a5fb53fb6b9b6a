import Foundation
import HybridCore
import HybridServer
import HybridFixtures
import Testing

/// A page restored from the page cache calls the container from its `resume` handler at once:
/// those calls race the transport's re-announcement of the document, and must never lose it.
@Suite("Lifecycle: bridge calls made on resume from the page cache", .serialized)
@MainActor
struct LifecycleResumeBridgeTests {
    @Test(arguments: EngineKind.allCases, [BridgeTransport.isolatedReply, .isolatedCallback, .pageReply, .pageCallback, .url])
    func aResumeHandlersCallIsAnsweredEveryTime(kind: EngineKind, transport: BridgeTransport) async throws {
        let rig = try LifecycleRig(kind)
        defer { rig.close() }
        rig.page("/a", """
            <title>A</title><p>a</p><script>
            window.__results = [];
            hybrid.on('resume', function () {
              hybrid.call('navigation', 'setTitle', { title: 'A again' }).then(
                function () { __results.push('ok'); },
                function (e) { __results.push(e.code || String(e)); });
            });
            </script>
            """)
        rig.page("/b", "<title>B</title><p>b</p>")
        var configuration = HybridWebViewConfiguration()
        configuration.navigationModuleOrigins = [OriginPattern(BridgeOrigin(url: rig.url("/"))!.description)]
        configuration.bridgeOptions.transport = transport
        let view = try rig.view(configuration)
        try await view.loadAndWait(rig.url("/a"))

        // With a page cache, each round restores the same document from it (the call races the
        // transport's re-announcement). Without one (Blink, declared; docs/engines.md), a back
        // navigation is a new document with nothing to resume, so the rounds resume the page by
        // showing it again instead: the same handler, the same call, answered every time.
        let pageCache = kind.capabilities.contains(.backForwardCache)
        let rounds = 5
        for round in 1...rounds {
            if pageCache {
                try await view.loadAndWait(rig.url("/b"))
                view.goBack()
            } else {
                view.setVisible(false)
                view.setVisible(true)
            }
            try await eventually("the resume call of round \(round) to settle") {
                try await view.page("return window.__results ? __results.length : -1") == .number(Double(round))
            }
        }
        // Every round restored the same document (its results survived), and no call was refused.
        let results = try await view.page("return window.__results")
        #expect(results == .array(Array(repeating: .string("ok"), count: rounds)))
        #expect(view.state.title == "A again")
    }
}

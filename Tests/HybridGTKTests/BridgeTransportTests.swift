import Foundation
import HybridCore
import HybridFixtures
import Testing

@Suite("Every bridge transport gives the page the same API", .serialized)
@MainActor
struct BridgeTransportTests {
    static let pages = [
        "index.html": "<!doctype html><title>app</title>",
        "host.html": """
            <!doctype html><script>window.addEventListener('message', (e) => { window.frameReport = e.data; });</script>
            <iframe src="hybrid-test://other/frame.html"></iframe>
            """,
        "frame.html": """
            <!doctype html><script>
            const handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.hybrid;
            if (!handler) parent.postMessage('no handler', '*');
            else Promise.resolve(handler.postMessage(JSON.stringify({ v: 1, id: 1, module: 'probe', action: 'add',
                params: { a: 1, b: 1 }, nonce: 'guess' }))).then((r) => parent.postMessage(String(r), '*'),
                (e) => parent.postMessage('error ' + e, '*'));
            </script>
            """,
    ]

    static let script = """
        await hybrid.ready;
        const progress = [];
        const events = [];
        hybrid.on('tick', (n) => events.push(n));
        const sum = await hybrid.call('probe', 'add', { a: 2, b: 3 });
        const steps = await hybrid.call('probe', 'steps', 2, { onProgress: (p) => progress.push(p.step) });
        const failure = await attempt(hybrid.call('probe', 'fly'));
        const echo = await hybrid.call('probe', 'echo', { s: 'x"\\\\\\u2028' });
        return { sum, steps, progress, code: failure.code, echo, transport: hybrid.capabilities.transport };
        """

    @Test(arguments: EngineKind.allCases, [BridgeTransport.isolatedReply, .isolatedCallback, .pageReply, .pageCallback, .url])
    func theSameCallsWorkOverEachTransport(_ kind: EngineKind, _ transport: BridgeTransport) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages, options: .init(transport: transport))
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page(Self.script)
        #expect(result["sum"] == 5)
        #expect(result["steps"] == "done")
        #expect(result["progress"] == [1, 2])
        #expect(result["code"] == "unknown_action")
        #expect(result["echo"] == ["s": "x\"\\\u{2028}"])
        #expect(result["transport"] == .string(transport.rawValue))
        _ = try await rig.page("window.got = []; hybrid.on('tick', (n) => window.got.push(n)); return null;")
        for index in 0..<20 { try rig.host.emit("tick", index) }
        try await rig.engine.waitUntil("window.got.length === 20")
        #expect(try await rig.page("return window.got;") == .array((0..<20).map { .number(Double($0)) }))
    }

    @Test(arguments: EngineKind.allCases, [BridgeTransport.pageReply, .pageCallback])
    func withoutAnIsolatedWorldAForeignFrameIsDeniedByTheNonce(_ kind: EngineKind, _ transport: BridgeTransport) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages, options: .init(transport: transport))
        defer { rig.close() }
        try await rig.open("host.html")
        // The frame can reach the page-world handler, but it cannot know the top document's nonce:
        // once the router has refused its message, nothing of it can complete any more.
        try await rig.until("the frame's call to be refused") { rig.log.contains { $0.code == "denied" } }
        #expect(rig.completions.isEmpty)
        if transport == .pageReply {
            try await rig.engine.waitUntil("window.frameReport")
            let report = try #require(try await rig.page("return window.frameReport;").stringValue)
            #expect(report.contains(#""code":"denied""#))
        }
        #expect(rig.log.contains { $0.code == "denied" })
        #expect(try await rig.page("return await hybrid.call('probe', 'add', { a: 1, b: 2 });") == 3)
    }

    @Test(arguments: EngineKind.allCases)
    func builtInModulesAnswerFromARealPage(_ kind: EngineKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hk-e2e-storage-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let modules: [any BridgeModule] = [
            DeviceModule(appName: "E2E", appVersion: "9.9", allowedOrigins: [kind.appOrigin]),
            StorageModule(store: BridgeKeyValueStore(directory: directory), allowedOrigins: [kind.appOrigin]),
        ]
        let rig = try BridgeRig(kind, pages: Self.pages, modules: modules)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            const device = await hybrid.call('device', 'info');
            await hybrid.call('storage', 'set', { key: 'cart', value: { items: [1, 2] } });
            return { device, cart: await hybrid.call('storage', 'get', { key: 'cart' }), keys: await hybrid.call('storage', 'keys'),
                     modules: hybrid.modules };
            """)
        #expect(result["device"]?["appName"] == "E2E")
        #expect(result["device"]?["platform"] == "linux")
        #expect(result["cart"] == ["items": [1, 2]])
        #expect(result["keys"] == ["cart"])
        #expect(result["modules"] == ["device", "hybrid", "storage"])
    }
}

import Foundation
import HybridBlink
import HybridCore
import HybridTestSupport
import Testing

/// `hybrid.js` and the bridge, unchanged, on Blink: the same page API, errors and events.
@Suite("Blink bridge (hybrid.js unchanged)", .serialized)
@MainActor
struct BlinkBridgeTests {
    /// A Blink view with the bridge installed, pages on the https test origin.
    @MainActor
    final class Rig {
        let host: BridgeHost
        let engine: BlinkWebEngine
        let navigation: BridgeRigDelegate

        init(pages: [String: String], options: BridgeHost.Options = .init()) throws {
            let provider = try BlinkSuiteBrowser.provider()
            var module = RigModule()
            module.allowedOrigins = [OriginPattern(stringLiteral: EngineKind.blink.origin())]
            host = BridgeHost(capabilities: provider.capabilities, modules: [module], options: options)
            var configuration = EngineKind.blink.pages(TestPages(pages))
            host.configure(&configuration)
            engine = try provider.makeBlinkEngine(configuration)
            navigation = BridgeRigDelegate(host)
            engine.delegate = navigation
            host.attach(engine)
        }

        func open(_ path: String) async throws {
            try await engine.loadAndWait(EngineKind.blink.url(path))
            try await engine.waitUntil("window.hybrid && hybrid.modules.length > 0")
        }

        func close() {
            host.detach()
            engine.close()
        }
    }

    static let pages = ["index.html": "<!doctype html><title>app</title><p>app</p>"]

    @Test func aCallReturnsItsTypedResultThroughTheIsolatedWorld() async throws {
        let rig = try Rig(pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.engine.callAsync("""
            await hybrid.ready;
            return { sum: await hybrid.call('probe', 'add', { a: 20, b: 22 }),
                     echo: await hybrid.call('probe', 'echo', { s: 'é😀\\u2028', n: [1, 2.5, null], t: true }),
                     transport: hybrid.capabilities.transport, engine: hybrid.capabilities.engine,
                     pageSeesHandler: !!(window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.hybrid) };
            """)
        #expect(result["sum"] == 42)
        #expect(result["echo"] == ["s": "é😀\u{2028}", "n": [1, 2.5, nil], "t": true])
        #expect(result["transport"] == "isolated-reply")
        #expect(result["engine"] == "blink")
        #expect(result["pageSeesHandler"] == false)
    }

    @Test func errorsProgressAndEventsLookTheSameAsOnWebKit() async throws {
        let rig = try Rig(pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.engine.callAsync("""
            const steps = [];
            const done = await hybrid.call('probe', 'steps', 3, { onProgress: (p) => steps.push(p.step) });
            let code = null;
            try { await hybrid.call('probe', 'nope'); } catch (e) { code = e.code; }
            return { done, steps, code };
            """)
        #expect(result["done"] == "done")
        #expect(result["steps"] == [1, 2, 3])
        #expect(result["code"] == "unknown_action")
        _ = try await rig.engine.evaluate("window.__got = []; hybrid.on('tick', (v) => window.__got.push(v)); 0")
        for index in 0..<3 { try rig.host.emit("tick", index) }
        try await rig.engine.waitUntil("window.__got.length === 3")
        #expect(try await rig.engine.evaluate("window.__got") == [0, 1, 2])
    }

    @Test func theLegacyURLTransportWorksThroughNavigationRequests() async throws {
        let rig = try Rig(pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.engine.callAsync("""
            const out = [];
            for (let i = 0; i < 5; i++) out.push(await hybrid.call('probe', 'add', { a: i, b: 1 }, { transport: 'url' }));
            return out;
            """)
        #expect(result == [1, 2, 3, 4, 5])
        #expect(rig.navigation.bridgeNavigations > 0)
    }

    @Test func aRendererCrashFailsEveryPendingCallOnce() async throws {
        let rig = try Rig(pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        _ = try await rig.engine.evaluate("""
            window.__results = [];
            for (let i = 0; i < 5; i++) hybrid.call('probe', 'wait').then(() => __results.push('ok'), (e) => __results.push(e.code));
            0
            """)
        try await Task.sleep(nanoseconds: 100_000_000)
        let recorder = EventRecorder(rig.engine)
        rig.engine.terminateContentProcess()
        try await recorder.next("termination") { $0 == .contentProcessTerminated(.terminatedByClient) }
        // A reload gives a new document with a working bridge.
        recorder.reset()
        rig.engine.reload()
        try await recorder.loadFinished()
        try await rig.engine.waitUntil("window.hybrid && hybrid.modules.length > 0")
        #expect(try await rig.engine.callAsync("return await hybrid.call('probe', 'add', {a: 1, b: 1})") == 2)
    }
}

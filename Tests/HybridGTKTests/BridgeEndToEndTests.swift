import Foundation
import HybridCore
import HybridFixtures
import Testing

@Suite("Bridge calls round-trip through the real engine", .serialized)
@MainActor
struct BridgeEndToEndTests {
    static let pages = [
        "index.html": "<!doctype html><title>app</title><p>app</p>",
        "other.html": "<!doctype html><title>other</title><p>other</p>",
    ]

    @Test(arguments: EngineKind.allCases)
    func aCallReturnsItsTypedResultThroughTheIsolatedWorld(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            await hybrid.ready;
            return { sum: await hybrid.call('probe', 'add', { a: 20, b: 22 }),
                     echo: await hybrid.call('probe', 'echo', { s: 'é😀\\u2028', n: [1, 2.5, null], t: true }),
                     version: hybrid.version, transport: hybrid.capabilities.transport,
                     engine: hybrid.capabilities.engine, modules: hybrid.modules };
            """)
        #expect(result["sum"] == 42)
        #expect(result["echo"] == ["s": "é😀\u{2028}", "n": [1, 2.5, nil], "t": true])
        #expect(result["version"] == .string(BridgeRouter.version))
        #expect(result["transport"] == "isolated-reply")
        #expect(result["engine"] == .string(try kind.provider().engineName))
        #expect(result["modules"] == ["hybrid", "probe"])
    }

    @Test(arguments: EngineKind.allCases)
    func bytesTravelAsUint8Arrays(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            const small = await hybrid.call('probe', 'reverse', new Uint8Array([1, 2, 3, 255]));
            const big = new Uint8Array(300000).map((_, i) => i % 251);
            const back = await hybrid.call('probe', 'reverse', big.buffer);
            let same = back.length === big.length;
            for (let i = 0; same && i < big.length; i++) same = back[i] === big[big.length - 1 - i];
            const nested = await hybrid.call('probe', 'echo', { file: new DataView(new Uint8Array([7, 8]).buffer) });
            return { small: Array.from(small), isBytes: small instanceof Uint8Array, same,
                     nested: Array.from(nested.file), binary: hybrid.capabilities.binary };
            """)
        #expect(result["small"] == [255, 3, 2, 1])
        #expect(result["isBytes"] == true)
        #expect(result["same"] == true)
        #expect(result["nested"] == [7, 8])
        // Large values take the byte channel where the engine has one (BridgeByteChannelTests).
        #expect(result["binary"] == (kind.capabilities.contains(.byteChannel) ? "channel" : "base64"))
    }

    /// The runtime encodes bytes with the engine's own base64, taken before the page ran: a page
    /// that replaces `Uint8Array.prototype.toBase64` and `Uint8Array.fromBase64` (or breaks them)
    /// changes nothing its calls send or get back.
    @Test(arguments: EngineKind.allCases)
    func bytesSurviveAPageThatReplacesTheBase64BuiltIns(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            Uint8Array.prototype.toBase64 = function () { return 'AAAA'; };
            Uint8Array.fromBase64 = function () { throw new Error('replaced'); };
            const bytes = new Uint8Array(1000).map((_, i) => i % 251);
            const back = await hybrid.call('probe', 'reverse', bytes);
            let same = back instanceof Uint8Array && back.length === bytes.length;
            for (let i = 0; same && i < bytes.length; i++) same = back[i] === bytes[bytes.length - 1 - i];
            return { same };
            """)
        #expect(result["same"] == true)
    }

    @Test(arguments: EngineKind.allCases)
    func failuresRejectWithStableCodes(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            return [await attempt(hybrid.call('ghost', 'x')), await attempt(hybrid.call('probe', 'fly')),
                    await attempt(hybrid.call('probe', 'add', { a: 'one' })), await attempt(hybrid.call('probe', 'echo', { big: 1n }))];
            """)
        #expect(result.arrayValue?.map { $0["code"] } == ["unknown_module", "unknown_action", "bad_params", "bad_params"])
        #expect(result.arrayValue?.first?["name"] == "HybridError")
    }

    /// An immediate action is answered inside the engine's message callback, with the same
    /// values, errors and completion reports as any other.
    @Test(arguments: EngineKind.allCases)
    func immediateActionsAnswerWithTypedResultsAndErrors(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            return [await attempt(hybrid.call('probe', 'addNow', { a: 40, b: 2 })),
                    await attempt(hybrid.call('probe', 'refuseNow')),
                    await attempt(hybrid.call('probe', 'addNow', { a: 'one' }))];
            """)
        let answers = try #require(result.arrayValue)
        #expect(answers.count == 3)
        #expect(answers.first?["value"] == 42)
        #expect(answers.dropFirst().first?["code"] == "not_found")
        #expect(answers.dropFirst().first?["data"] == ["key": "x"])
        #expect(answers.last?["code"] == "bad_params")
        // Bad params never reach the handler, so only the first two calls completed.
        #expect(rig.completions.map(\.action) == ["addNow", "refuseNow"])
        #expect(rig.host.router.pendingCount == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func thePageWorldCannotSeeTheMessageHandlerOrTheTransport(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let seen = try await rig.page("""
            return { handler: typeof (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.hybrid),
                     transport: typeof window.__hybridkitTransport, hybrid: typeof window.hybrid };
            """)
        #expect(seen == ["handler": "undefined", "transport": "undefined", "hybrid": "object"])
        // The isolated world does see it.
        let isolated = try await rig.engine.evaluate("typeof window.webkit.messageHandlers.hybrid", in: .named("hybridkit"))
        #expect(isolated == "object")
    }

    @Test(arguments: EngineKind.allCases)
    func progressReachesOnProgressInOrderBeforeTheResult(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            const seen = [];
            const value = await hybrid.call('probe', 'steps', 4, { onProgress: (p) => seen.push(p.step) });
            seen.push(value);
            return seen;
            """)
        #expect(result == [1, 2, 3, 4, "done"])
    }

    @Test(arguments: EngineKind.allCases)
    func eventsArriveInOrderAtTheCurrentDocumentOnly(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        _ = try await rig.page("window.got = []; hybrid.on('tick', (n) => window.got.push(n)); return null;")
        for index in 0..<200 { try rig.host.emit("tick", index) }
        try await rig.engine.waitUntil("window.got.length === 200")
        #expect(try await rig.page("return window.got;") == .array((0..<200).map { .number(Double($0)) }))
        try await rig.open("other.html")
        _ = try await rig.page("window.got2 = []; hybrid.on('tick', (n) => window.got2.push(n)); return null;")
        try rig.host.emit("tick", 999)
        try await rig.engine.waitUntil("window.got2.length === 1")
        #expect(try await rig.page("return [typeof window.got, window.got2];") == ["undefined", [999]])
    }

    @Test(arguments: EngineKind.allCases)
    func abortCancelsTheNativeWork(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            const controller = new AbortController();
            const call = attempt(hybrid.call('probe', 'wait', {}, { signal: controller.signal }));
            setTimeout(() => controller.abort(), 50);
            return await call;
            """)
        #expect(result["code"] == "cancelled")
        try await rig.until("the native side to see the cancel") { rig.completions.contains { $0.action == "wait" } }
        #expect(rig.completions.last?.code == "cancelled")
        #expect(rig.host.router.pendingCount == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func aTimeoutRejectsAndStopsTheNativeWork(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("return await attempt(hybrid.call('probe', 'wait', {}, { timeout: 80 }));")
        #expect(result["code"] == "timeout")
        try await rig.until("the native side to end the call") { rig.host.router.pendingCount == 0 }
        #expect(rig.completions.count == 1)
    }

    @Test(arguments: EngineKind.allCases)
    func theLegacyURLTransportRoutesIntoTheSameModules(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            const [a, b, c] = await Promise.all([hybrid.call('probe', 'add', { a: 1, b: 2 }, { transport: 'url' }),
              hybrid.call('probe', 'echo', 'x', { transport: 'url' }), attempt(hybrid.call('probe', 'fly', {}, { transport: 'url' }))]);
            return [a, b, c.code];
            """)
        #expect(result == [3, "x", "unknown_action"])
        #expect(rig.navigation.bridgeNavigations >= 1)
    }

    @Test(arguments: EngineKind.allCases)
    func aURLStyleLinkCallsTheModule(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        _ = try await rig.page("location.href = 'hybrid://probe/add?params=' + encodeURIComponent(JSON.stringify({a: 5, b: 6})); return null;")
        try await rig.until("the URL call to complete") { !rig.completions.isEmpty }
        #expect(rig.completions.first?.action == "add" && rig.completions.first?.code == nil)
    }
}

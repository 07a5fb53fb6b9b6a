import Foundation
import HybridCore
import HybridFixtures
import Testing

@Suite("Bridge stays bounded under hostile load and engine death", .serialized)
@MainActor
struct BridgeRobustnessTests {
    static let pages = ["index.html": "<!doctype html><title>app</title>"]

    @Test(arguments: EngineKind.allCases)
    func aHundredMegabyteMessageIsRefusedWithoutHarm(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        // Through the runtime: refused before it leaves the page.
        let viaRuntime = try await rig.page("return await attempt(hybrid.call('probe', 'echoText', 'x'.repeat(100 * 1024 * 1024)));")
        #expect(viaRuntime["code"] == "payload_too_large")
        // Straight to the handler (no runtime): the native side refuses it before parsing.
        let reply = try await rig.engine.callAsync("""
            const text = '{"v":1,"id":77,"module":"probe","action":"echoText","params":"' + 'x'.repeat(100 * 1024 * 1024) + '"}';
            return await window.webkit.messageHandlers.hybrid.postMessage(text);
            """, arguments: [:], in: .named("hybridkit"))
        let answer = try JSONValue(jsonText: try #require(reply.stringValue))
        #expect(answer["id"] == 77)
        #expect(answer["error"]?["code"] == "payload_too_large")
        #expect(try await rig.page("return await hybrid.call('probe', 'add', { a: 1, b: 2 });") == 3)
    }

    @Test(arguments: EngineKind.allCases)
    func aFloodOfTenThousandCallsIsBoundedAndEveryCallSettles(_ kind: EngineKind) async throws {
        let module = RigModule(kind)
        let rig = try BridgeRig(kind, pages: Self.pages, modules: [module], limits: .init(maxInFlight: 64))
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            const calls = [];
            for (let i = 0; i < 10000; i++) calls.push(hybrid.call('probe', 'slowEcho', i));
            const settled = await Promise.allSettled(calls);
            const codes = {};
            let ok = 0, right = 0;
            settled.forEach((s, i) => {
              if (s.status === 'fulfilled') { ok++; if (s.value === i) right++; }
              else codes[s.reason.code] = (codes[s.reason.code] || 0) + 1;
            });
            return { ok, right, codes, pending: hybrid.pendingCount };
            """)
        let ok = try #require(result["ok"]?.numberValue)
        let full = result["codes"]?["queue_full"]?.numberValue ?? 0
        #expect(ok + full == 10_000, "every call settles as a result or queue_full: \(result)")
        #expect(result["right"] == result["ok"])
        #expect(ok >= 64)
        #expect(result["pending"] == 0)
        #expect(await module.gauge.peak <= 64)
        #expect(rig.host.router.pendingCount == 0)
    }

    @Test(arguments: EngineKind.allCases)
    func killingTheContentProcessFailsAllFiftyPendingCallsExactlyOnce(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        _ = try await rig.page("for (let i = 0; i < 50; i++) hybrid.call('probe', 'wait').catch(() => {}); return null;")
        try await rig.until("50 calls to be pending") { rig.host.router.pendingCount == 50 }
        rig.engine.terminateContentProcess()
        try await rig.until("every call to fail") { rig.completions.count == 50 }
        #expect(rig.host.router.pendingCount == 0)
        // The container recovers: a reload gets a working bridge. That call is also the barrier:
        // a second failure of any of the fifty would have been recorded before its completion.
        try await rig.open("index.html")
        #expect(try await rig.page("return await hybrid.call('probe', 'add', { a: 1, b: 2 });") == 3)
        let failed = rig.completions.dropLast()
        #expect(rig.completions.last?.code == nil)
        #expect(failed.count == 50)
        #expect(Set(failed.map(\.callID)).count == 50)
        #expect(failed.allSatisfy { $0.code == "engine_terminated" })
    }
}

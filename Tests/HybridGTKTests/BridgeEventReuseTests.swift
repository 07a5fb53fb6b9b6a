import Foundation
import HybridCore
import HybridFixtures
import Testing

/// The runtime and the transport re-initialise one DOM event per direction instead of making one
/// per message: a message sent while that event is still being dispatched, and a page that holds
/// on to the event or tampers with it, must not lose, mix up or forge a message.
@Suite("Bridge events reused per direction", .serialized)
@MainActor
struct BridgeEventReuseTests {
    static let pages = ["index.html": "<!doctype html><title>app</title>"]

    @Test(arguments: EngineKind.allCases)
    func aCallMadeWhileTheSendEventIsDispatchedGoesThroughWithItsOwnParams(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        let result = try await rig.page("""
            let inner = null, seen = 0, called = false;
            const listener = () => {
              seen++;
              if (!called) { called = true; inner = hybrid.call('probe', 'add', { a: 10, b: 20 }); }
            };
            document.addEventListener('hybridkit:send', listener);
            const outer = hybrid.call('probe', 'add', { a: 1, b: 2 });
            document.removeEventListener('hybridkit:send', listener);
            return { outer: await outer, inner: await inner, seen };
            """)
        #expect(result["outer"] == 3)
        #expect(result["inner"] == 30)
        #expect(result["seen"] == 2)
    }

    @Test(arguments: EngineKind.allCases)
    func aMessageDeliveredWhileTheReceiveEventIsDispatchedArrivesToo(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        // A page listener that asks the transport for the ready message again from inside the
        // dispatch of a reply: the transport answers at once, while its receive event is busy.
        let result = try await rig.page("""
            let asked = false, readyAgain = 0;
            const listener = (event) => {
              if (event.detail.indexOf('"t":"ready"') >= 0) { readyAgain++; return; }
              if (!asked) { asked = true; document.dispatchEvent(new CustomEvent('hybridkit:hello')); }
            };
            document.addEventListener('hybridkit:recv', listener);
            const first = await hybrid.call('probe', 'add', { a: 2, b: 2 });
            const second = await hybrid.call('probe', 'add', { a: 3, b: 3 });
            document.removeEventListener('hybridkit:recv', listener);
            return { first, second, readyAgain };
            """)
        #expect(result["first"] == 4)
        #expect(result["second"] == 6)
        #expect(result["readyAgain"] == 1)
    }

    @Test(arguments: EngineKind.allCases)
    func aPageThatKeepsAndReinitialisesTheEventsForgesNothing(_ kind: EngineKind) async throws {
        let rig = try BridgeRig(kind, pages: Self.pages)
        defer { rig.close() }
        try await rig.open("index.html")
        // Hostile page code: it keeps both events, stops their propagation where it can, rewrites
        // their detail between messages and dispatches them again itself.
        let result = try await rig.page("""
            let sent = null, received = null;
            const keepSent = (event) => { sent = event; event.stopImmediatePropagation(); };
            const keepReceived = (event) => { received = event; };
            document.addEventListener('hybridkit:send', keepSent);
            document.addEventListener('hybridkit:recv', keepReceived);
            const first = await hybrid.call('probe', 'add', { a: 1, b: 1 });
            // Kept events hold no message once dispatched.
            const emptied = [sent.detail, received.detail];
            sent.initCustomEvent('hybridkit:send', false, false, '{"v":1,"id":1,"module":"probe","action":"add","params":{"a":5,"b":5}}');
            document.dispatchEvent(sent);
            received.initCustomEvent('hybridkit:recv', false, false, '{"t":"reply","id":1,"ok":true,"value":99}');
            document.dispatchEvent(received);
            const second = await hybrid.call('probe', 'add', { a: 4, b: 4 });
            document.removeEventListener('hybridkit:send', keepSent);
            document.removeEventListener('hybridkit:recv', keepReceived);
            return { first, second, pending: hybrid.pendingCount, emptied };
            """)
        #expect(result["emptied"] == [.null, .null])
        #expect(result["first"] == 2)
        #expect(result["second"] == 8)
        #expect(result["pending"] == 0)
        // The forged call carried no nonce: the container refused it and ran only the page's two.
        #expect(rig.completions.count == 2)
        #expect(rig.log.contains { $0.code == "denied" })
    }
}
